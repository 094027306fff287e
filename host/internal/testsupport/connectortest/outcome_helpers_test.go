package connectortest

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Outcome is one call's result, normalised so that runtimes compare
// equal when they behave the same: JSON text as a value (not bytes),
// the fetches the connector made, sorted, and a connector failure
// without the runtime's own wording around it.
type Outcome struct {
	IsError bool `json:"is_error,omitempty"`
	// Result is the text when it is JSON.
	Result any `json:"result,omitempty"`
	// Text is the text when it is not JSON.
	Text string `json:"text,omitempty"`
	// Structured is "= result" when the structured content is the result,
	// else the structured content itself.
	Structured any `json:"structured,omitempty"`
	// Failure is a connector failure (an error return, not a tool error):
	// its first line, without the "connector \"id\": " prefix.
	Failure string `json:"failure,omitempty"`
	// Fetches are the connector's upstream requests, one line each.
	Fetches []string `json:"fetches"`
	// Elicitations are what the connector asked the client, in order
	// (those the gate let through to it).
	Elicitations []Asked `json:"elicitations,omitempty"`
}

// Asked is one elicitation a connector put to the call's client.
type Asked struct {
	Message string `json:"message"`
	// Schema is the requested schema, decoded.
	Schema any `json:"schema"`
}

var connectorPrefix = regexp.MustCompile(`^connector "[a-z0-9]+": `)

// Normalise builds the Outcome of a call that returned res and err after
// making the fetches reqs.
func Normalise(res connector.CallResult, err error, reqs []connector.FetchRequest) Outcome {
	o := Outcome{Fetches: []string{}}
	for _, r := range reqs {
		o.Fetches = append(o.Fetches, fetchLine(r))
	}
	sort.Strings(o.Fetches)
	if err != nil {
		first, _, _ := strings.Cut(err.Error(), "\n")
		o.Failure = connectorPrefix.ReplaceAllString(first, "")
		return o
	}
	o.IsError = res.IsError
	var v any
	if json.Unmarshal([]byte(res.Text), &v) == nil && v != nil {
		o.Result = v
	} else {
		o.Text = res.Text
	}
	if len(res.Structured) > 0 {
		var s any
		if err := json.Unmarshal(res.Structured, &s); err != nil {
			o.Structured = "malformed: " + err.Error()
		} else if jsonEqual(s, o.Result) {
			o.Structured = "= result"
		} else {
			o.Structured = s
		}
	}
	return o
}

func fetchLine(r connector.FetchRequest) string {
	cost := r.Cost
	if cost == 0 {
		cost = 1
	}
	s := fmt.Sprintf("%s %s service=%s cost=%g class=%s", r.Method, r.URL, r.Service, cost, r.CacheClass)
	if len(r.Header) > 0 {
		keys := make([]string, 0, len(r.Header))
		for k := range r.Header {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			s += fmt.Sprintf(" %s=%q", k, r.Header[k])
		}
	}
	if len(r.Body) > 0 {
		s += fmt.Sprintf(" body=%q", clipString(string(r.Body)))
	}
	return s
}

func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// golden is the outcome as the want section records it: indented JSON,
// with long strings cut to a head and a digest so that case files stay
// readable. Runtimes are compared on the whole outcome, not on this.
func (o Outcome) golden() []byte {
	b, err := json.Marshal(o)
	if err != nil {
		panic(err) // decoded JSON always encodes
	}
	var v any
	json.Unmarshal(b, &v)
	v = clipStrings(v)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSpace(out.Bytes())
}

// maxGoldenString is the longest string kept whole in a want section.
const maxGoldenString = 600

func clipStrings(v any) any {
	switch x := v.(type) {
	case string:
		return clipString(x)
	case []any:
		for i := range x {
			x[i] = clipStrings(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = clipStrings(x[k])
		}
	}
	return v
}

func clipString(s string) string {
	if len(s) <= maxGoldenString {
		return s
	}
	cut := 200
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return fmt.Sprintf("%s… [%d bytes, sha256 %x]", s[:cut], len(s), sha256.Sum256([]byte(s)))
}

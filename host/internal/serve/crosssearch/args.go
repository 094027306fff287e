package crosssearch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Args are besluitbron_search's arguments.
type Args struct {
	Query        string   `json:"query"`
	Platforms    []string `json:"platforms,omitempty"`
	Organization string   `json:"organization,omitempty"`
	DateFrom     string   `json:"date_from,omitempty"`
	DateTo       string   `json:"date_to,omitempty"`
	// Limit is the number of results per platform.
	Limit int `json:"limit,omitempty"`
	// TimeoutSeconds is the per-platform deadline.
	TimeoutSeconds float64 `json:"timeout_seconds,omitempty"`

	// today is the open end of a date range for platforms that need both
	// ends (Rechtspraak), from Options.Now.
	today string
}

// Argument bounds.
const (
	DefaultLimit = 10
	MaxLimit     = 50
	MaxQuery     = 500
	MaxTimeout   = 60
)

// inputSchema is the tool's JSON Schema; ids is the enum of platforms.
func inputSchema(ids []string, defaultTimeout time.Duration) json.RawMessage {
	enum, _ := json.Marshal(ids)
	return json.RawMessage(fmt.Sprintf(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": %d, "description": "Free text. Each platform reads it with its own syntax; words are ANDed everywhere."},
    "platforms": {"type": "array", "items": {"type": "string", "enum": %s}, "uniqueItems": true, "minItems": 1, "description": "Connector ids to search; default every platform with a free-text search."},
    "organization": {"type": "string", "minLength": 2, "maxLength": 200, "description": "One organisation by name, e.g. \"Soest\", \"Gemeente Utrecht\", \"Provincie Zuid-Holland\", \"Waterschap Rivierenland\" (for a platform of courts: a court such as \"HR\" or \"Rechtbank Amsterdam\"). Resolved per platform; platforms that cannot filter by organisation are left out unless named in platforms."},
    "date_from": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "ISO date, inclusive (each platform's own document date)."},
    "date_to": {"type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "description": "ISO date, inclusive."},
    "limit": {"type": "integer", "minimum": 1, "maximum": %d, "default": %d, "description": "Results per platform."},
    "timeout_seconds": {"type": "number", "exclusiveMinimum": 0, "maximum": %d, "description": "How long to wait for each platform; a platform that has not answered by then is reported as timed out. Default %s."}
  },
  "required": ["query"],
  "additionalProperties": false
}`, MaxQuery, enum, MaxLimit, DefaultLimit, MaxTimeout, defaultTimeout))
}

// parseArgs decodes and checks the arguments; every error names the
// argument.
func parseArgs(raw json.RawMessage, known map[string]bool, ids []string) (Args, error) {
	var a Args
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return a, fmt.Errorf("%s", argError(err))
	}
	a.Query = strings.TrimSpace(a.Query)
	switch {
	case a.Query == "":
		return a, fmt.Errorf("argument \"query\": required, the words to search for")
	case utf8.RuneCountInString(a.Query) > MaxQuery:
		return a, fmt.Errorf("argument \"query\" must be at most %d characters long (got %d characters)", MaxQuery, utf8.RuneCountInString(a.Query))
	case !utf8.ValidString(a.Query):
		return a, fmt.Errorf("argument \"query\": not valid UTF-8")
	}
	seen := map[string]bool{}
	for _, p := range a.Platforms {
		if !known[p] {
			return a, fmt.Errorf("argument \"platforms\": %s is not a platform here (one of %s)", quoteCut(p, 60), strings.Join(ids, ", "))
		}
		if seen[p] {
			return a, fmt.Errorf("argument \"platforms\": %s is named twice", quoteCut(p, 60))
		}
		seen[p] = true
	}
	if a.Platforms != nil && len(a.Platforms) == 0 {
		return a, fmt.Errorf("argument \"platforms\": empty; omit it to search every platform with a free-text search")
	}
	a.Organization = strings.TrimSpace(a.Organization)
	if n := utf8.RuneCountInString(a.Organization); a.Organization != "" && (n < 2 || n > 200) {
		return a, fmt.Errorf("argument \"organization\": %d characters; give a name of 2 to 200", n)
	}
	for _, d := range []struct{ name, v string }{{"date_from", a.DateFrom}, {"date_to", a.DateTo}} {
		if d.v == "" {
			continue
		}
		if t, err := time.Parse("2006-01-02", d.v); err != nil || t.Format("2006-01-02") != d.v {
			return a, fmt.Errorf("argument %q must be a date written YYYY-MM-DD (got %s)", d.name, quoteCut(d.v, 40))
		}
	}
	if a.DateFrom != "" && a.DateTo != "" && a.DateFrom > a.DateTo {
		return a, fmt.Errorf("arguments \"date_from\" and \"date_to\": %s is after %s", a.DateFrom, a.DateTo)
	}
	if a.Limit == 0 {
		a.Limit = DefaultLimit
	}
	if a.Limit < 1 || a.Limit > MaxLimit {
		return a, fmt.Errorf("argument \"limit\" must be between 1 and %d (got %d)", MaxLimit, a.Limit)
	}
	if a.TimeoutSeconds < 0 || a.TimeoutSeconds > MaxTimeout || a.TimeoutSeconds != a.TimeoutSeconds {
		return a, fmt.Errorf("argument \"timeout_seconds\" must be more than 0 and at most %d (got %v)", MaxTimeout, a.TimeoutSeconds)
	}
	return a, nil
}

// argError names the argument of a JSON decoding error, with the type it
// wants in words.
func argError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		want := map[string]string{"string": "a string", "[]string": "a list of strings", "int": "a whole number", "float64": "a number"}[te.Type.String()]
		if want == "" {
			want = te.Type.String()
		}
		return fmt.Sprintf("argument %s must be %s (got a JSON %s)", quoteCut(te.Field, 60), want, te.Value)
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		f, _ = strconv.Unquote(f)
		return fmt.Sprintf("unknown argument %s (this tool takes: query (required), platforms, organization, date_from, date_to, limit, timeout_seconds)", quoteCut(f, 60))
	}
	return "the arguments are not a valid JSON object: " + clip(msg, 200)
}

// quoteCut quotes a value from the caller, cut to n characters with its
// length when longer: an error must not echo a huge argument whole.
func quoteCut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(string(r[:n])) + fmt.Sprintf("… (%d characters in all)", len(r))
}

// clip cuts s to at most n bytes on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

package ori

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// GoneError says the upstream answered, but not as ORI's Elasticsearch
// API. After the announced switch-off that is the expected failure, so the
// message says so and names the replacement instead of a bare status.
type GoneError struct {
	// What is the tool's step ("search", "get_document").
	What string
	// Why is the HTTP answer observed.
	Why string
	// Passing is set for a gateway's 502/503/504: the proxy answered but
	// the service behind it did not, which is as often an outage as a
	// switch-off.
	Passing bool
}

func (e *GoneError) Error() string {
	if e.Passing {
		return fmt.Sprintf("%s: the proxy in front of Open Raadsinformatie Classic answered, but the service behind it did not (%s). "+
			"That is often passing: try again in a few minutes. If it lasts, ORI Classic may have been switched off as announced for autumn 2026; "+
			"the obv connector (obv_search, obv_get_document) indexes the same sources.", e.What, e.Why)
	}
	return fmt.Sprintf("%s: Open Raadsinformatie Classic answered, but not as its Elasticsearch API (%s). "+
		"ORI Classic was announced to be switched off in autumn 2026 (1 October 2026 per OpenBesluitvorming, 1 November 2026 per the ORI API docs) and is probably gone. "+
		"Use the obv connector (obv_search, obv_get_document): OpenBesluitvorming indexes the same sources. "+
		"ORI's numeric ids do not exist there; search again by title.", e.What, e.Why)
}

// UnreachableError says the request never got an answer: the name did not
// resolve, the connection was refused or broke off, or nothing came back
// in time. Nothing was heard from ORI, so this says nothing about whether
// it was switched off; offline, every platform fails this way, and
// "probably gone" would send the reader after the wrong cause.
type UnreachableError struct {
	// What is the tool's step.
	What string
	// Host is the address that could not be reached ("" when the
	// failure did not name it).
	Host string
	// Cause is what went wrong, in words; Check what to look at.
	Cause, Check string
	// Detail is the fetch error as the host reported it.
	Detail string
}

func (e *UnreachableError) Error() string {
	host := e.Host
	if host == "" {
		host = "the platform"
	}
	return fmt.Sprintf("%s: could not reach %s: %s; %s. "+
		"No answer came from Open Raadsinformatie Classic, so this is not a sign that it was switched off. "+
		"If other platforms answer and this lasts, it may be (the switch-off was announced for autumn 2026); the obv connector (obv_search) indexes the same sources. "+
		"Detail: %s",
		e.What, host, e.Cause, e.Check, clip(e.Detail, 200))
}

// networkCauses recognise the failures the host's fetch gate reports as
// "unavailable" (Go's net and TLS errors, and the gate's own timeout), in
// order: the first match wins, so DNS is found before the timeouts a
// failed lookup can also mention.
var networkCauses = []struct {
	marks        []string
	cause, check string
}{
	{[]string{"no such host", "server misbehaving", "Temporary failure in name resolution", "lookup "},
		"its name could not be resolved (DNS)", "check the network connection and DNS"},
	{[]string{"connection refused"},
		"the connection was refused", "check the network, a proxy or firewall, and the connector's base_url"},
	{[]string{"network is unreachable", "no route to host"},
		"there is no route to it (network unreachable)", "check the network connection"},
	{[]string{"did not answer within", "i/o timeout", "deadline exceeded", "Timeout", "timed out"},
		"no answer in time (timeout)", "check the network; if it is up, try again later"},
	{[]string{"tls:", "x509:", "certificate"},
		"the secure connection failed (TLS)", "check the system clock and certificates, or a proxy that intercepts HTTPS"},
	{[]string{"connection reset", "broken pipe", "EOF"},
		"the connection broke off", "try again; if it keeps happening, check the network"},
}

// unreachable classifies an "unavailable" fetch error, or returns nil when
// it is not a network failure (an oversized answer, for one).
func unreachable(what, msg string) *UnreachableError {
	for _, c := range networkCauses {
		for _, m := range c.marks {
			if strings.Contains(msg, m) {
				return &UnreachableError{What: what, Host: hostOf(msg), Cause: c.cause, Check: c.check, Detail: msg}
			}
		}
	}
	return nil
}

// hostOf finds the host a fetch error names: the gate starts its messages
// with it ("api.openraadsinformatie.nl: dial tcp: …", "… did not answer
// within 30s"); Go's resolver names it after "lookup ".
func hostOf(msg string) string {
	first, _, _ := strings.Cut(msg, " ")
	first = strings.TrimSuffix(first, ":")
	if looksLikeHost(first) {
		return first
	}
	if _, rest, ok := strings.Cut(msg, "lookup "); ok {
		h, _, _ := strings.Cut(rest, " ")
		h = strings.TrimSuffix(h, ":")
		if looksLikeHost(h) {
			return h
		}
	}
	return ""
}

func looksLikeHost(s string) bool {
	if s == "" || len(s) > 253 || !strings.Contains(s, ".") {
		return false
	}
	for _, r := range s {
		if !(r == '.' || r == '-' || r == ':' || r == '[' || r == ']' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// esError is Elasticsearch's error body:
// {"error":{"root_cause":[…],"type":"…","reason":"…"},"status":400}.
type esError struct {
	Error *struct {
		Type      string `json:"type"`
		Reason    string `json:"reason"`
		RootCause []struct {
			Type   string `json:"type"`
			Reason string `json:"reason"`
		} `json:"root_cause"`
	} `json:"error"`
	Status int `json:"status"`
}

// fetchErr turns a failed fetch into a tool error. A network failure is
// an [UnreachableError] that names the host and the cause (DNS, refused,
// timeout): nothing was heard from ORI, so it is not taken for the
// switch-off. A refusal or a queue timeout is the host's and is passed on.
func fetchErr(what string, err error) error {
	var fe *connector.FetchError
	if errors.As(err, &fe) && fe.Kind == connector.FetchUnavailable {
		if ue := unreachable(what, fe.Message); ue != nil {
			return ue
		}
		return fmt.Errorf("%s: the request failed: %s", what, clip(fe.Message, 300))
	}
	return fmt.Errorf("%s: %w", what, err)
}

// checkResponse returns nil for a 2xx JSON answer, the platform's own
// message for an Elasticsearch error, and a [GoneError] for anything that
// does not look like Elasticsearch at all (a gateway error as passing).
func checkResponse(what string, r connector.FetchResponse) error {
	var ee esError
	isES := json.Unmarshal(r.Body, &ee) == nil && ee.Error != nil
	switch {
	case r.Status >= 200 && r.Status < 300:
		if !looksLikeJSON(r.Body) {
			return &GoneError{What: what, Why: fmt.Sprintf("HTTP %d with a body that is not JSON: %s", r.Status, firstLine(r.Body))}
		}
		return nil
	case isES:
		return fmt.Errorf("%s: Elasticsearch answered HTTP %d: %s", what, r.Status, ee.describe())
	case r.Status == 404 || r.Status == 410 || (r.Status >= 300 && r.Status < 400):
		return &GoneError{What: what, Why: fmt.Sprintf("HTTP %d: %s", r.Status, firstLine(r.Body))}
	case r.Status == 502 || r.Status == 503 || r.Status == 504:
		return &GoneError{What: what, Why: fmt.Sprintf("HTTP %d: %s", r.Status, firstLine(r.Body)), Passing: true}
	case r.Status == 403:
		// nginx answers 403 for methods and paths it does not proxy; the
		// connector only uses allowed ones, so a 403 means the proxy changed.
		return &GoneError{What: what, Why: "HTTP 403 from the proxy, which used to allow these requests: " + firstLine(r.Body)}
	default:
		return fmt.Errorf("%s: %w", what, sdk.CheckStatus(r))
	}
}

func (e *esError) describe() string {
	s := e.Error.Type
	if e.Error.Reason != "" {
		s += ": " + e.Error.Reason
	}
	for _, rc := range e.Error.RootCause {
		if rc.Reason != "" && rc.Reason != e.Error.Reason {
			s += " (" + rc.Type + ": " + rc.Reason + ")"
			break
		}
	}
	return clip(s, 400)
}

func looksLikeJSON(b []byte) bool {
	s := strings.TrimSpace(string(b[:min(len(b), 64)]))
	return strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b[:min(len(b), 400)]))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return "(empty body)"
	}
	return clip(s, 200)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// decode reads a checked answer into v, naming the step when the JSON is
// broken.
func decode(what string, r connector.FetchResponse, v any) error {
	if err := checkResponse(what, r); err != nil {
		return err
	}
	if err := json.Unmarshal(r.Body, v); err != nil {
		return fmt.Errorf("%s: the platform's response is not the expected JSON: %v", what, err)
	}
	return nil
}

package ori

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// GoneError says the upstream no longer answers as ORI's Elasticsearch API.
// After the announced switch-off that is the expected failure, so the
// message says so and names the replacement instead of a bare status.
type GoneError struct {
	// What is the tool's step ("search", "get_document").
	What string
	// Why is what was observed: the fetch error or the HTTP answer.
	Why string
}

func (e *GoneError) Error() string {
	return fmt.Sprintf("%s: Open Raadsinformatie Classic did not answer as its Elasticsearch API (%s). "+
		"ORI Classic was announced to be switched off in autumn 2026 (1 October 2026 per OpenBesluitvorming, 1 November 2026 per the ORI API docs) and is probably gone. "+
		"Use the obv connector (obv_search, obv_get_document): OpenBesluitvorming indexes the same sources. "+
		"ORI's numeric ids do not exist there; search again by title.", e.What, e.Why)
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
// what a switched-off platform looks like, so it gets the [GoneError]
// explanation; a refusal or a queue timeout is the host's and is passed on.
func fetchErr(what string, err error) error {
	var fe *connector.FetchError
	if errors.As(err, &fe) && fe.Kind == connector.FetchUnavailable {
		return &GoneError{What: what, Why: "the request failed: " + fe.Message}
	}
	return fmt.Errorf("%s: %w", what, err)
}

// checkResponse returns nil for a 2xx JSON answer, the platform's own
// message for an Elasticsearch error, and a [GoneError] for anything that
// does not look like Elasticsearch at all.
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
	case r.Status == 404 || r.Status == 410 || (r.Status >= 300 && r.Status < 400) || r.Status == 502 || r.Status == 503 || r.Status == 504:
		return &GoneError{What: what, Why: fmt.Sprintf("HTTP %d: %s", r.Status, firstLine(r.Body))}
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

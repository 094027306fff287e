package crosssearch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
    "organization": {"type": "string", "minLength": 2, "maxLength": 200, "description": "One organisation by name, e.g. \"Soest\", \"Gemeente Utrecht\", \"Provincie Zuid-Holland\", \"Waterschap Rivierenland\" (for rechtspraak: a court such as \"HR\" or \"Rechtbank Amsterdam\"). Resolved per platform; platforms that cannot filter by organisation are left out unless named in platforms."},
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
		return a, fmt.Errorf("argument \"query\": longer than %d characters", MaxQuery)
	case !utf8.ValidString(a.Query):
		return a, fmt.Errorf("argument \"query\": not valid UTF-8")
	}
	seen := map[string]bool{}
	for _, p := range a.Platforms {
		if !known[p] {
			return a, fmt.Errorf("argument \"platforms\": %q is not a platform here (one of %s)", p, strings.Join(ids, ", "))
		}
		if seen[p] {
			return a, fmt.Errorf("argument \"platforms\": %q is named twice", p)
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
			return a, fmt.Errorf("argument %q: %q is not an ISO date (YYYY-MM-DD)", d.name, d.v)
		}
	}
	if a.DateFrom != "" && a.DateTo != "" && a.DateFrom > a.DateTo {
		return a, fmt.Errorf("arguments \"date_from\" and \"date_to\": %s is after %s", a.DateFrom, a.DateTo)
	}
	if a.Limit == 0 {
		a.Limit = DefaultLimit
	}
	if a.Limit < 1 || a.Limit > MaxLimit {
		return a, fmt.Errorf("argument \"limit\": %d is outside 1…%d", a.Limit, MaxLimit)
	}
	if a.TimeoutSeconds < 0 || a.TimeoutSeconds > MaxTimeout || a.TimeoutSeconds != a.TimeoutSeconds {
		return a, fmt.Errorf("argument \"timeout_seconds\": %v is outside 0…%d", a.TimeoutSeconds, MaxTimeout)
	}
	return a, nil
}

// argError names the argument of a JSON decoding error.
func argError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Sprintf("argument %q: want %s, not a JSON %s", te.Field, te.Type.String(), te.Value)
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return fmt.Sprintf("argument %s: unknown (query, platforms, organization, date_from, date_to, limit, timeout_seconds)", f)
	}
	return "arguments are not a valid JSON object: " + msg
}

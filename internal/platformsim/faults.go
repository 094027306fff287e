package platformsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Fault is what goes wrong at one platform. The zero value is a healthy
// platform. Rates are fractions of requests in [0, 1]; 1 hits every
// request, and fractional rates draw from the Sim's seeded generator, so a
// run is repeatable. Faults are checked in this order: hang, latency,
// reset, 429 storm, the platform's own limit, 5xx, refused expansion,
// malformed body.
type Fault struct {
	// Latency delays every answer.
	Latency time.Duration `json:"-"`
	// Hang holds every request open without an answer until the client
	// gives up (or the Sim is closed).
	Hang bool `json:"hang,omitempty"`
	// ErrorRate answers with the platform's own 5xx error shape.
	ErrorRate float64 `json:"error_rate,omitempty"`
	// ResetRate drops the connection (TCP reset) without an answer.
	ResetRate float64 `json:"reset_rate,omitempty"`
	// MalformedRate sends a 200 with a truncated, corrupted body.
	MalformedRate float64 `json:"malformed_rate,omitempty"`
	// Storm429 answers every request with the platform's 429 and
	// Retry-After: RetryAfter seconds (default 5).
	Storm429   bool `json:"storm429,omitempty"`
	RetryAfter int  `json:"retry_after,omitempty"`
	// RefuseExpand is platform drift, for tk only: every OData request
	// whose $expand names HuidigeDocumentVersie is answered 400 with the
	// error the platform gives for an unknown navigation property
	// ("Could not find a property named 'HuidigeDocumentVersie' on type
	// 'TK.DA.GGM.OData.Document'."), as if the property had been renamed.
	// Requests without that expansion keep working, the documents' files
	// (Document({Id})/resource) included.
	RefuseExpand bool `json:"refuse_expand,omitempty"`
}

// faultJSON is Fault on the wire, with the latency as a Go duration
// string ("250ms").
type faultJSON struct {
	Latency       string  `json:"latency,omitempty"`
	Hang          bool    `json:"hang,omitempty"`
	ErrorRate     float64 `json:"error_rate,omitempty"`
	ResetRate     float64 `json:"reset_rate,omitempty"`
	MalformedRate float64 `json:"malformed_rate,omitempty"`
	Storm429      bool    `json:"storm429,omitempty"`
	RetryAfter    int     `json:"retry_after,omitempty"`
	RefuseExpand  bool    `json:"refuse_expand,omitempty"`
}

// MarshalJSON writes the latency as a duration string.
func (f Fault) MarshalJSON() ([]byte, error) {
	j := faultJSON{Hang: f.Hang, ErrorRate: f.ErrorRate, ResetRate: f.ResetRate, MalformedRate: f.MalformedRate, Storm429: f.Storm429, RetryAfter: f.RetryAfter, RefuseExpand: f.RefuseExpand}
	if f.Latency > 0 {
		j.Latency = f.Latency.String()
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes, refusing unknown keys, and
// validates the result.
func (f *Fault) UnmarshalJSON(b []byte) error {
	var j faultJSON
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("fault: %v", err)
	}
	out := Fault{Hang: j.Hang, ErrorRate: j.ErrorRate, ResetRate: j.ResetRate, MalformedRate: j.MalformedRate, Storm429: j.Storm429, RetryAfter: j.RetryAfter, RefuseExpand: j.RefuseExpand}
	if j.Latency != "" {
		d, err := time.ParseDuration(j.Latency)
		if err != nil {
			return fmt.Errorf("fault: latency %q: %v", j.Latency, err)
		}
		out.Latency = d
	}
	if err := out.Validate(); err != nil {
		return err
	}
	*f = out
	return nil
}

// Validate names the first field out of range.
func (f Fault) Validate() error {
	if f.Latency < 0 {
		return fmt.Errorf("fault: latency %v is negative", f.Latency)
	}
	for _, r := range []struct {
		name string
		v    float64
	}{{"error_rate", f.ErrorRate}, {"reset_rate", f.ResetRate}, {"malformed_rate", f.MalformedRate}} {
		if !(r.v >= 0 && r.v <= 1) {
			return fmt.Errorf("fault: %s %v is outside 0…1", r.name, r.v)
		}
	}
	if f.RetryAfter < 0 || f.RetryAfter > 86400 {
		return fmt.Errorf("fault: retry_after %d is outside 0…86400 seconds", f.RetryAfter)
	}
	return nil
}

// validFor checks what only some platforms have: RefuseExpand is tk's.
func (f Fault) validFor(platform string) error {
	if f.RefuseExpand && platform != "tk" {
		return fmt.Errorf("fault: refuse_expand is tk's (its OData $expand of HuidigeDocumentVersie), not %s's", platform)
	}
	return nil
}

// IsZero says whether the fault changes nothing.
func (f Fault) IsZero() bool { return f == Fault{} }

// ParseFault reads the flag form "<platform>:<key>=<value>,…", for example
// "obv:latency=2s,error_rate=0.2" or "tk:hang" or "opentk:storm429" or
// "tk:refuse_expand". Keys: latency, hang, error_rate, reset_rate,
// malformed_rate, storm429, retry_after, refuse_expand (tk only); a bare
// boolean key means true. Errors name the bad part.
func ParseFault(s string) (platform string, f Fault, err error) {
	platform, spec, ok := strings.Cut(s, ":")
	platform = strings.TrimSpace(platform)
	if !ok || platform == "" {
		return "", Fault{}, fmt.Errorf("fault %q: want <platform>:<key>=<value>,… (e.g. obv:latency=2s)", s)
	}
	if !knownPlatform(platform) {
		return "", Fault{}, fmt.Errorf("fault %q: unknown platform %q (one of %s)", s, platform, strings.Join(counted(), ", "))
	}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, val, hasVal := strings.Cut(part, "=")
		rate := func() (float64, error) {
			v, err := strconv.ParseFloat(val, 64)
			if err != nil || !hasVal {
				return 0, fmt.Errorf("fault %q: %s wants a fraction 0…1, not %q", s, key, val)
			}
			return v, nil
		}
		boolean := func() (bool, error) {
			if !hasVal {
				return true, nil
			}
			b, err := strconv.ParseBool(val)
			if err != nil {
				return false, fmt.Errorf("fault %q: %s wants true or false, not %q", s, key, val)
			}
			return b, nil
		}
		switch key {
		case "latency":
			d, perr := time.ParseDuration(val)
			if perr != nil || !hasVal {
				return "", Fault{}, fmt.Errorf("fault %q: latency wants a duration like 250ms, not %q", s, val)
			}
			f.Latency = d
		case "hang":
			f.Hang, err = boolean()
		case "storm429":
			f.Storm429, err = boolean()
		case "refuse_expand":
			f.RefuseExpand, err = boolean()
		case "error_rate":
			f.ErrorRate, err = rate()
		case "reset_rate":
			f.ResetRate, err = rate()
		case "malformed_rate":
			f.MalformedRate, err = rate()
		case "retry_after":
			f.RetryAfter, err = strconv.Atoi(val)
			if err != nil {
				err = fmt.Errorf("fault %q: retry_after wants whole seconds, not %q", s, val)
			}
		default:
			return "", Fault{}, fmt.Errorf("fault %q: unknown key %q (latency, hang, error_rate, reset_rate, malformed_rate, storm429, retry_after, refuse_expand)", s, key)
		}
		if err != nil {
			return "", Fault{}, err
		}
	}
	if err := f.Validate(); err != nil {
		return "", Fault{}, fmt.Errorf("%q: %w", s, err)
	}
	if err := f.validFor(platform); err != nil {
		return "", Fault{}, fmt.Errorf("%q: %w", s, err)
	}
	return platform, f, nil
}

// refusedExpand is tk's answer, with RefuseExpand set, to a request whose
// $expand names HuidigeDocumentVersie: the OData error for an unknown
// property of the request's entity type. ok is false for any other
// request (and any other platform).
func refusedExpand(b backend, r *http.Request) (body []byte, ok bool) {
	tk, isTK := b.(*tkSim)
	if !isTK || !strings.Contains(strings.ToLower(r.URL.Query().Get("$expand")), "huidigedocumentversie") {
		return nil, false
	}
	set := "Document"
	rest := strings.TrimPrefix(r.URL.Path, "/tk/OData/v4/2.0/")
	if end := strings.IndexAny(rest, "(/"); end >= 0 {
		rest = rest[:end]
	}
	if name, known := tk.names[strings.ToLower(rest)]; known {
		set = name
	}
	body, _ = json.Marshal(map[string]any{"error": map[string]string{"code": "", "message": fmt.Sprintf(
		"The query specified in the URI is not valid. Could not find a property named 'HuidigeDocumentVersie' on type 'TK.DA.GGM.OData.%s'.", set)}})
	return body, true
}

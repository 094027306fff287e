package memo

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestKeepUntilExpiry(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	s := New(32<<20, c.now)
	k, ok := s.Key("obv", "v1", "search", json.RawMessage(`{"query":"x","limit":24}`))
	if !ok {
		t.Fatal("key")
	}
	k2, _ := s.Key("obv", "v1", "search", json.RawMessage(` { "limit" : 24, "query":"x" }`))
	if string(k) != string(k2) {
		t.Error("argument order or spacing changed the key")
	}
	k3, _ := s.Key("obv", "v2", "search", json.RawMessage(`{"query":"x","limit":24}`))
	if string(k) == string(k3) {
		t.Error("another version stamp must give another key")
	}
	res := connector.CallResult{Text: `{"a":1}`, Structured: json.RawMessage(`{"a":1}`)}
	s.Put(k, res, []string{"search"}, c.t.Add(10*time.Minute))
	if got, classes, ok := s.Get(k); !ok || got.Text != res.Text || len(classes) != 1 || classes[0] != "search" {
		t.Fatalf("get: %v %+v %v", ok, got, classes)
	}
	c.t = c.t.Add(10 * time.Minute)
	if _, _, ok := s.Get(k); ok {
		t.Error("served at its expiry")
	}
}

func TestNotKept(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	s := New(32<<20, c.now)
	k, _ := s.Key("obv", "v1", "search", json.RawMessage(`{}`))
	s.Put(k, connector.CallResult{IsError: true, Text: "x"}, nil, c.t.Add(time.Hour))
	s.Put(k, connector.CallResult{Text: "past"}, nil, c.t)
	if _, _, ok := s.Get(k); ok {
		t.Error("an error or an already expired result was kept")
	}
	if _, ok := s.Key("obv", "v1", "search", json.RawMessage(`[1]`)); ok {
		t.Error("non-object arguments must not make a key")
	}
	big := connector.CallResult{Text: strings.Repeat("x", 2<<20)}
	s.Put(k, big, nil, c.t.Add(time.Hour))
	if _, _, ok := s.Get(k); ok {
		t.Error("a result over the cap was kept")
	}
}

func TestLargeAndClear(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	s := New(32<<20, c.now)
	k, _ := s.Key("obv", "v1", "get_document", json.RawMessage(`{"entity_id":"d"}`))
	res := connector.CallResult{Text: strings.Repeat("é", 100<<10)}
	s.Put(k, res, nil, c.t.Add(time.Hour))
	if got, _, ok := s.Get(k); !ok || got.Text != res.Text {
		t.Fatal("a 200 KB result did not come back")
	}
	s.Clear("obv")
	k2, _ := s.Key("obv", "v1", "get_document", json.RawMessage(`{"entity_id":"d"}`))
	if _, _, ok := s.Get(k2); ok {
		t.Error("served after Clear")
	}
}

func TestEncodingRoundTrip(t *testing.T) {
	for _, k := range []kept{
		{Result: connector.CallResult{Text: "één", Structured: json.RawMessage(`{"a":[1]}`)}, Classes: []string{"search", "list"}},
		{Result: connector.CallResult{Text: ""}},
		{Result: connector.CallResult{Text: "x", Content: []connector.Content{{Type: "text", Text: "y"}}}, Classes: []string{"document"}},
	} {
		b, err := encode(k)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decode(b)
		if err != nil || got.Result.Text != k.Result.Text || string(got.Result.Structured) != string(k.Result.Structured) || len(got.Classes) != len(k.Classes) || len(got.Result.Content) != len(k.Result.Content) {
			t.Errorf("round trip of %+v: %+v %v", k, got, err)
		}
		for cut := 0; cut < len(b); cut++ {
			decode(b[:cut]) // must not panic on truncated values
		}
	}
}

// TestRememberedCanonicalForms: the key of arguments whose canonical form
// is remembered is the key computed afresh, for many more distinct
// arguments than the cache has slots (so slots are replaced), for the
// same arguments written two ways, and for arguments too long to be
// remembered; arguments that are not an object get no key either time.
// It catches a slot answering for other bytes than its own.
func TestRememberedCanonicalForms(t *testing.T) {
	s := New(32<<20, nil)
	fresh := func(args string) []byte {
		var v map[string]any
		d := json.NewDecoder(strings.NewReader(args))
		d.UseNumber()
		if d.Decode(&v) != nil {
			t.Fatalf("bad test arguments %s", args)
		}
		b, _ := json.Marshal(v)
		return b
	}
	args := []string{` { "b" : 1, "a" : "x" } `, `{"q":"` + strings.Repeat("long ", 300) + `"}`}
	for i := range 3 * canonSlots {
		args = append(args, fmt.Sprintf(`{"query":"q%d","limit":%d}`, i, i%7))
	}
	for round := range 2 { // the second finds remembered forms
		for _, a := range args {
			k, ok := s.Key("p", "v", "t", json.RawMessage(a))
			if !ok || !strings.HasSuffix(string(k), "\x00"+string(fresh(a))) {
				t.Fatalf("round %d: key of %.60s ends %q, want the canonical form %s", round, a, k[max(0, len(k)-40):], fresh(a))
			}
		}
	}
	for _, bad := range []string{`[1]`, `null`, `{"a":`} {
		for range 2 {
			if _, ok := s.Key("p", "v", "t", json.RawMessage(bad)); ok {
				t.Errorf("%s got a key", bad)
			}
		}
	}
}

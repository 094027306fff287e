package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/memo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// validityHost answers every fetch as a cache would: a miss whose answer
// stays valid for a minute, or (volatile) an answer that is not cached.
type validityHost struct {
	now      time.Time
	volatile bool
	body     []byte // default {}
}

func (h *validityHost) Fetch(ctx context.Context, _ connector.FetchRequest) (connector.FetchResponse, error) {
	info := callinfo.From(ctx)
	if h.volatile {
		info.Volatile()
		info.AddFetch(callinfo.Bypass, 0, 0)
	} else {
		info.Until(h.now.Add(time.Minute))
		info.AddFetch(callinfo.Miss, 0, 0)
	}
	if h.body != nil {
		return connector.FetchResponse{Status: 200, Body: h.body}, nil
	}
	return connector.FetchResponse{Status: 200, Body: []byte(`{}`)}, nil
}

func (h *validityHost) Log(context.Context, int, string) {}

func TestMemoSkipsTheConnector(t *testing.T) {
	for _, volatile := range []bool{false, true} {
		now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
		var runs atomic.Int32
		p := &sdk.Plugin{
			Manifest: connector.Manifest{ID: "demo", Version: "1", Title: "Demo", Services: []connector.Service{{Name: "api"}},
				Tools: []connector.Tool{{Name: "search", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}}},
			Tools: map[string]sdk.ToolFunc{"search": func(ctx context.Context, h connector.Host, args json.RawMessage) (any, error) {
				runs.Add(1)
				if _, err := h.Fetch(ctx, connector.FetchRequest{URL: "https://x/", Service: "api"}); err != nil {
					return nil, err
				}
				return map[string]int{"n": int(runs.Load())}, nil
			}},
		}
		clock := now
		s, err := New(Options{
			Platforms: []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: p, Host: &validityHost{now: now, volatile: volatile}, Stamp: "v1"}}},
			Memo:      memo.New(32<<20, func() time.Time { return clock }),
		})
		if err != nil {
			t.Fatal(err)
		}
		first := s.Call(context.Background(), &callinfo.Info{Session: "s"}, "demo_search", json.RawMessage(`{"q":"a","n":1}`))
		second := s.Call(context.Background(), &callinfo.Info{Session: "t"}, "demo_search", json.RawMessage(`{"n":1,"q":"a"}`))
		want := int32(1)
		if volatile {
			want = 2
		}
		if runs.Load() != want {
			t.Errorf("volatile=%v: connector ran %d times, want %d", volatile, runs.Load(), want)
		}
		if !volatile && second.Meta[MetaCache] != callinfo.Hit {
			t.Errorf("a kept result should report a cache hit, got %v", second.Meta)
		}
		if first.IsError || second.IsError {
			t.Fatalf("errors: %+v %+v", first, second)
		}
		clock = now.Add(time.Minute) // the answers it was built on expire
		s.Call(context.Background(), &callinfo.Info{Session: "s"}, "demo_search", json.RawMessage(`{"q":"a","n":1}`))
		if runs.Load() != want+1 {
			t.Errorf("volatile=%v: after expiry the connector ran %d times, want %d", volatile, runs.Load(), want+1)
		}
	}
}

// TestMemoServesOnlyArgumentsThatPass: a repeated call is answered from
// its kept result before its arguments are checked again, so the key must
// tell apart every argument object the schema judges differently. A kept
// {"limit":5} is not served to "5" (a string), to 5.0 written otherwise,
// nor to a duplicate key whose last value breaks the maximum; each gets
// the same invalid-arguments error as without a kept result. It catches a
// key built from anything looser than the decoded value.
func TestMemoServesOnlyArgumentsThatPass(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	var runs atomic.Int32
	p := &sdk.Plugin{
		Manifest: connector.Manifest{ID: "demo", Version: "1", Title: "Demo", Services: []connector.Service{{Name: "api"}},
			Tools: []connector.Tool{{Name: "search", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{"limit":{"type":"integer","maximum":100}}}`)}}},
		Tools: map[string]sdk.ToolFunc{"search": func(ctx context.Context, h connector.Host, args json.RawMessage) (any, error) {
			runs.Add(1)
			if _, err := h.Fetch(ctx, connector.FetchRequest{URL: "https://x/", Service: "api"}); err != nil {
				return nil, err
			}
			return map[string]int{"n": 1}, nil
		}},
	}
	s, err := New(Options{
		Platforms: []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: p, Host: &validityHost{now: now}, Stamp: "v1"}}},
		Memo:      memo.New(32<<20, func() time.Time { return now }),
	})
	if err != nil {
		t.Fatal(err)
	}
	call := func(args string) invoke.Answer {
		return s.Engine().Invoke(context.Background(), &callinfo.Info{Session: "s"}, "demo_search", json.RawMessage(args))
	}
	if a := call(`{"limit":5}`); a.Err != nil {
		t.Fatal(a.Err)
	}
	if a := call(` { "limit" : 5 } `); a.Err != nil || a.Summary.Cache != callinfo.Hit || runs.Load() != 1 {
		t.Fatalf("the same arguments spaced otherwise: %v %v, %d runs", a.Err, a.Summary.Cache, runs.Load())
	}
	for _, c := range []struct{ args, want string }{
		{`{"limit":"5"}`, `argument "limit"`},
		{`{"limit":5,"limit":500}`, `argument "limit"`},
		{`{"limit":5.5}`, `argument "limit"`},
		{`[5]`, "must be a JSON object"},
		{`{"limit":5`, "not valid JSON"},
	} {
		a := call(c.args)
		if a.Err == nil || !strings.Contains(a.Err.Error(), c.want) {
			t.Errorf("%s: %v, want an invalid-arguments error containing %q", c.args, a.Err, c.want)
		}
	}
	if runs.Load() != 1 {
		t.Errorf("the connector ran %d times, want 1", runs.Load())
	}
	// Absent arguments are {} for the key as for the check.
	call(`null`)
	if a := call(``); a.Err != nil || a.Summary.Cache != callinfo.Hit {
		t.Errorf("absent arguments after null: %v %v", a.Err, a.Summary.Cache)
	}
}

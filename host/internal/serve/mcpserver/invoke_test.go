package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/memo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// brokenConnector fails tool "broken" as a runtime would (a trap, a
// crash): a Go error, not a tool error.
type brokenConnector struct{ *sdk.Plugin }

func (b brokenConnector) Call(ctx context.Context, req connector.CallRequest, h connector.Host) (connector.CallResult, error) {
	if req.Tool == "broken" {
		return connector.CallResult{}, errors.New("wasm trap: unreachable")
	}
	return b.Plugin.Call(ctx, req, h)
}

// notingHost is a cache that says its answer is stale, as the fetch gate
// does when it serves an expired entry because the platform failed.
type notingHost struct{ validityHost }

func (h *notingHost) Fetch(ctx context.Context, r connector.FetchRequest) (connector.FetchResponse, error) {
	callinfo.From(ctx).Note("answer from the cache, 2 h old")
	return h.validityHost.Fetch(ctx, r)
}

// callText is an MCP result's text, as a client reads it.
func callText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// TestInvokeAgreesWithCall: the host's own features (Invoke) and MCP
// clients (Call, which is invoke plus the MCP edge) get the same answer:
// the same JSON, the same error text for every kind of failure, the same
// metrics, and one store of kept results. It catches an edge that adds to
// or drops from the answer, an error worded in one place only, and an
// Invoke that runs the connector again for a question a client just asked
// (or the other way round).
func TestInvokeAgreesWithCall(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	var runs atomic.Int32
	p := &sdk.Plugin{
		Manifest: connector.Manifest{ID: "demo", Version: "1", Title: "Demo", Services: []connector.Service{{Name: "api"}},
			Tools: []connector.Tool{
				{Name: "search", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"},"limit":{"type":"integer","minimum":1}}}`)},
				{Name: "refuse", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)},
				{Name: "broken", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)},
				{Name: "bad", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)},
			}},
		Tools: map[string]sdk.ToolFunc{
			"search": func(ctx context.Context, h connector.Host, args json.RawMessage) (any, error) {
				runs.Add(1)
				if _, err := h.Fetch(ctx, connector.FetchRequest{URL: "https://x/", Service: "api"}); err != nil {
					return nil, err
				}
				var a struct{ Q string }
				_ = json.Unmarshal(args, &a)
				total := 1
				return sdk.SearchResult{Platform: "demo", Total: &total, Results: []sdk.Item{{ID: "1", Title: "Motie " + a.Q, Date: "2026-11-28"}},
					Notes: []string{"the platform ignores date_to"}}, nil
			},
			"refuse": func(context.Context, connector.Host, json.RawMessage) (any, error) {
				return nil, errors.New("search: organization \"x\" is unknown")
			},
			"broken": func(context.Context, connector.Host, json.RawMessage) (any, error) { return nil, nil },
			"bad": func(context.Context, connector.Host, json.RawMessage) (any, error) {
				return connector.CallResult{Text: "x", Content: []connector.Content{{Type: connector.ContentImage, MIMEType: "image/png"}}}, nil
			},
		},
	}
	var mu sync.Mutex
	var events []invoke.CallEvent
	s, err := New(Options{
		Platforms: []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: brokenConnector{p}, Host: &notingHost{validityHost{now: now}}, Stamp: "v1"}}},
		Memo:      memo.New(32<<20, func() time.Time { return now }),
		Logger:    quiet,
		Observe: func(_ context.Context, e invoke.CallEvent) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, e)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lastTwo := func() (invoke.CallEvent, invoke.CallEvent) {
		mu.Lock()
		defer mu.Unlock()
		if len(events) < 2 {
			t.Fatalf("%d calls observed, want 2 or more", len(events))
		}
		return events[len(events)-2], events[len(events)-1]
	}
	sameEvent := func(what string) {
		t.Helper()
		a, b := lastTwo()
		if a.Tool != b.Tool || a.Platform != b.Platform || a.Outcome != b.Outcome || a.Bytes != b.Bytes || a.Err != b.Err {
			t.Errorf("%s: Invoke observed %+v, Call %+v", what, a, b)
		}
	}

	// A success, first through Invoke: the connector runs once, and Call
	// is answered from the kept result.
	args := json.RawMessage(`{"q":"fiets"}`)
	a := s.Engine().Invoke(ctx, &callinfo.Info{Session: "host"}, "demo_search", args)
	if a.Err != nil || a.Platform != "demo" || a.Result.IsError {
		t.Fatalf("Invoke: %+v", a)
	}
	if a.Summary.Cache != callinfo.Miss || len(a.Summary.Notes) != 1 || a.Summary.Notes[0] != "answer from the cache, 2 h old" {
		t.Errorf("Invoke's summary = %+v, want a miss with the host's note", a.Summary)
	}
	var sr connector.SearchResult
	if err := json.Unmarshal(a.Result.Structured, &sr); err != nil || sr.Results[0].Title != "Motie fiets" || sr.Notes[0] != "the platform ignores date_to" {
		t.Errorf("Invoke's structured result = %s (%v)", a.Result.Structured, err)
	}
	if strings.Contains(a.Result.Text, "Note:") {
		t.Errorf("the host's notes leaked into the connector's text: %q", a.Result.Text)
	}
	// Its size in the metrics is what a client would have got: the text
	// with the note.
	mu.Lock()
	if got, want := events[len(events)-1].Bytes, len(a.Result.Text+"\n\nNote: answer from the cache, 2 h old"); got != want {
		t.Errorf("Invoke observed %d bytes, want %d (the MCP form's)", got, want)
	}
	mu.Unlock()
	r := s.Call(ctx, &callinfo.Info{Session: "client"}, "demo_search", args)
	if r.IsError {
		t.Fatalf("Call: %s", callText(r))
	}
	if runs.Load() != 1 {
		t.Errorf("the connector ran %d times, want once: Call did not get the result Invoke kept", runs.Load())
	}
	if r.Meta[MetaCache] != callinfo.Hit {
		t.Errorf("Call after Invoke: cache %v, want hit", r.Meta[MetaCache])
	}
	structured, _ := json.Marshal(r.StructuredContent)
	if string(structured) != string(a.Result.Structured) {
		t.Errorf("structured results differ:\nInvoke %s\nCall   %s", a.Result.Structured, structured)
	}
	if !strings.HasPrefix(callText(r), a.Result.Text) {
		t.Errorf("Call's text %q does not start with Invoke's %q", callText(r), a.Result.Text)
	}

	// The other way round, with other arguments: Call runs the connector
	// (its text carries the note), Invoke gets the kept result.
	args = json.RawMessage(`{"q":"brug"}`)
	r = s.Call(ctx, &callinfo.Info{Session: "client"}, "demo_search", args)
	if r.IsError || !strings.HasSuffix(callText(r), "\n\nNote: answer from the cache, 2 h old") {
		t.Fatalf("Call: %v %q", r.IsError, callText(r))
	}
	a = s.Engine().Invoke(ctx, &callinfo.Info{Session: "host"}, "demo_search", args)
	if a.Err != nil || a.Summary.Cache != callinfo.Hit || runs.Load() != 2 {
		t.Errorf("Invoke after Call: %+v, connector ran %d times (want 2)", a, runs.Load())
	}
	structured, _ = json.Marshal(r.StructuredContent)
	if string(structured) != string(a.Result.Structured) {
		t.Errorf("structured results differ:\nCall   %s\nInvoke %s", structured, a.Result.Structured)
	}
	// Both answered from the kept result now: the same text, the same size.
	r = s.Call(ctx, &callinfo.Info{Session: "client"}, "demo_search", args)
	a = s.Engine().Invoke(ctx, &callinfo.Info{Session: "host"}, "demo_search", args)
	if callText(r) != a.Result.Text {
		t.Errorf("kept result: Call's text %q, Invoke's %q", callText(r), a.Result.Text)
	}
	sameEvent("kept result")

	// Every kind of failure: the same text; the same outcome in metrics.
	for _, c := range []struct {
		what, tool, args, want, outcome string
	}{
		{"invalid argument", "demo_search", `{"limit":0}`, `Demo: invalid arguments for demo_search: argument "limit"`, "invalid_arguments"},
		{"connector error", "demo_broken", `{}`, "Demo: the connector failed: wasm trap: unreachable", "connector_error"},
		{"tool error", "demo_refuse", `{}`, `Demo: search: organization "x" is unknown`, "tool_error"},
		{"bad content", "demo_bad", `{}`, "Demo: the connector returned bad content: content[0]", "tool_error"},
		{"unknown tool", "demo_nothing", `{}`, `unknown tool "demo_nothing"`, ""},
	} {
		before := runs.Load()
		a := s.Engine().Invoke(ctx, &callinfo.Info{Session: "host"}, c.tool, json.RawMessage(c.args))
		r := s.Call(ctx, &callinfo.Info{Session: "client"}, c.tool, json.RawMessage(c.args))
		if a.Err == nil || !r.IsError {
			t.Errorf("%s: Invoke err %v, Call isError %v", c.what, a.Err, r.IsError)
			continue
		}
		if a.Err.Error() != callText(r) {
			t.Errorf("%s: error texts differ:\nInvoke %q\nCall   %q", c.what, a.Err, callText(r))
		}
		if !strings.HasPrefix(a.Err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to start %q", c.what, a.Err, c.want)
		}
		if c.outcome != "" {
			sameEvent(c.what)
			if _, e := lastTwo(); e.Outcome != c.outcome {
				t.Errorf("%s: outcome %q, want %q", c.what, e.Outcome, c.outcome)
			}
		}
		if runs.Load() != before {
			t.Errorf("%s: the search ran", c.what)
		}
	}
}

// rawConnector answers every call with its structured bytes as they are,
// after one cached fetch, as a connector whose output is not to be
// trusted.
type rawConnector struct {
	*sdk.Plugin
	structured string
}

func (c rawConnector) Call(ctx context.Context, req connector.CallRequest, h connector.Host) (connector.CallResult, error) {
	if _, err := h.Fetch(ctx, connector.FetchRequest{URL: "https://x/", Service: "api"}); err != nil {
		return connector.CallResult{}, err
	}
	return connector.CallResult{Text: "t", Structured: json.RawMessage(c.structured)}, nil
}

// TestStructuredContentIsAnObjectOrNothing: structured content that is
// not a JSON object (an array, a string, broken JSON) is dropped from
// both the MCP result and the host's Answer, the first time and when the
// result is answered again from the kept result; an object passes
// whole. It catches the check moved off one of the two paths.
func TestStructuredContentIsAnObjectOrNothing(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		structured string
		kept       bool
	}{
		{`{"a":1}`, true},
		{` {"a":[1,2]} `, true},
		{`[1,2]`, false},
		{`"x"`, false},
		{`{"a":`, false},
	} {
		p := &sdk.Plugin{Manifest: connector.Manifest{ID: "demo", Version: "1", Title: "Demo", Services: []connector.Service{{Name: "api"}},
			Tools: []connector.Tool{{Name: "search", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}}}}
		s, err := New(Options{
			Platforms: []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: rawConnector{p, c.structured}, Host: &validityHost{now: now}, Stamp: "v1"}}},
			Memo:      memo.New(32<<20, func() time.Time { return now }),
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 { // the second from the kept result
			res := s.Call(context.Background(), &callinfo.Info{Session: "s"}, "demo_search", json.RawMessage(`{}`))
			a := s.Engine().Invoke(context.Background(), &callinfo.Info{Session: "s"}, "demo_search", json.RawMessage(`{}`))
			if res.IsError || a.Err != nil {
				t.Fatalf("%s: %+v %v", c.structured, res, a.Err)
			}
			got, _ := json.Marshal(res.StructuredContent)
			if c.kept != (res.StructuredContent != nil) || c.kept != (len(a.Result.Structured) > 0) {
				t.Errorf("%s (call %d): structured content %s in the MCP result, %q in the answer; kept should be %v", c.structured, i+1, got, a.Result.Structured, c.kept)
			}
			if i == 1 && res.Meta[MetaCache] != callinfo.Hit {
				t.Errorf("%s: the repeat should come from the kept result: %v", c.structured, res.Meta)
			}
		}
	}
}

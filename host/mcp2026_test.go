package host_test

// MCP 2026-07-28 through the whole host: the go-sdk's client asking for
// that version, against the demo's host (demo.toml, the real WebAssembly
// connectors, the platform simulator), negotiates it through
// server/discover on the address older clients use, and calls every tool
// the unified address lists in stateless requests, each with arguments
// that make it answer, not fail.

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sdk"
)

// modernArgs are the arguments of the tools that are neither a search,
// a document tool nor a list tool; a tool of the unified address missing
// from every group fails the test, naming it.
var modernArgs = map[string]map[string]any{
	"obv_status":         {},
	"besluitbron_search": {"query": "klimaat"},
	"besluitbron_status": {},
	"besluitbron_watch":  {"action": "list"},
}

func TestMCP20260728ClientCallsEveryUnifiedTool(t *testing.T) {
	if proofRace() {
		t.Skip("an end-to-end test over real sockets, as TestDemoWalk: its concurrency lives in the server packages, raced there")
	}
	if testing.Short() {
		t.Skip("starts seven WebAssembly connectors")
	}
	base, ids := demoHost(t)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "modern", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp/unified/v1", HTTPClient: &http.Client{Transport: tr}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %q, want 2026-07-28 (server/discover), not the fallback to initialize", v)
	}
	if cs.ID() != "" {
		t.Errorf("the 2026-07-28 client holds session %q; that version has none", cs.ID())
	}
	c := &proofClient{cs: cs, tr: tr}
	ctx := context.Background()

	tools := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = tool
	}
	called := map[string]bool{}
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		r := c.call(ctx, "", name, args)
		if r.err != nil || r.res.IsError {
			t.Errorf("%s %v: %v %s", name, args, r.err, clipText(resultText(r.res), 300))
			return nil
		}
		called[name] = true
		return r.res
	}

	var cites []citeRef
	for _, id := range ids {
		res := call(id+"_search", demoSearches[id][0])
		if res == nil {
			continue
		}
		var sr sdk.SearchResult
		if err := json.Unmarshal(payloadOf(res), &sr); err != nil || len(sr.Results) == 0 {
			t.Errorf("%s_search %v: %v, %d results; want one to open", id, demoSearches[id][0], err, len(sr.Results))
			continue
		}
		cites = append(cites, citeRef{Platform: id, ID: sr.Results[0].ID})
		doc := tools[id+"_get_document"]
		if doc == nil {
			t.Errorf("%s has no %s_get_document", id, id)
			continue
		}
		// The first result that opens: not every result of the
		// simulator's does on every platform (the demo walk's 90 %).
		arg, categories := documentArg(t, doc)
		var why string
		for _, it := range sr.Results[:min(5, len(sr.Results))] {
			if why = openResult(ctx, c, id, doc.Name, arg, categories, it); why == "" {
				called[doc.Name] = true
				break
			}
		}
		if why != "" {
			t.Errorf("none of the first results of %s_search opened; the last: %s", id, why)
		}
	}

	// tk_get_votes for a motion, as its search result names the call.
	if res := call("tk_search", map[string]any{"soort": "Motie", "limit": 5}); res != nil {
		var sr sdk.SearchResult
		_ = json.Unmarshal(payloadOf(res), &sr)
		for _, it := range sr.Results {
			hint, _ := it.Extra["tk"]["votes"].(string)
			if tool, raw, ok := strings.Cut(hint, " "); ok && tool == "tk_get_votes" {
				var a map[string]any
				if err := json.Unmarshal([]byte(raw), &a); err == nil {
					call(tool, a)
					break
				}
			}
		}
	}

	// The host's tools over what the searches found.
	if len(cites) > 0 {
		call("besluitbron_cite", map[string]any{"format": "bibtex", "documents": cites})
		call("besluitbron_check_quote", map[string]any{"platform": cites[0].Platform, "id": cites[0].ID, "passage": "de gemeente"})
	}
	for name, args := range modernArgs {
		if tools[name] != nil {
			call(name, args)
		}
	}
	for name := range tools {
		if strings.Contains(name, "_list_") {
			call(name, map[string]any{})
		}
	}

	var missed []string
	for name := range tools {
		if !called[name] {
			missed = append(missed, name)
		}
	}
	sort.Strings(missed)
	if len(missed) > 0 {
		t.Errorf("not called with an answer over 2026-07-28: %s", strings.Join(missed, ", "))
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range called {
			if !yield(n) {
				return
			}
		}
	})
	t.Logf("2026-07-28: %d of %d tools of /mcp/unified/v1 called and answered: %s", len(called), len(tools), strings.Join(names, " "))
}

// subscriptions/listen (MCP 2026-07-28, basic/patterns/subscriptions.mdx)
// replaces resources/subscribe: a 2026-07-28 client listening to
// besluitbron://status is acknowledged on its listen stream and told
// there, tagged with its subscription, after a status round. (The go-sdk's
// client opens the stream in the background and reports neither the
// acknowledgement nor a refusal, so the stream is read here as it is
// sent.)
func TestMCP20260728StatusSubscription(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the obv connector")
	}
	hits := new(atomic.Int64)
	up := fakeOBV(t, hits)
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	cfg, err := host.LoadConfig(writeConfig(t, `
[runtime]
compilation_cache_dir = "`+proofCompileDir(t)+`"
[status]
enabled = false
[connectors.obv]
module = "`+wasm+`"
base_url = "`+up.URL+`"
private_networks = ["127.0.0.0/8"]
`), []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: "9.9.9-test", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(func() { h.Close(context.Background()) })
	t.Cleanup(srv.Close)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := `{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["besluitbron://status"]},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/mcp/unified/v1", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("subscriptions/listen: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := bufio.NewScanner(resp.Body)
	next := func() map[string]any {
		t.Helper()
		for events.Scan() {
			if data, ok := strings.CutPrefix(events.Text(), "data: "); ok {
				var m map[string]any
				if err := json.Unmarshal([]byte(data), &m); err != nil {
					t.Fatalf("event %s: %v", data, err)
				}
				return m
			}
		}
		t.Fatalf("the listen stream ended: %v", events.Err())
		return nil
	}
	subscription := func(m map[string]any) any {
		p, _ := m["params"].(map[string]any)
		meta, _ := p["_meta"].(map[string]any)
		return meta["io.modelcontextprotocol/subscriptionId"]
	}
	ack := next()
	if ack["method"] != "notifications/subscriptions/acknowledged" || subscription(ack) != "listen-1" {
		t.Fatalf("first event %v: want notifications/subscriptions/acknowledged for listen-1", ack)
	}
	before := hits.Load()
	host.CheckStatusNow(context.Background(), h)
	u := next()
	p, _ := u["params"].(map[string]any)
	if u["method"] != "notifications/resources/updated" || p["uri"] != "besluitbron://status" || subscription(u) != "listen-1" {
		t.Fatalf("after a status round %v: want notifications/resources/updated for besluitbron://status, tagged listen-1", u)
	}
	if hits.Load() == before {
		t.Fatal("the status round reached no platform: the test proves nothing")
	}
}

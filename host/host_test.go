package host_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// fakeOBV serves recorded OpenBesluitvorming responses.
func fakeOBV(t testing.TB, hits *atomic.Int64) *httptest.Server {
	t.Helper()
	root := filepath.Join(wasmbuild.Root(), "testdata", "obv")
	file := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits != nil {
			hits.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/search" && r.URL.Query().Get("organization") == "nergens":
			w.WriteHeader(400)
			w.Write([]byte(`{"error":"Onbekende organisatie: nergens"}`))
		case r.URL.Path == "/api/search":
			w.Write(file("obv-search.json"))
		case r.URL.Path == "/api/sources":
			w.Write(file("obv-sources.json"))
		case strings.HasPrefix(r.URL.Path, "/api/entities/document:"):
			w.Write(file("obv-entity-document.json"))
		case strings.HasPrefix(r.URL.Path, "/api/entities/meeting:"):
			w.Write(file("obv-entity-meeting.json"))
		default:
			w.WriteHeader(404)
			w.Write([]byte(`{"error":"Not found"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plugins.toml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func startHost(t *testing.T, upstream string) (*host.Host, string) {
	t.Helper()
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	cfgPath := writeConfig(t, `
[runtime]
compilation_cache_dir = "`+proofCompileDir(t)+`"
[connectors.obv]
module = "`+wasm+`"
base_url = "`+upstream+`"
private_networks = ["127.0.0.0/8"]
pool_size = 2
`)
	cfg, err := host.LoadConfig(cfgPath, []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: "9.9.9-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	return h, srv.URL
}

func connect(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, legacyClient)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func TestEndToEndOverStreamableHTTP(t *testing.T) {
	up := fakeOBV(t, nil)
	_, base := startHost(t, up.URL)
	want := []string{"obv_get_document", "obv_list_sources", "obv_search", "obv_status"}
	for _, addr := range []string{"/mcp/unified/v1", "/mcp/obv/v1"} {
		cs := connect(t, base+addr)
		if cs.ID() == "" {
			t.Errorf("%s: no Mcp-Session-Id: the server must be stateful", addr)
		}
		if v := cs.InitializeResult().ServerInfo.Version; v != "9.9.9-test" {
			t.Errorf("%s: serverInfo.version = %q", addr, v)
		}
		lt, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range lt.Tools {
			if strings.HasPrefix(tl.Name, "besluitbron_") {
				continue // the host's own tools have their own tests
			}
			names = append(names, tl.Name)
			if tl.Name == "obv_search" && !strings.Contains(tl.Description, "Cost:") {
				t.Errorf("obv_search description lacks the cost note")
			}
		}
		if strings.Join(names, ",") != strings.Join(want, ",") {
			t.Errorf("%s: tools %v, want %v", addr, names, want)
		}
	}

	cs := connect(t, base+"/mcp/unified/v1")
	res := callTool(t, cs, "obv_search", map[string]any{"query": "begroting", "organization": "soest"})
	if res.IsError {
		t.Fatalf("search: %s", text(res))
	}
	var sr struct {
		Platform string `json:"platform"`
		Results  []struct {
			ID, Title, Date, URL string
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(text(res)), &sr); err != nil || sr.Platform != "obv" || len(sr.Results) != 2 || sr.Results[0].Date != "2024-11-07" {
		t.Fatalf("search result %v: %s", err, text(res))
	}
	if res.StructuredContent == nil {
		t.Error("search: no structuredContent")
	}
	for _, k := range []string{"besluitbron/cache", "besluitbron/queued_ms", "besluitbron/upstream_ms"} {
		if _, ok := res.Meta[k]; !ok {
			t.Errorf("_meta lacks %s: %v", k, res.Meta)
		}
	}
	res = callTool(t, cs, "obv_get_document", map[string]any{"entity_id": "document:notubiz:gemeente:soest:12345"})
	if res.IsError || !strings.Contains(text(res), "Raadsvoorstel begroting 2024") {
		t.Errorf("get_document: %s", text(res))
	}
	res = callTool(t, cs, "obv_list_sources", map[string]any{})
	if res.IsError || !strings.Contains(text(res), `"soest"`) {
		t.Errorf("list_sources: %s", text(res))
	}

	// Resource template and prompt.
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "besluitbron://obv/document/meeting:notubiz:gemeente:soest:830424"})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "Woningbouw Soesterberg") {
		t.Errorf("resource: %v %+v", err, rr)
	}
	pr, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "obv_council_topic", Arguments: map[string]string{"topic": "woningbouw", "municipality": "Soest"}})
	if err != nil || !strings.Contains(pr.Messages[0].Content.(*mcp.TextContent).Text, "council of Soest") {
		t.Errorf("prompt: %v %+v", err, pr)
	}
}

func TestToolErrorsNameArgumentAndPlatform(t *testing.T) {
	up := fakeOBV(t, nil)
	_, base := startHost(t, up.URL)
	cs := connect(t, base+"/mcp/obv/v1")
	cases := []struct {
		args any
		want string
	}{
		{map[string]any{"query": "x", "limit": 500}, `argument "limit"`},
		{map[string]any{"query": "x", "sort": "random"}, `argument "sort"`},
		{map[string]any{"query": "x", "colour": "red"}, "colour"},
		{map[string]any{"query": 7}, `argument "query"`},
		{map[string]any{}, "OpenBesluitvorming"},
		{map[string]any{"organization": "nergens"}, "Onbekende organisatie: nergens"},
	}
	for _, c := range cases {
		res := callTool(t, cs, "obv_search", c.args)
		if !res.IsError || !strings.Contains(text(res), c.want) || !strings.Contains(text(res), "OpenBesluitvorming") {
			t.Errorf("%v: got %q, want a tool error naming the platform and %q", c.args, text(res), c.want)
		}
	}
	// The server keeps serving.
	if res := callTool(t, cs, "obv_search", map[string]any{"query": "x"}); res.IsError {
		t.Errorf("after errors: %s", text(res))
	}
}

func TestUpstreamDownIsToolError(t *testing.T) {
	// A platform that hangs up on every connection. (A closed test
	// server's port was reused by another test's server now and then,
	// which answered 404.)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, base := startHost(t, "http://"+ln.Addr().String())
	cs := connect(t, base+"/mcp/unified/v1")
	res := callTool(t, cs, "obv_search", map[string]any{"query": "x"})
	if !res.IsError || !strings.Contains(text(res), "OpenBesluitvorming") || !strings.Contains(text(res), "unavailable") {
		t.Errorf("got %q", text(res))
	}
}

func TestLoopbackWithoutConsentRefused(t *testing.T) {
	up := fakeOBV(t, nil)
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	cfg, err := host.LoadConfig(writeConfig(t, "[runtime]\ncompilation_cache_dir='"+proofCompileDir(t)+"'\n[connectors.obv]\nmodule = '"+wasm+"'\nbase_url = '"+up.URL+"'\n"), []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close) // after the client session closes (cleanups run last-in first-out)
	res := callTool(t, connect(t, srv.URL+"/mcp/unified/v1"), "obv_search", map[string]any{"query": "x"})
	if !res.IsError || !strings.Contains(text(res), "private_networks") {
		t.Errorf("got %q", text(res))
	}
}

func TestBadConfigNamesKey(t *testing.T) {
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	for _, c := range []struct{ body, want string }{
		{"[connectors.obv]\nmodule = '/nonexistent.wasm'", "connectors.obv.module"},
		{"[connectors.obv]\nmodule = '" + wasm + "'\nsha256 = '" + strings.Repeat("0", 64) + "'", "connectors.obv.sha256"},
		{"[connectors.obv]\nmodule = '" + wasm + "'\n[connectors.obv.limits.search]\nunits = 1\nper = '1s'", "connectors.obv.limits.search"},
		{"[connectors.tk]\nmodule = '" + wasm + "'", `configured as "tk"`},
	} {
		cfg, err := host.LoadConfig(writeConfig(t, "[runtime]\ncompilation_cache_dir='"+proofCompileDir(t)+"'\n"+c.body), []string{})
		if err == nil {
			_, err = host.New(context.Background(), &host.Options{Config: cfg})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.body, err, c.want)
		}
	}
}

// Loading wasm modules under the race detector is slow, and nothing here
// is concurrent: these run in the plain pass of make test.

//go:build !race

package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// exposeHost serves obv and tk against the in-process simulator, with
// extra appended to the config (server.tools, connectors.<id>.expose).
func exposeHost(t *testing.T, server, obvExtra, tkExtra string) (*host.Host, *platformsim.Sim, string) {
	t.Helper()
	sim, err := platformsim.New(platformsim.Options{DataDir: filepath.Join(wasmbuild.Root(), "testdata"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(sim.Handler())
	t.Cleanup(up.Close)
	t.Cleanup(sim.Close)
	urls, rewrites := platformsim.BaseURLs(up.URL), platformsim.URLRewrites(up.URL)
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "[runtime]\ncompilation_cache_dir = %q\n[cache]\nenabled = false\n[status]\nenabled = false\n[server]\n%s\n", proofCompileDir(t), server)
	for _, c := range []struct{ id, extra string }{{"obv", obvExtra}, {"tk", tkExtra}} {
		fmt.Fprintf(&cfg, "[connectors.%s]\nmodule = %q\nbase_url = %q\nprivate_networks = [\"127.0.0.0/8\"]\npool_size = 1\n%s\n",
			c.id, wasmbuild.Path(t, "./plugins/"+c.id+"/cmd"), urls[c.id], c.extra)
		for _, rw := range rewrites[c.id] {
			fmt.Fprintf(&cfg, "url_rewrites = [%q]\n", rw)
		}
	}
	c, err := host.LoadConfig(writeConfig(t, cfg.String()), []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: c, Version: "9.9.9-expose", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	return h, sim, srv.URL
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tool.Name)
	}
	sort.Strings(out)
	return out
}

// searchEnum is the platforms enum of besluitbron_search's schema.
func searchEnum(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name != "besluitbron_search" {
			continue
		}
		var s struct {
			Properties struct {
				Platforms struct {
					Items struct{ Enum []string }
				}
			}
		}
		b, _ := json.Marshal(tool.InputSchema)
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return s.Properties.Platforms.Items.Enum
	}
	t.Fatal("no besluitbron_search on the unified address")
	return nil
}

// connectors.tk.expose = false takes tk off the unified address (tools,
// prompts, resources, besluitbron_search's platforms and its fan-out) and
// leaves its own address whole. Catches a hidden connector still listed
// on, callable on, or searched from the unified address, and a hiding
// that reaches /mcp/tk/v1 too.
func TestExposeHidesConnector(t *testing.T) {
	h, sim, base := exposeHost(t, "", "", "expose = false")
	uni := connect(t, base+"/mcp/unified/v1")
	names := toolNames(t, uni)
	for _, n := range names {
		if strings.HasPrefix(n, "tk_") {
			t.Errorf("unified lists the hidden %s: %v", n, names)
		}
	}
	if !slices.Contains(names, "obv_search") || !slices.Contains(names, "besluitbron_search") || !slices.Contains(names, "besluitbron_status") {
		t.Errorf("unified tools %v: want obv's and the host's", names)
	}
	for r, err := range uni.ResourceTemplates(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r.URITemplate, "://tk/") {
			t.Errorf("unified lists tk's resource template %s", r.URITemplate)
		}
	}
	if enum := searchEnum(t, uni); !slices.Equal(enum, []string{"obv"}) {
		t.Errorf("besluitbron_search platforms %v, want [obv]", enum)
	}
	if res, err := uni.CallTool(context.Background(), &mcp.CallToolParams{Name: "tk_search", Arguments: map[string]any{"query": "klimaat"}}); err == nil && !res.IsError {
		t.Errorf("tk_search answered on the unified address: %s", text(res))
	}
	sim.ResetStats()
	res := callTool(t, uni, "besluitbron_search", map[string]any{"query": "klimaat"})
	if st := sim.Stats().Platforms; st["tk"].Requests != 0 || st["obv"].Requests == 0 {
		t.Errorf("besluitbron_search reached tk %d times, obv %d times; want 0 and some (%s)", st["tk"].Requests, st["obv"].Requests, shorten(text(res), 300))
	}
	if strings.Contains(text(res), `"tk"`) {
		t.Errorf("besluitbron_search names tk: %s", shorten(text(res), 400))
	}
	// tk's own address serves all its tools, and they work.
	one := connect(t, base+"/mcp/tk/v1")
	own := toolNames(t, one)
	if len(own) == 0 || !slices.Contains(own, "tk_search") {
		t.Errorf("/mcp/tk/v1 tools %v", own)
	}
	if res := callTool(t, one, "tk_search", map[string]any{"query": "klimaat"}); res.IsError {
		t.Errorf("tk_search on its own address: %s", shorten(text(res), 300))
	}
	for _, s := range h.Summary() {
		if want := map[string]bool{"obv": true, "tk": false}[s.ID]; (s.Unified == s.Tools) != want || (s.ID == "tk" && s.Unified != 0) {
			t.Errorf("summary %s: %d tools, %d on unified", s.ID, s.Tools, s.Unified)
		}
	}
}

// server.tools patterns choose the unified address's tools exactly; a
// connector none of whose tools match is hidden there like expose =
// false; a pattern matching nothing is a warning. Catches patterns that
// filter too much or too little, and a typo that goes unreported.
func TestServerToolsPatterns(t *testing.T) {
	h, sim, base := exposeHost(t, `tools = ["obv_*", "besluitbron_search", "ovb_*"]`, "", "")
	uni := connect(t, base+"/mcp/unified/v1")
	names := toolNames(t, uni)
	for _, n := range names {
		if !strings.HasPrefix(n, "obv_") && n != "besluitbron_search" {
			t.Errorf("unified lists %s, which no pattern matches", n)
		}
	}
	if !slices.Contains(names, "obv_search") || !slices.Contains(names, "obv_get_document") || !slices.Contains(names, "besluitbron_search") {
		t.Errorf("unified tools %v: want obv's and besluitbron_search", names)
	}
	var prompts []string
	for p, err := range uni.Prompts(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		prompts = append(prompts, p.Name)
	}
	if !slices.Contains(prompts, "obv_council_topic") {
		t.Errorf("obv is on the unified address, its prompt is not: %v", prompts)
	}
	if enum := searchEnum(t, uni); !slices.Equal(enum, []string{"obv"}) {
		t.Errorf("besluitbron_search platforms %v, want [obv] (no tk tool matches)", enum)
	}
	sim.ResetStats()
	callTool(t, uni, "besluitbron_search", map[string]any{"query": "klimaat"})
	if n := sim.Stats().Platforms["tk"].Requests; n != 0 {
		t.Errorf("besluitbron_search reached tk %d times", n)
	}
	if own := toolNames(t, connect(t, base+"/mcp/tk/v1")); !slices.Contains(own, "tk_search") {
		t.Errorf("/mcp/tk/v1 tools %v: the patterns apply to the unified address only", own)
	}
	w := strings.Join(h.Warnings(), "\n")
	if !strings.Contains(w, `server.tools[2] "ovb_*" matches no tool`) || !strings.Contains(w, "connector tk: server.tools matches none of its tools") {
		t.Errorf("warnings:\n%s", w)
	}
}

package host

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// BenchmarkCachePathOverMCP splits a cached tool call into its layers, in
// one run over streamable HTTP on the same server, calls interleaved:
//
//   - empty: a go-sdk tool that does nothing (MCP alone);
//   - fetch: a go-sdk tool that fetches the obv search URL through the
//     platform's fetch gate and cache (a hit) and returns the body: MCP plus
//     the cache path, without the connector;
//   - tool: obv_search answered from the cache (MCP, argument validation,
//     the WebAssembly connector, the gate, the hit, the connector's parsing);
//   - miss: obv_search with a new query each time, answered by a local fake
//     platform (the platform's limit is lifted for the benchmark).
//
// It reports each in ns/call and the ratios fetch/empty (the cache path's
// cost over MCP's own), tool/empty and miss/tool.
func BenchmarkCachePathOverMCP(b *testing.B) {
	body, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "testdata", "obv", "obv-search.json"))
	if err != nil {
		b.Fatal(err)
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer up.Close()
	dir := b.TempDir()
	cfgPath := filepath.Join(dir, "plugins.toml")
	os.WriteFile(cfgPath, []byte(`
[runtime]
compilation_cache_dir = ""
[mcp_rate_limit]
enabled = false
[cache]
dir = "`+filepath.Join(dir, "cache")+`"
[connectors.obv]
module = "`+wasmbuild.Path(b, "./plugins/obv/cmd")+`"
base_url = "`+up.URL+`"
private_networks = ["127.0.0.0/8"]
pool_size = 2
[connectors.obv.limits.api]
units = 1000000000
per = "1s"
`), 0o644)
	cfg, err := LoadConfig(cfgPath, []string{})
	if err != nil {
		b.Fatal(err)
	}
	h, err := New(context.Background(), &Options{Config: cfg, Version: "bench", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(context.Background())
	p := h.platforms[0]
	mcp.AddTool(h.mcp.Unified(), &mcp.Tool{Name: "bench_empty"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	req := connector.FetchRequest{Method: "GET", URL: p.Manifest.BaseURL + "/api/search?query=begroting", Service: p.Manifest.Services[0].Name, CacheClass: connector.ClassSearch}
	mcp.AddTool(h.mcp.Unified(), &mcp.Tool{Name: "bench_fetch"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		resp, err := p.Gate.Fetch(ctx, req)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(resp.Body)}}}, nil, nil
	})
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/unified/v1"}, legacyClient)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := map[string]any{"query": "begroting", "organization": "soest"}
	call := func(name string, a any) time.Duration {
		t0 := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: a})
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", name, err, res)
		}
		return time.Since(t0)
	}
	call("bench_fetch", struct{}{}) // fill
	call("obv_search", args)
	if res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: args}); res.Meta["besluitbron/cache"] != "hit" {
		b.Fatalf("warm-up: %v", res.Meta)
	}
	var empty, fetch, tool, miss time.Duration
	n := 0
	for b.Loop() {
		empty += call("bench_empty", struct{}{})
		fetch += call("bench_fetch", struct{}{})
		tool += call("obv_search", args)
		miss += call("obv_search", map[string]any{"query": fmt.Sprint("q", n)})
		n++
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(n) }
	b.ReportMetric(per(empty), "empty-ns/call")
	b.ReportMetric(per(fetch), "fetch-ns/call")
	b.ReportMetric(per(tool), "tool-ns/call")
	b.ReportMetric(float64(fetch)/float64(empty), "fetch/empty")
	b.ReportMetric(per(miss), "miss-ns/call")
	b.ReportMetric(float64(tool)/float64(empty), "tool/empty")
	b.ReportMetric(float64(miss)/float64(tool), "miss/tool")
}

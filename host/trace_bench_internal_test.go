package host

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// BenchmarkTracingCachedCall is what tracing costs a cached call: two
// hosts on one fake platform, one with tracing off (no [tracing], no
// OTEL_* endpoint) and one exporting every call's spans over OTLP/HTTP to
// a collector in the benchmark that discards them, each asked the same
// obv_search over streamable HTTP, calls interleaved. The call is
// answered as a repeated question is in production: from the kept result
// of the cached answer. It reports ns per call of each and on/off.
func BenchmarkTracingCachedCall(b *testing.B) {
	if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT")+os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
		b.Skip("an OTEL_* endpoint variable is set: tracing cannot be off")
	}
	body, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "testdata", "obv", "obv-search.json"))
	if err != nil {
		b.Fatal(err)
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer up.Close()
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	module := wasmbuild.Path(b, "./plugins/obv/cmd")
	start := func(tracing string) (*Host, *mcp.ClientSession) {
		dir := b.TempDir()
		cfgPath := filepath.Join(dir, "plugins.toml")
		os.WriteFile(cfgPath, []byte(`
[runtime]
compilation_cache_dir = ""
[mcp_rate_limit]
enabled = false
[status]
enabled = false
[cache]
dir = "`+filepath.Join(dir, "cache")+`"
`+tracing+`
[connectors.obv]
module = "`+module+`"
base_url = "`+up.URL+`"
private_networks = ["127.0.0.0/8"]
pool_size = 2
`), 0o644)
		cfg, err := LoadConfig(cfgPath, []string{})
		if err != nil {
			b.Fatal(err)
		}
		h, err := New(context.Background(), &Options{Config: cfg, Version: "bench", Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(h.Handler())
		b.Cleanup(func() {
			srv.Close()
			h.Close(context.Background())
		})
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/unified/v1"}, legacyClient)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		return h, cs
	}
	off, offCS := start("")
	on, onCS := start("[tracing]\nendpoint = \"" + collector.URL + "\"\n")
	if off.traces != nil || on.traces == nil {
		b.Fatalf("tracing: off host %v, on host %v", off.traces != nil, on.traces != nil)
	}
	args := map[string]any{"query": "begroting", "organization": "soest"}
	call := func(cs *mcp.ClientSession) time.Duration {
		t0 := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("obv_search: %v %v", err, res)
		}
		if res.Meta["besluitbron/cache"] != "hit" {
			b.Fatalf("not a cached call: %v", res.Meta)
		}
		return time.Since(t0)
	}
	for _, cs := range []*mcp.ClientSession{offCS, onCS} {
		cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: args}) // fill the cache
		call(cs)
	}
	var tOff, tOn time.Duration
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		tOff += call(offCS)
		tOn += call(onCS)
		n++
	}
	b.ReportMetric(float64(tOff.Nanoseconds())/float64(n), "off-ns/call")
	b.ReportMetric(float64(tOn.Nanoseconds())/float64(n), "on-ns/call")
	b.ReportMetric(float64(tOn)/float64(tOff), "on/off")
}

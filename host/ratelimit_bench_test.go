package host_test

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

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// benchHost serves the obv connector with its cache on, the client limits
// on (at rates no benchmark reaches, so only their cost shows) or off.
func benchHost(b *testing.B, limits bool) string {
	b.Helper()
	search, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "testdata", "obv", "obv-search.json"))
	if err != nil {
		b.Fatal(err)
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(search)
	}))
	b.Cleanup(up.Close)
	wasm := wasmbuild.Path(b, "./plugins/obv/cmd")
	dir := b.TempDir()
	cfgPath := filepath.Join(dir, "plugins.toml")
	body := fmt.Sprintf(`
[runtime]
compilation_cache_dir = %q
[connectors.obv]
module = %q
base_url = %q
private_networks = ["127.0.0.0/8"]
[mcp_rate_limit]
enabled = %v
process_rps = 1e9
process_burst = 1000000000
connector_rps = 1e9
connector_burst = 1000000000
session_rps = 1e9
session_burst = 1000000000
ip_rps = 1e9
ip_burst = 1000000000
`, filepath.Join(filepath.Dir(wasm), "wazero-cache"), wasm, up.URL, limits)
	if err := os.WriteFile(cfgPath, []byte(body), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, err := host.LoadConfig(cfgPath, []string{})
	if err != nil {
		b.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: "bench", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	b.Cleanup(srv.Close)
	return srv.URL + "/mcp/unified/v1"
}

func benchSession(b *testing.B, url string) *mcp.ClientSession {
	b.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, legacyClient)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

var benchArgs = map[string]any{"query": "begroting", "organization": "soest"}

func cachedCall(b *testing.B, cs *mcp.ClientSession) {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: benchArgs})
	if err != nil || res.IsError {
		b.Fatalf("call: %v %v", err, res)
	}
}

// BenchmarkCachedToolCalls measures cached obv_search calls over real
// streamable HTTP with the client limits off and on, alternating calls on
// the two hosts in one run so that both see the same machine; it reports
// each side's cost per call and their ratio (on/off).
func BenchmarkCachedToolCalls(b *testing.B) {
	off, on := benchSession(b, benchHost(b, false)), benchSession(b, benchHost(b, true))
	cachedCall(b, off) // fill each cache
	cachedCall(b, on)
	// One call each in turn: a busy machine slows both sides alike.
	var tOff, tOn time.Duration
	for i := 0; b.Loop(); i++ {
		first, second, tFirst, tSecond := off, on, &tOff, &tOn
		if i%2 == 1 {
			first, second, tFirst, tSecond = on, off, &tOn, &tOff
		}
		start := time.Now()
		cachedCall(b, first)
		mid := time.Now()
		cachedCall(b, second)
		*tSecond += time.Since(mid)
		*tFirst += mid.Sub(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(tOff.Nanoseconds())/n, "ns/call-off")
	b.ReportMetric(float64(tOn.Nanoseconds())/n, "ns/call-on")
	b.ReportMetric(float64(tOn)/float64(tOff), "on/off")
	b.ReportMetric(0, "ns/op")
}

package host_test

// Helpers of the proof tests (faults, load, crash safety) and their
// benchmarks: the platform simulator in process, a host with all seven
// connectors pointed at it, MCP clients over loopback HTTP, and a counter of
// the host's own HTTP statuses.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// proofPlatforms are the seven connectors, in a fixed order.
var proofPlatforms = []string{"obk", "obv", "openarchivaris", "opentk", "ori", "rechtspraak", "tk"}

// proofTitles are the platform names tool errors must carry.
var proofTitles = map[string]string{}

var (
	proofOnce    sync.Once
	proofCompile string
)

// proofCompileDir is the wazero compilation cache every host test of this
// package shares (a host without one compiles each module again: seconds
// a module, most of a minute under -race), also between the plain and the
// -race runs of make test (var/ is git-ignored; wazero keys entries by
// module and wazero version), so only the first host of a checkout
// compiles a module. What a test proves does not depend on it: a cached
// module is the same compiled code.
func proofCompileDir(tb testing.TB) string {
	proofOnce.Do(func() {
		d := filepath.Join(wasmbuild.Root(), "var", "wazero-proof")
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
		proofCompile = d
	})
	return proofCompile
}

// proofSim starts the simulator on loopback.
func proofSim(tb testing.TB) (*platformsim.Sim, string) {
	tb.Helper()
	sim, err := platformsim.New(platformsim.Options{DataDir: filepath.Join(wasmbuild.Root(), "testdata"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		tb.Fatal(err)
	}
	up := httptest.NewServer(sim.Handler())
	tb.Cleanup(up.Close)
	tb.Cleanup(sim.Close) // runs first: releases hanging requests
	return sim, up.URL
}

// proofConfig is a config with all seven connectors pointed at the
// simulator at simURL; extra is appended to every [connectors.<id>] table.
func proofConfig(tb testing.TB, simURL, cacheDir, extra string) string {
	tb.Helper()
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "[runtime]\ncompilation_cache_dir = %q\n[cache]\ndir = %q\n[status]\nenabled = false\n", proofCompileDir(tb), cacheDir)
	// Many sessions from one loopback address: the client limits are not
	// what these tests measure.
	cfg.WriteString("[mcp_rate_limit]\nenabled = false\n")
	urls, rewrites := platformsim.BaseURLs(simURL), platformsim.URLRewrites(simURL)
	for _, id := range proofPlatforms {
		fmt.Fprintf(&cfg, "[connectors.%s]\nmodule = %q\nbase_url = %q\nprivate_networks = [\"127.0.0.0/8\"]\n%s\n",
			id, wasmbuild.Path(tb, "./plugins/"+id+"/cmd"), urls[id], extra)
		for _, rw := range rewrites[id] {
			fmt.Fprintf(&cfg, "url_rewrites = [%q]\n", rw)
		}
	}
	return cfg.String()
}

// statusCounter counts the host's HTTP answers by class.
type statusCounter struct {
	next      http.Handler
	total     atomic.Int64
	fiveXX    atomic.Int64
	lastFiveX atomic.Value // string: method path status
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(s int) {
	if w.status == 0 {
		w.status = s
	}
	w.ResponseWriter.WriteHeader(s)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = 200
	}
	return w.ResponseWriter.Write(b)
}

// Flush keeps SSE streams streaming.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *statusCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w}
	c.next.ServeHTTP(sw, r)
	c.total.Add(1)
	if sw.status >= 500 {
		c.fiveXX.Add(1)
		c.lastFiveX.Store(fmt.Sprintf("%s %s %d", r.Method, r.URL.Path, sw.status))
	}
}

// proofHost starts a host on cfg and serves it on loopback; the counter
// sees every HTTP answer.
func proofHost(tb testing.TB, cfg string) (*host.Host, string, *statusCounter) {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "proof.toml")
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		tb.Fatal(err)
	}
	c, err := host.LoadConfig(p, []string{})
	if err != nil {
		tb.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: c, Version: "proof", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		tb.Fatal(err)
	}
	// The proofs time calls, not the background compilation of modules
	// loaded from their records.
	if err := h.Ready(context.Background()); err != nil {
		tb.Fatal(err)
	}
	counter := &statusCounter{next: h.Handler()}
	srv := httptest.NewServer(counter)
	tb.Cleanup(func() {
		srv.Close()
		h.Close(context.Background())
	})
	return h, srv.URL, counter
}

// proofClient is one MCP session over its own HTTP transport (so closing
// it leaves no idle connection behind).
type proofClient struct {
	cs *mcp.ClientSession
	tr *http.Transport
}

func newProofClient(tb testing.TB, base, name string) *proofClient {
	tb.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: base + "/mcp/unified/v1", HTTPClient: &http.Client{Transport: tr}}, legacyClient)
	if err != nil {
		tb.Fatal(err)
	}
	return &proofClient{cs: cs, tr: tr}
}

func (c *proofClient) close() {
	c.cs.Close()
	c.tr.CloseIdleConnections()
}

// proofWords are words the simulator's records contain.
var proofWords = []string{"klimaat", "woningbouw", "jeugdzorg", "begroting", "stikstof", "energie", "subsidie", "onderwijs", "parkeren", "fietsbrug", "zorg", "wonen"}

// proofSearch is the i-th distinct search of a platform: different i give
// different cache keys, so a run can avoid (or, repeating i, aim for) the
// cache.
func proofSearch(id string, i int) (string, map[string]any) {
	word := proofWords[i%len(proofWords)]
	off := (i / len(proofWords)) % 4
	if id == "rechtspraak" {
		courts := []string{"Raad van State", "Hoge Raad"}
		return id + "_search", map[string]any{"court": courts[i%len(courts)], "offset": (i / len(courts)) % 40, "limit": 5}
	}
	limit := 5 + (i/(4*len(proofWords)))%3
	return id + "_search", map[string]any{"query": word, "offset": off, "limit": limit}
}

// callResult is one finished call.
type callResult struct {
	platform string
	took     time.Duration
	res      *mcp.CallToolResult
	err      error
}

func (c *proofClient) call(ctx context.Context, platform, tool string, args map[string]any) callResult {
	start := time.Now()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	return callResult{platform: platform, took: time.Since(start), res: res, err: err}
}

// resultText joins a result's text content.
func resultText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// cacheMeta is a result's besluitbron/cache.
func cacheMeta(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	s, _ := res.Meta["besluitbron/cache"].(string)
	return s
}

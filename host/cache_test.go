package host_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// cachePlatform is a fake OpenBesluitvorming that counts requests per path
// and can be told to fail with 503 or to hold requests.
type cachePlatform struct {
	*httptest.Server
	mu    sync.Mutex
	paths map[string]int
	fail  atomic.Bool
	hold  chan struct{} // when set, requests wait for it to close
}

func newCachePlatform(t testing.TB) *cachePlatform {
	t.Helper()
	root := filepath.Join(wasmbuild.Root(), "testdata", "obv")
	p := &cachePlatform{paths: map[string]int{}}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.paths[r.URL.Path]++
		hold := p.hold
		p.mu.Unlock()
		if hold != nil {
			<-hold
		}
		if p.fail.Load() {
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
			return
		}
		file := map[string]string{"/api/search": "obv-search.json", "/api/sources": "obv-sources.json"}[r.URL.Path]
		if strings.HasPrefix(r.URL.Path, "/api/entities/document:") {
			file = "obv-entity-document.json"
		}
		b, err := os.ReadFile(filepath.Join(root, file))
		if file == "" || err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *cachePlatform) count(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.paths[path]
}

// cacheConfig writes a config whose cache lives in dir; extra is appended
// to the [connectors.obv] table.
func cacheConfig(t testing.TB, upstream, dir, extra string) string {
	t.Helper()
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	if !strings.Contains(extra, "pool_size") {
		extra = "pool_size = 2\n" + extra
	}
	return writeConfigTB(t, `
[runtime]
compilation_cache_dir = "`+sharedCompilationCache(t)+`"
[log]
level = "warn"
[cache]
dir = "`+dir+`"
[connectors.obv]
module = "`+wasm+`"
base_url = "`+upstream+`"
private_networks = ["127.0.0.0/8"]
`+extra)
}

func writeConfigTB(t testing.TB, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plugins.toml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var (
	binDirOnce sync.Once
	binDirPath string
)

// sharedCompilationCache is the package's wazero compilation cache
// (proofCompileDir), so that each test does not compile the module again.
func sharedCompilationCache(t testing.TB) string {
	return proofCompileDir(t)
}

// binDir is a temporary folder for the binaries the tests build, once per
// test process.
func binDir(t testing.TB) string {
	binDirOnce.Do(func() {
		d, err := os.MkdirTemp("", "besluitbron-test-bin-")
		if err != nil {
			t.Fatal(err)
		}
		binDirPath = d
	})
	return binDirPath
}

// cacheHost starts a host on the config and returns it with its base URL;
// the unified MCP address is base+mcpPath.
func cacheHost(t testing.TB, cfgPath, version string) (*host.Host, string) {
	t.Helper()
	cfg, err := host.LoadConfig(cfgPath, []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: version, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(func() {
		srv.Close()
		h.Close(context.Background())
	})
	return h, srv.URL
}

const mcpPath = "/mcp/unified/v1"

func cacheOutcome(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", text(res))
	}
	s, _ := res.Meta["besluitbron/cache"].(string)
	return s
}

var searchArgs = map[string]any{"query": "begroting", "organization": "soest"}

// Every tool result says hit or miss; a repeated call costs the platform
// nothing, per class (search, document, list).
func TestToolResultsSayHitOrMiss(t *testing.T) {
	p := newCachePlatform(t)
	_, base := cacheHost(t, cacheConfig(t, p.URL, t.TempDir(), ""), "1.0.0")
	url := base + mcpPath
	cs := connect(t, url)
	for _, c := range []struct {
		tool string
		args map[string]any
		path string
	}{
		{"obv_search", searchArgs, "/api/search"},
		{"obv_get_document", map[string]any{"entity_id": "document:notubiz:gemeente:soest:12345"}, "/api/entities/document:notubiz:gemeente:soest:12345"},
		{"obv_list_sources", map[string]any{}, "/api/sources"},
	} {
		before := p.count(c.path)
		if o := cacheOutcome(t, callTool(t, cs, c.tool, c.args)); o != "miss" {
			t.Errorf("%s first: %q", c.tool, o)
		}
		first := p.count(c.path)
		if first != before+1 {
			t.Errorf("%s first: platform saw %d requests at %s, want 1", c.tool, first-before, c.path)
		}
		// Another session shares the cache. (obv_search reads the
		// organisation list too, for the name: /api/sources may have
		// been asked once before obv_list_sources runs, with other
		// parameters.)
		if o := cacheOutcome(t, callTool(t, connect(t, url), c.tool, c.args)); o != "hit" {
			t.Errorf("%s repeated: %q", c.tool, o)
		}
		if n := p.count(c.path); n != first {
			t.Errorf("%s repeated: platform saw %d more requests", c.tool, n-first)
		}
	}
}

// The platform fails after the entry expired: the expired answer is served
// as stale, with a line saying how old it is.
func TestStaleAnswerWhenPlatformFails(t *testing.T) {
	p := newCachePlatform(t)
	// A TTL of 1 ns: every entry is expired at its next use.
	_, base := cacheHost(t, cacheConfig(t, p.URL, t.TempDir(), "[connectors.obv.ttl]\nsearch = \"1ns\"\n"), "1.0.0")
	cs := connect(t, base+mcpPath)
	fresh := callTool(t, cs, "obv_search", searchArgs)
	p.fail.Store(true)
	res := callTool(t, cs, "obv_search", searchArgs)
	if o := cacheOutcome(t, res); o != "stale" {
		t.Fatalf("outcome %q: %s", o, text(res))
	}
	if !strings.HasPrefix(text(res), text(fresh)) || !strings.Contains(text(res), "OpenBesluitvorming answered HTTP 503") || !strings.Contains(text(res), " old (stored ") {
		t.Errorf("stale result lacks the answer or the note:\n%s", text(res))
	}
	p.fail.Store(false)
	if o := cacheOutcome(t, callTool(t, cs, "obv_search", searchArgs)); o != "miss" {
		t.Errorf("after recovery: %q", o)
	}
}

// Restarting the host (same version) keeps the cache; another version
// asks the platform again once; the other platform's cache is untouched
// by `cache clear`.
func TestHostRestartUpgradeAndClear(t *testing.T) {
	p := newCachePlatform(t)
	cfgPath := cacheConfig(t, p.URL, t.TempDir(), "")
	start := func(version string) (*host.Host, *mcp.ClientSession) {
		h, base := cacheHost(t, cfgPath, version)
		return h, connect(t, base+mcpPath)
	}
	h, cs := start("1.0.0")
	cacheOutcome(t, callTool(t, cs, "obv_search", searchArgs))
	cs.Close()
	h.Close(context.Background())

	h, cs = start("1.0.0")
	if o := cacheOutcome(t, callTool(t, cs, "obv_search", searchArgs)); o != "hit" || p.count("/api/search") != 1 {
		t.Errorf("after restart: %q, platform saw %d", o, p.count("/api/search"))
	}
	cs.Close()
	h.Close(context.Background())

	h, cs = start("1.0.1")
	for i, want := range []string{"miss", "hit"} {
		if o := cacheOutcome(t, callTool(t, cs, "obv_search", searchArgs)); o != want {
			t.Errorf("after upgrade, call %d: %q, want %q", i, o, want)
		}
	}
	if n := p.count("/api/search"); n != 2 {
		t.Errorf("platform saw %d searches, want 2", n)
	}
	cs.Close()
	h.Close(context.Background())

	cfg, _ := host.LoadConfig(cfgPath, []string{})
	var found bool
	for _, r := range host.CacheReports(cfg, "1.0.1") {
		for _, c := range r.Classes {
			if r.Connector == "obv" && c.Class == "search" {
				found = true
				if c.Entries != 1 || c.VersionDiscards != 1 || c.Hits != 2 || c.Misses != 2 || c.OtherVersion != 0 {
					t.Errorf("report %+v", c)
				}
			}
		}
	}
	if !found {
		t.Error("no report for obv search")
	}
	if _, err := host.ClearCache(cfg, "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("clear of an unknown connector: %v", err)
	}
	if _, err := host.ClearCache(cfg, "obv"); err != nil {
		t.Fatal(err)
	}
	h, cs = start("1.0.1")
	if o := cacheOutcome(t, callTool(t, cs, "obv_search", searchArgs)); o != "miss" {
		t.Errorf("after clear: %q", o)
	}
}

// 50 concurrent identical tool calls make one request to the platform:
// the platform holds the first request until all 50 wait for it.
func TestFiftyIdenticalCallsOneRequest(t *testing.T) {
	p := newCachePlatform(t)
	_, base := cacheHost(t, cacheConfig(t, p.URL, t.TempDir(), "pool_size = 50\n"), "1.0.0")
	p.mu.Lock()
	p.hold = make(chan struct{})
	p.mu.Unlock()
	sessions := make([]*mcp.ClientSession, 5)
	for i := range sessions {
		sessions[i] = connect(t, base+mcpPath)
	}
	var wg sync.WaitGroup
	outcomes := make([]string, 50)
	for i := range 50 {
		wg.Go(func() {
			res, err := sessions[i%5].CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: searchArgs})
			if err != nil || res.IsError {
				t.Errorf("call %d: %v %v", i, err, res)
				return
			}
			outcomes[i], _ = res.Meta["besluitbron/cache"].(string)
		})
	}
	// Wait (without sleeping) until the host reports 50 fetches waiting
	// for the one request the platform holds.
	deadline := time.Now().Add(60 * time.Second)
	for waitingGauge(t, base) < 50 {
		if time.Now().After(deadline) {
			close(p.hold)
			t.Fatalf("only %v calls ever waited together", waitingGauge(t, base))
		}
	}
	close(p.hold)
	wg.Wait()
	if n := p.count("/api/search"); n != 1 {
		t.Errorf("platform saw %d requests for 50 identical calls", n)
	}
	for i, o := range outcomes {
		if o != "miss" {
			t.Errorf("call %d: %q, want miss (a shared upstream request)", i, o)
		}
	}
}

// waitingGauge reads besluitbron_cache_waiting{platform="obv"}.
func waitingGauge(t *testing.T, base string) float64 {
	t.Helper()
	r, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, `besluitbron_cache_waiting{platform="obv"} `); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return 0
}

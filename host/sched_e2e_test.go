package host_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// bucketPlatform is a fake OpenBesluitvorming that enforces its own token
// bucket, as the real one does, and answers 429 when exceeded.
type bucketPlatform struct {
	mu       sync.Mutex
	capacity float64
	rate     float64 // units per second
	tokens   float64
	last     time.Time
	order    []string // query of each accepted search, in arrival order
	rejected int
	body     []byte
	// notify is closed when the platform has accepted notifyAt searches.
	notifyAt int
	notify   chan struct{}
}

func (p *bucketPlatform) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	now := time.Now()
	if !p.last.IsZero() {
		p.tokens = min(p.capacity, p.tokens+now.Sub(p.last).Seconds()*p.rate)
	}
	p.last = now
	if p.tokens < 1 {
		p.rejected++
		p.mu.Unlock()
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"error":"Te veel verzoeken."}`))
		return
	}
	p.tokens--
	p.order = append(p.order, r.URL.Query().Get("query"))
	if len(p.order) == p.notifyAt {
		close(p.notify)
	}
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write(p.body)
}

func (p *bucketPlatform) seen() (int, []string, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.order), append([]string(nil), p.order...), p.rejected
}

// TestFloodAndNewcomerThroughMCP: one session floods OpenBesluitvorming
// through the MCP server; the platform never answers 429, and a second
// session's single search overtakes the flood's queue.
func TestFloodAndNewcomerThroughMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a few seconds of real traffic")
	}
	body, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "testdata", "obv", "obv-search.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The platform's bucket: 10 units, 2 units per second. BesluitBron is
	// told the same limit; its one unit of headroom absorbs up to 0.5 s of
	// jitter between grant and arrival (a loaded CI machine under -race).
	plat := &bucketPlatform{capacity: 10, rate: 2, tokens: 10, body: body, notifyAt: 9, notify: make(chan struct{})}
	up := httptest.NewServer(plat)
	defer up.Close()
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	cfg, err := host.LoadConfig(writeConfig(t, `
[runtime]
compilation_cache_dir = "`+proofCompileDir(t)+`"
[connectors.obv]
module = "`+wasm+`"
base_url = "`+up.URL+`"
private_networks = ["127.0.0.0/8"]
pool_size = 8
[connectors.obv.limits.api]
units = 10
per = "5s"
`), []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)

	flood := connect(t, srv.URL+"/mcp/unified/v1")
	const N = 16
	var wg sync.WaitGroup
	errs := make(chan string, N+1)
	for i := range N {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := callTool(t, flood, "obv_search", map[string]any{"query": fmt.Sprintf("flood%d", i)})
			if res.IsError {
				errs <- "flood: " + text(res)
			}
		}()
	}
	// Wait until the flood has drained the bucket (9 units, one kept as
	// headroom) and queued up.
	<-plat.notify
	// The newcomer asks for progress: while it waits at the limit it is
	// told its position and expected wait.
	var progress []string
	var pmu sync.Mutex
	c := mcp.NewClient(&mcp.Implementation{Name: "newcomer", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			pmu.Lock()
			progress = append(progress, req.Params.Message)
			pmu.Unlock()
		},
	})
	newcomer, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/unified/v1"}, legacyClient)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { newcomer.Close() })
	before, _, _ := plat.seen()
	params := &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": "newcomer"}}
	params.SetProgressToken("newcomer-1")
	res, err := newcomer.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("newcomer: %v %s", err, text(res))
	}
	pmu.Lock()
	if len(progress) == 0 || !strings.Contains(progress[0], "position") {
		t.Errorf("progress notifications %q: want the queue position while waiting", progress)
	}
	pmu.Unlock()
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	total, order, rejected := plat.seen()
	if rejected != 0 {
		t.Errorf("the platform answered 429 %d times: BesluitBron went over its limit", rejected)
	}
	pos := -1
	for i, q := range order {
		if q == "newcomer" {
			pos = i
		}
	}
	// FIFO would put the newcomer behind the whole flood (position ≥ N-1);
	// fair queueing serves it next, allowing for flood calls that were
	// already granted and on their way when it arrived.
	if pos < 0 || pos-before > 3 {
		t.Errorf("newcomer was request %d of %d; %d had been served when it asked (order %v)", pos, total, before, order)
	}
	if total != N+1 {
		t.Errorf("platform saw %d searches, want %d", total, N+1)
	}
	if !strings.Contains(fmt.Sprint(res.Meta), "besluitbron/queued_ms") {
		t.Errorf("meta %v", res.Meta)
	}
}

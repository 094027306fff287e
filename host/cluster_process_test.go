package host_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// These tests run three `besluitbron serve` processes that share
// OpenBesluitvorming's limit through one redis-server, against the
// platform simulator enforcing its own bucket: the acceptance test of
// scaling out (docs/scale-out.md).

// searchLog records the query of every search that reaches the simulator,
// in arrival order.
type searchLog struct {
	mu      sync.Mutex
	queries []string
}

func (l *searchLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/obv/api/search" {
			l.mu.Lock()
			l.queries = append(l.queries, r.URL.Query().Get("query"))
			l.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

func (l *searchLog) seen() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.queries...)
}

// replicaConfig is one replica's plugins.toml: its own cache folder and
// replica id, the shared Redis, OpenBesluitvorming at the simulator with
// the small limit the simulator's bucket enforces.
func replicaConfig(t *testing.T, id, redisURL, simURL string) string {
	t.Helper()
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	return writeConfig(t, `
[runtime]
compilation_cache_dir = "`+sharedCompilationCache(t)+`"
[log]
level = "info"
[cache]
dir = "`+filepath.Join(t.TempDir(), "cache")+`"
[cluster]
redis_url = "`+redisURL+`"
replica_id = "`+id+`"
[connectors.obv]
module = "`+wasm+`"
base_url = "`+platformsim.BaseURLs(simURL)["obv"]+`"
private_networks = ["127.0.0.0/8"]
pool_size = 24
[connectors.obv.limits.api]
units = 10
per = "5s"
`)
}

// TestThreeReplicaProcessesShareOBV: three processes against one
// redis-server and the simulator. A session on replica 1 saturates
// OpenBesluitvorming with a deep queue of distinct searches; a new session
// on replica 3 asks one search and is served next. The simulator answers
// no 429 over the whole run and admits no more than its bucket allows in
// any window.
func TestThreeReplicaProcessesShareOBV(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three server processes and a few seconds of real traffic")
	}
	if proofRace() {
		t.Skip("the server is a binary built without -race (see proofRace); the plain run covers it")
	}
	redisURL := redistest.Start(t).URL()
	const units, per = 10.0, 5 * time.Second
	// The simulator's own bucket is the limit BesluitBron is told: 10
	// units refilling 2 a second. Its window counter uses the limit's
	// window, so the most a client may have admitted in one is
	// 2 × units (a full bucket, then a window's refill).
	sim, err := platformsim.New(platformsim.Options{
		DataDir: filepath.Join(wasmbuild.Root(), "testdata"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		OBVCapacity: units, OBVRate: units / per.Seconds(), Window: per,
	})
	if err != nil {
		t.Fatal(err)
	}
	var searches searchLog
	up := httptest.NewServer(searches.wrap(sim.Handler()))
	t.Cleanup(up.Close)
	t.Cleanup(sim.Close)

	bin := binary(t, "1.0.0-a")
	var reps [3]*server
	for i := range reps {
		reps[i] = startServer(t, bin, replicaConfig(t, fmt.Sprintf("replica-%d", i+1), redisURL, up.URL))
		if st := clusterStatus(t, reps[i]); !strings.Contains(st, `"enabled": true`) {
			t.Fatalf("replica %d is not in the cluster: %s", i+1, st)
		}
	}

	// The flood: one session on replica 1, more searches at once than the
	// bucket holds, each a distinct query so that no cache answers.
	flood := connect(t, reps[0].base+mcpPath)
	const N = 16
	var wg sync.WaitGroup
	errs := make(chan string, N)
	for i := range N {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := callTool(t, flood, "obv_search", map[string]any{"query": fmt.Sprintf("flood%d", i)})
			if res.IsError {
				errs <- fmt.Sprintf("flood %d: %s", i, text(res))
			}
		}()
	}
	// Wait until the flood is being served: a bucket Redis does not know
	// starts empty (its grants before may still count at the platform), so
	// by the time a few searches have reached the simulator every flood
	// call waits in Redis's queue.
	for deadline := time.Now().Add(time.Minute); len(searches.seen()) < 3; {
		if time.Now().After(deadline) {
			t.Fatalf("the flood reached the simulator %d times in a minute", len(searches.seen()))
		}
		time.Sleep(5 * time.Millisecond) // watching real traffic, not synchronising
	}

	// The newcomer's search is counted from the moment it waits in the
	// shared queue (replica 3 queues nothing else): on a busy machine its
	// call takes a while to get there (an instance to start, the
	// connector to run) while the flood is served on, which says nothing
	// of the queue's order.
	newcomer := connect(t, reps[2].base+mcpPath)
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := newcomer.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": "newcomer"}})
		done <- answer{res, err}
	}()
	before, observed := -1, false
	var res *mcp.CallToolResult
	for res == nil {
		select {
		case a := <-done:
			if a.err != nil || a.res.IsError {
				t.Fatalf("newcomer: %v %s", a.err, text(a.res))
			}
			res = a.res
		default:
			if !observed && queuedCalls(t, reps[2].base) > 0 {
				before, observed = len(searches.seen()), true
			}
			time.Sleep(2 * time.Millisecond) // watching real traffic, not synchronising
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}

	order := searches.seen()
	pos := -1
	for i, q := range order {
		if q == "newcomer" {
			pos = i
		}
	}
	if pos < 0 {
		t.Fatalf("the newcomer's search never reached the simulator (order %v)", order)
	}
	if after := len(order) - pos - 1; after < 3 {
		t.Fatalf("only %d flood searches came after the newcomer: the flood had no queue, the test proves nothing (order %v)", after, order)
	}
	// FIFO across replicas would put the newcomer behind the whole queue.
	// The shared fair queue serves it next: allowed before it are flood
	// searches already granted and on their way when it asked.
	switch {
	case !observed:
		// Served between two looks at the queue: it waited at most that
		// long, so nothing overtook it there.
		t.Logf("the newcomer's wait in the queue was too short to see")
		before = pos
	case pos-before > 3:
		t.Errorf("%d flood searches reached the simulator while the newcomer waited in the queue; want at most 3 (%d had when it was queued; order %v)", pos-before, before, order)
	}
	if len(order) != N+1 {
		t.Errorf("the simulator saw %d searches, want %d", len(order), N+1)
	}

	st := sim.Stats().Platforms["obv"]
	if st.TooMany != 0 {
		t.Errorf("the simulator answered 429 %d times over the run: the replicas went over the shared limit", st.TooMany)
	}
	if st.MaxWindowUnits > 2*units {
		t.Errorf("the simulator admitted %v units within one %v window; a client within the bucket admits at most %v", st.MaxWindowUnits, per, 2*units)
	}
	if st.Units < N+1 {
		t.Errorf("the simulator admitted %v units, want at least %d", st.Units, N+1)
	}
	t.Logf("newcomer was search %d of %d (%d served when it was queued), queued %v ms (the single-process bound: one unit's refill, %v, plus what was already granted); %v units admitted, at most %v in any %v; no 429",
		pos+1, len(order), before, res.Meta["besluitbron/queued_ms"], time.Duration(float64(per)/units), st.Units, st.MaxWindowUnits, per)
	// Clients leave first: a server waits for its open streams at SIGTERM.
	flood.Close()
	newcomer.Close()
	for i, r := range reps {
		r.stop(t)
		if !strings.Contains(r.log.String(), "cluster: sharing every platform's limit through Redis") {
			t.Errorf("replica %d never said it shares the limits:\n%s", i+1, r.log)
		}
	}
}

// clusterStatus reads a replica's /status/cluster.json.
func clusterStatus(t *testing.T, s *server) string {
	t.Helper()
	r, err := http.Get(s.base + "/status/cluster.json")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("/status/cluster.json: %v: %s", err, b)
	}
	return string(b)
}

// TestThreeReplicasFairFloodNeverOver: the fair flood of jitter_test.go
// across three `besluitbron serve` processes sharing OpenBesluitvorming's
// limit through one redis-server: one session with 120 calls at once on
// replica 1, a newcomer on replica 2, every request delayed 0–300 ms on
// its way to a platform (in a process of its own) that enforces its own
// bucket of 10 units a second. The replicas count each request when it
// leaves in Redis's shared departure bucket; the platform refuses none.
func TestThreeReplicasFairFloodNeverOver(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three server processes and seconds of real traffic")
	}
	if proofRace() {
		t.Skip("the server is a binary built without -race (see proofRace); the plain run covers it")
	}
	redisURL := redistest.Start(t).URL()
	plat := startJitterPlatform(t)
	bin := binary(t, "1.0.0-a")
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	var reps [3]*server
	for i := range reps {
		reps[i] = startServer(t, bin, writeConfig(t, fmt.Sprintf(`
[runtime]
compilation_cache_dir = %q
[cache]
dir = %q
[log]
level = "info"
[status]
enabled = false
[mcp_rate_limit]
enabled = false
[server]
max_connections_per_ip = 1000
max_streams_per_ip = 1000
max_streams_per_session = 1000
[cluster]
redis_url = %q
replica_id = "replica-%d"
timeout = "20s"
[connectors.obv]
module = %q
base_url = %q
private_networks = ["127.0.0.0/8"]
[connectors.obv.limits.api]
units = %g
per = "1s"
`, sharedCompilationCache(t), filepath.Join(t.TempDir(), "cache"), redisURL, i+1, wasm, plat.proxy, jitterUnits)))
	}
	// A long cluster.timeout: with 120 calls watched at once each script
	// run plans for every one of them, and on a busy 2-core machine a run
	// can outlast the default 2 s; the replica would then fall back to its
	// own share (never over, but no longer the shared state this measures).
	res := fairFlood(t, plat, []string{reps[0].base}, reps[1].base, floodCalls)
	res.check(t)
	for i, r := range reps {
		if strings.Contains(r.log.String(), "Redis unreachable") {
			t.Errorf("replica %d fell back from Redis during the flood: the test did not measure the shared state", i+1)
		}
	}
	for _, r := range reps {
		r.cmd.Process.Signal(syscall.SIGTERM)
		r.cmd.Wait()
	}
}

// queuedCalls is how many calls wait at a quota's limit on the server at
// base (besluitbron_sched_queued_calls, summed over its series).
func queuedCalls(t *testing.T, base string) float64 {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var sum float64
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "besluitbron_sched_queued_calls{") {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
				sum += v
			}
		}
	}
	return sum
}

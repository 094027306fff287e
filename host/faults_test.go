package host_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/besluitbron/besluitbron/internal/platformsim"
)

// The four faults of the fault-isolation proof, one platform each, all at
// once; obv, rechtspraak and tk stay healthy.
var proofFaults = map[string]platformsim.Fault{
	"ori":            {Hang: true},
	"obk":            {ErrorRate: 1},
	"opentk":         {ResetRate: 1},
	"openarchivaris": {MalformedRate: 1},
}

// faultWords say what each fault looks like in the tool error.
var faultWords = map[string]*regexp.Regexp{
	"ori":            regexp.MustCompile(`(?i)timeout|timed out|deadline|did not answer|no answer`),
	"obk":            regexp.MustCompile(`5\d\d`),
	"opentk":         regexp.MustCompile(`(?i)reset|EOF|connection|unavailable`),
	"openarchivaris": regexp.MustCompile(`(?i)JSON|unexpected|invalid|malformed|not the expected`),
}

// proofFaultConfig is the per-connector config of the fault runs: a short
// request timeout, so a hanging platform answers its callers (with an
// error) in 2 s instead of 30.
const proofFaultConfig = "request_timeout = \"2s\"\ncall_timeout = \"10s\"\npool_size = 8"

// titles reads "id_ = Title;" pairs from the server's instructions.
func titles(c *proofClient) map[string]string {
	out := map[string]string{}
	re := regexp.MustCompile(` ([a-z]+)_ = ([^;]+);`)
	for _, m := range re.FindAllStringSubmatch(c.cs.InitializeResult().Instructions, -1) {
		out[m[1]] = m[2]
	}
	return out
}

// round has every client call all seven platforms at once (the i-th
// distinct search of each) and returns every result.
func round(ctx context.Context, clients []*proofClient, i int) []callResult {
	var mu sync.Mutex
	var out []callResult
	var wg sync.WaitGroup
	for ci, c := range clients {
		for _, id := range proofPlatforms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tool, args := proofSearch(id, i*len(clients)+ci)
				r := c.call(ctx, id, tool, args)
				mu.Lock()
				out = append(out, r)
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	return out
}

// TestFaultIsolation runs all four faults at once while clients use all
// seven platforms: the healthy three answer every call, every failure is a
// tool error naming its platform and the fault, nothing from a failure is
// cached (the same calls succeed from upstream once the faults clear), and
// closing everything leaves no goroutine behind. The healthy platforms'
// latency with and without faults is a benchmark figure
// (BenchmarkFaultIsolation, make bench), not an assertion here.
func TestFaultIsolation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds all seven connectors")
	}
	if proofRace() {
		t.Skip("TestLoad covers the same concurrency under -race; this one waits out hanging platforms")
	}
	// Registered first, so it runs after every other cleanup.
	t.Cleanup(func() { goleak.VerifyNone(t, goleak.IgnoreCurrent()) })
	ctx := context.Background()
	sim, simURL := proofSim(t)
	_, base, counter := proofHost(t, proofConfig(t, simURL, t.TempDir(), proofFaultConfig))
	var clients []*proofClient
	for i := range 3 {
		clients = append(clients, newProofClient(t, base, fmt.Sprintf("fault-client-%d", i)))
	}
	defer func() {
		for _, c := range clients {
			c.close()
		}
	}()
	title := titles(clients[0])
	if len(title) != 7 {
		t.Fatalf("titles from the instructions: %v", title)
	}
	for id, f := range proofFaults {
		if err := sim.SetFault(id, f); err != nil {
			t.Fatal(err)
		}
	}
	failed := map[string][]map[string]any{} // the failed calls, to repeat
	for i := range 2 {
		for _, r := range round(ctx, clients, i) {
			text := resultText(r.res)
			switch {
			case r.err != nil:
				t.Errorf("%s: protocol error %v (a platform fault must be a tool error)", r.platform, r.err)
			case proofFaults[r.platform] == (platformsim.Fault{}):
				if r.res.IsError {
					t.Errorf("healthy %s failed: %s", r.platform, shortText(text))
				}
			case !r.res.IsError:
				t.Errorf("%s under fault answered without error: %s", r.platform, shortText(text))
			default:
				if !strings.HasPrefix(text, title[r.platform]+": ") || !faultWords[r.platform].MatchString(text) {
					t.Errorf("%s: tool error does not name the platform (%q) and its fault: %s", r.platform, title[r.platform], shortText(text))
				}
				if m := cacheMeta(r.res); m == "hit" || m == "stale" {
					t.Errorf("%s: a failure came from the cache (%s)", r.platform, m)
				}
			}
		}
	}
	// make soak (BESLUITBRON_SOAK): the same traffic under the same faults
	// for minutes, over a bounded set of questions: memory stays bounded.
	if d := soakDuration(0); d > 0 {
		warm := heapMB()
		peak := warm
		for i, end := 2, time.Now().Add(d); time.Now().Before(end); i++ {
			for _, r := range round(ctx, clients, i%32) {
				if _, faulty := proofFaults[r.platform]; !faulty && (r.err != nil || r.res.IsError) {
					t.Errorf("healthy %s failed: %v %s", r.platform, r.err, shortText(resultText(r.res)))
				}
			}
			peak = max(peak, heapMB())
		}
		t.Logf("heap %.0f MiB after the first rounds, at most %.0f MiB over %v", warm, peak, d)
		if peak > warm+96 {
			t.Errorf("heap grew from %.0f to %.0f MiB under faults", warm, peak)
		}
	}
	for _, id := range proofPlatforms {
		if _, faulty := proofFaults[id]; faulty {
			for i := range 2 * len(clients) {
				_, args := proofSearch(id, i)
				failed[id] = append(failed[id], args)
			}
		}
	}
	for id := range proofFaults {
		if sim.Stats().Platforms[id].Injected == nil {
			t.Errorf("the simulator injected no fault at %s", id)
		}
	}
	// Nothing from a failure was cached: once the faults clear, the same
	// calls reach the platform and succeed.
	sim.ClearFaults()
	before := sim.Stats()
	for id, calls := range failed {
		for _, args := range calls {
			r := clients[0].call(ctx, id, id+"_search", args)
			if r.err != nil || r.res.IsError || cacheMeta(r.res) == "hit" {
				t.Errorf("%s after the fault: err %v cache %q: %s", id, r.err, cacheMeta(r.res), shortText(resultText(r.res)))
			}
		}
		if got, was := sim.Stats().Platforms[id].Requests, before.Platforms[id].Requests; got-was < int64(len(calls)) {
			t.Errorf("%s: %d requests reached the platform for %d previously failed calls: some came from a cache", id, got-was, len(calls))
		}
	}
	if n := counter.fiveXX.Load(); n != 0 {
		t.Errorf("BesluitBron answered %d HTTP 5xx (last %v)", n, counter.lastFiveX.Load())
	}
}

func shortText(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// heapMB is the live heap after a collection.
func heapMB() float64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return float64(m.HeapAlloc) / (1 << 20)
}

// soakDuration is how long the long runs last: BESLUITBRON_SOAK (make
// soak) or short's default.
func soakDuration(short time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv("BESLUITBRON_SOAK")); err == nil && d > 0 {
		return d
	}
	return short
}

// median of durations (sorted in place).
func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

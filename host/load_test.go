package host_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// loadSessions is how many MCP sessions the load test runs at once.
const loadSessions = 24

// loadStats is what the sessions saw.
type loadStats struct {
	calls, toolErrors, protocolErrors, hits atomic.Int64
	mu                                      sync.Mutex
	firstProtocolError                      error
	toolErrorSample                         map[string]string
}

// runLoad has n sessions call random searches on random platforms until
// the deadline: a mix of repeated questions (cache hits) and new ones.
func runLoad(t testing.TB, base string, n int, until time.Time, st *loadStats) {
	var wg sync.WaitGroup
	for s := range n {
		c := newProofClient(t, base, fmt.Sprintf("load-%d", s))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.close()
			rng := rand.New(rand.NewPCG(uint64(s), 9))
			for time.Now().Before(until) {
				id := proofPlatforms[rng.IntN(len(proofPlatforms))]
				tool, args := proofSearch(id, rng.IntN(96))
				r := c.call(context.Background(), id, tool, args)
				st.calls.Add(1)
				switch {
				case r.err != nil:
					st.protocolErrors.Add(1)
					st.mu.Lock()
					if st.firstProtocolError == nil {
						st.firstProtocolError = fmt.Errorf("%s: %w", tool, r.err)
					}
					st.mu.Unlock()
				case r.res.IsError:
					st.toolErrors.Add(1)
					st.mu.Lock()
					if st.toolErrorSample == nil {
						st.toolErrorSample = map[string]string{}
					}
					st.toolErrorSample[id] = shortText(resultText(r.res))
					st.mu.Unlock()
				case cacheMeta(r.res) == "hit":
					st.hits.Add(1)
				}
			}
		}()
	}
	wg.Wait()
}

// limitBound is the most units BesluitBron may send a platform in any
// window w if it keeps to every declared limit (a token bucket per
// service: a full bucket plus the refill over w), or -1 when some service
// of the platform declares no limit.
func limitBound(m connector.Manifest, w time.Duration) float64 {
	var sum float64
	for _, s := range m.Services {
		if !s.Limited() {
			return -1
		}
		sum += s.Units + s.Units*float64(w)/float64(s.Per)
	}
	return sum
}

// TestLoad runs many MCP sessions over loopback against the simulator for
// a fixed time (15 s; BESLUITBRON_SOAK=10m for make soak): no platform is
// ever sent more than its limits allow (the simulator refuses nothing and
// counts the densest window), BesluitBron answers no HTTP 5xx and no
// protocol error, memory stays bounded, and closing leaves no goroutine.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds all seven connectors")
	}
	t.Cleanup(func() { goleak.VerifyNone(t, goleak.IgnoreCurrent()) })
	sim, simURL := proofSim(t)
	_, base, counter := proofHost(t, proofConfig(t, simURL, t.TempDir(), "call_timeout = \"20s\""))
	total := soakDuration(15 * time.Second)
	if proofRace {
		total = min(total, 5*time.Second)
	}
	// A short warm-up fills the caches and pools; memory is measured
	// from there.
	var st loadStats
	runLoad(t, base, loadSessions, time.Now().Add(min(total/5, 5*time.Second)), &st)
	warm := heapMB()
	peak := warm
	var samples []string
	for end := time.Now().Add(total); time.Now().Before(end); {
		runLoad(t, base, loadSessions, time.Now().Add(min(total/4, time.Minute)), &st)
		h := heapMB()
		peak = max(peak, h)
		samples = append(samples, fmt.Sprintf("%.0f", h))
	}
	t.Logf("%d calls by %d sessions in %v: %d cache hits, %d tool errors %v; heap after warm-up %.0f MiB, then %v MiB",
		st.calls.Load(), loadSessions, total, st.hits.Load(), st.toolErrors.Load(), st.toolErrorSample, warm, samples)
	if n := st.protocolErrors.Load(); n != 0 {
		t.Errorf("%d protocol errors, first: %v", n, st.firstProtocolError)
	}
	if n := counter.fiveXX.Load(); n != 0 {
		t.Errorf("BesluitBron answered %d HTTP 5xx (last %v)", n, counter.lastFiveX.Load())
	}
	// Bounded: the caches have fixed budgets and everything else is per
	// call; growth past the warm-up beyond 96 MiB would be a leak.
	if !proofRace && peak > warm+96 {
		t.Errorf("heap grew from %.0f MiB after warm-up to %.0f MiB", warm, peak)
	}
	stats := sim.Stats()
	window, err := time.ParseDuration(stats.Window)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*sdk.Plugin{obk.Plugin(), obv.Plugin(), openarchivaris.Plugin(), opentk.Plugin(), ori.Plugin(), rechtspraak.Plugin(), tk.Plugin()} {
		m := p.Manifest
		ps := stats.Platforms[m.ID]
		if ps.TooMany != 0 {
			t.Errorf("%s refused %d requests with 429: BesluitBron went over its limit", m.ID, ps.TooMany)
		}
		if b := limitBound(m, window); b >= 0 && ps.MaxWindowUnits > b {
			t.Errorf("%s: %v units within %v, its declared limits allow at most %v", m.ID, ps.MaxWindowUnits, window, b)
		}
		if ps.Requests == 0 {
			t.Errorf("%s saw no request: the load missed it", m.ID)
		}
	}
}

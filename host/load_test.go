package host_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
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
	if proofRace() {
		total = min(total, 5*time.Second)
	}
	// A short warm-up fills the caches and pools; memory is measured
	// from there.
	var st loadStats
	runLoad(t, base, loadSessions, time.Now().Add(min(total/5, 5*time.Second)), &st)
	warm := heapMB()
	peak := warm
	var samples []string
	// The event store's size, sampled through the load (sessions end, and
	// their events go, when each round of the load ends).
	var storePeak atomic.Int64
	sampling, stopSampling := context.WithCancel(context.Background())
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for sampling.Err() == nil {
			storePeak.Store(max(storePeak.Load(), int64(metricValue(base, "besluitbron_event_store_bytes"))))
			select {
			case <-sampling.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	for end := time.Now().Add(total); time.Now().Before(end); {
		runLoad(t, base, loadSessions, time.Now().Add(min(total/4, time.Minute)), &st)
		h := heapMB()
		peak = max(peak, h)
		samples = append(samples, fmt.Sprintf("%.0f", h))
	}
	stopSampling()
	<-sampled
	t.Logf("%d calls by %d sessions in %v: %d cache hits, %d tool errors %v; heap after warm-up %.0f MiB, then %v MiB",
		st.calls.Load(), loadSessions, total, st.hits.Load(), st.toolErrors.Load(), st.toolErrorSample, warm, samples)
	if n := st.protocolErrors.Load(); n != 0 {
		t.Errorf("%d protocol errors, first: %v", n, st.firstProtocolError)
	}
	if n := counter.fiveXX.Load(); n != 0 {
		t.Errorf("BesluitBron answered %d HTTP 5xx (last %v)", n, counter.lastFiveX.Load())
	}
	// The events kept for resuming streams stay within their bound under
	// the load (besluitbron_event_store_bytes counts bookkeeping too).
	if b, max := storePeak.Load(), sumMetric(t, base, "besluitbron_event_store_max_bytes", ""); b <= 0 || float64(b) > max {
		t.Errorf("event store held at most %d bytes under load, bound %.0f: want some, within the bound", b, max)
	} else {
		t.Logf("event store: at most %d of %.0f bytes under load", b, max)
	}
	// Bounded: the caches have fixed budgets and everything else is per
	// call; growth past the warm-up beyond 96 MiB would be a leak.
	if !proofRace() && peak > warm+96 {
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

// metricValue is a metric's value on /metrics (summed over its labels), 0
// when it cannot be read: for sampling from a goroutine, where a test may
// not fail.
func metricValue(base, name string) float64 {
	res, err := http.Get(base + "/metrics")
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	sum := 0.0
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '{') {
			continue
		}
		var v float64
		if _, err := fmt.Sscan(rest[strings.LastIndexByte(rest, ' ')+1:], &v); err == nil {
			sum += v
		}
	}
	return sum
}

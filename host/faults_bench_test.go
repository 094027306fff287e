package host_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/platformsim"
)

// BenchmarkFaultIsolation measures, in one run on one host, the healthy
// platforms' latency without faults and then with four platforms failing
// at once (hang, 5xx, reset, malformed; proofFaults), under the same
// traffic: every client calls all seven platforms at once, each call a
// question not asked before (no cache hit in either phase). It reports
// each phase's median for the three healthy platforms and the worst ratio
// faults/free, whose target is ≤ 1.2. Run once: -benchtime=1x.
func BenchmarkFaultIsolation(b *testing.B) {
	sim, simURL := proofSim(b)
	_, base, _ := proofHost(b, proofConfig(b, simURL, b.TempDir(), proofFaultConfig))
	// 3 clients × 8 rounds × 2 phases (+3 warm-up) stay under
	// OpenBesluitvorming's 60-unit burst: no phase waits at its limit.
	const clients, rounds = 3, 8
	var cs []*proofClient
	for i := range clients {
		cs = append(cs, newProofClient(b, base, fmt.Sprintf("bench-%d", i)))
	}
	defer func() {
		for _, c := range cs {
			c.close()
		}
	}()
	healthy := []string{"obv", "rechtspraak", "tk"}
	// Phases alternate free, faults, free, faults (4 rounds each), so
	// neither side gains from running later (warmer) or earlier.
	lat := map[bool]map[string][]time.Duration{false: {}, true: {}}
	phase := func(faults bool, first int) {
		for r := range rounds / 2 {
			for _, res := range round(context.Background(), cs, first+r) {
				if _, faulty := proofFaults[res.platform]; !faulty {
					if res.err != nil || res.res.IsError {
						b.Fatalf("healthy %s failed: %v %s", res.platform, res.err, shortText(resultText(res.res)))
					}
					lat[faults][res.platform] = append(lat[faults][res.platform], res.took)
				}
			}
		}
	}
	// Warm the instance pools so no phase pays for instantiation.
	round(context.Background(), cs, 1000)
	b.ResetTimer()
	for p := range 4 {
		faults := p%2 == 1
		for id, f := range proofFaults {
			if !faults {
				f = platformsim.Fault{}
			}
			if err := sim.SetFault(id, f); err != nil {
				b.Fatal(err)
			}
		}
		phase(faults, p*rounds/2)
	}
	b.StopTimer()
	sim.ClearFaults()
	free, faulty := map[string]time.Duration{}, map[string]time.Duration{}
	for _, id := range healthy {
		free[id], faulty[id] = median(lat[false][id]), median(lat[true][id])
	}
	worst := 0.0
	var sumFree, sumFault time.Duration
	for _, id := range healthy {
		r := float64(faulty[id]) / float64(free[id])
		worst = max(worst, r)
		sumFree += free[id]
		sumFault += faulty[id]
		b.ReportMetric(r, id+"-faults/free")
	}
	b.ReportMetric(float64(sumFree.Microseconds())/1000/float64(len(healthy)), "healthy-ms-free")
	b.ReportMetric(float64(sumFault.Microseconds())/1000/float64(len(healthy)), "healthy-ms-faults")
	b.ReportMetric(worst, "faults/free")
	b.ReportMetric(0, "ns/op")
}

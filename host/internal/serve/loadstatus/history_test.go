package loadstatus_test

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// fakeQuotas stands for the host's quotas: counters the test moves, read
// the way the host's quotaStatus reports them.
type fakeQuotas struct {
	mu      sync.Mutex
	units   [2]float64 // the shared quota's two services
	got429  uint64
	waiting int64
	reads   int
}

func (f *fakeQuotas) read() []loadstatus.Quota {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	return []loadstatus.Quota{
		{Quota: "zoek.example.nl", Limited: true, Units: 10, PerSeconds: 30, Shared: true, Waiting: f.waiting,
			Connectors: []loadstatus.QuotaUser{
				{Platform: "a", Service: "zoek", Units: f.units[0], Got429: f.got429},
				{Platform: "b", Service: "doc", Units: f.units[1]},
			}},
		{Quota: "free.example.nl", Connectors: []loadstatus.QuotaUser{{Platform: "c", Service: "api"}}},
	}
}

func (f *fakeQuotas) set(fn func(f *fakeQuotas)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// TestSamplerRecordsMinutesInVirtualTime drives the sampler on a fake
// clock: units and 429s per minute are the counters' increases (a sampler
// charging the running total, or a minute's units to the next, fails),
// Waiting is the peak of the minute's readings (one reading a minute would
// miss the burst), points start on the minute, and the ring keeps exactly
// the last hour, oldest first.
func TestSamplerRecordsMinutesInVirtualTime(t *testing.T) {
	start := time.Date(2026, 6, 30, 10, 0, 5, 0, time.UTC) // mid-minute on purpose
	clk := schedtest.NewClock(start)
	f := &fakeQuotas{units: [2]float64{100, 40}, got429: 3} // counters before the sampler: not charged
	s := loadstatus.NewSampler(f.read, clk, loadstatus.HistoryOptions{})
	stop := s.Start()
	defer stop()

	// Minute 10:00: 7 units on one service, 2 on the other, one 429, a
	// burst of 5 waiting calls seen at one 10 s sample only.
	f.set(func(f *fakeQuotas) { f.units[0] += 7; f.units[1] += 2; f.got429++; f.waiting = 5 })
	clk.Advance(10 * time.Second) // 10:00:15
	f.set(func(f *fakeQuotas) { f.waiting = 1 })
	clk.Advance(40 * time.Second) // 10:00:55
	// Minute 10:01: 3 units.
	f.set(func(f *fakeQuotas) { f.units[0] += 3; f.waiting = 0 })
	clk.Advance(10 * time.Second) // 10:01:05

	h, ok := s.History("zoek.example.nl")
	if !ok {
		t.Fatal("no history for the limited quota")
	}
	if _, ok := s.History("free.example.nl"); ok {
		t.Error("a quota without a limit has a history: it queues nothing, its chart would be empty")
	}
	m0 := time.Date(2026, 6, 30, 10, 0, 0, 0, time.UTC)
	want := []loadstatus.HistoryPoint{{At: m0, Units: 9, Waiting: 5, Got429: 1}, {At: m0.Add(time.Minute), Units: 3}}
	if h.StepSeconds != 60 || !samePoints(h.Points, want) {
		t.Fatalf("history %+v, want step 60 and %+v", h, want)
	}

	// Two hours later, with 1 unit a minute: 60 points, the newest the
	// running minute, one a minute back from it, none empty (the gaps the
	// ring overwrote are gone).
	for i := 0; i < 120; i++ {
		f.set(func(f *fakeQuotas) { f.units[1]++ })
		clk.Advance(time.Minute)
	}
	h, _ = s.History("zoek.example.nl")
	if len(h.Points) != 60 {
		t.Fatalf("%d points, want 60 (an hour)", len(h.Points))
	}
	newest := clk.Now().Truncate(time.Minute)
	for i, p := range h.Points {
		if wantAt := newest.Add(-time.Duration(59-i) * time.Minute); !p.At.Equal(wantAt) {
			t.Fatalf("point %d at %s, want %s (oldest first, a minute apart)", i, p.At, wantAt)
		}
		if i < 59 && p.Units != 1 {
			t.Errorf("point %d (%s): %g units, want 1", i, p.At.Format("15:04"), p.Units)
		}
	}

	// The readings follow the clock: every 10 s, no more.
	before := f.reads
	clk.Advance(time.Minute)
	if n := f.reads - before; n != 6 {
		t.Errorf("%d readings in a minute, want 6", n)
	}
	stop()
	before = f.reads
	clk.Advance(time.Hour)
	if f.reads != before || len(clk.Pending()) != 0 {
		t.Errorf("after stop: %d more readings, timers pending %v", f.reads-before, clk.Pending())
	}
}

// TestSamplerGapsAndResets: minutes without a reading (the clock jumped)
// are empty points, not a stretched minute; a jump past the window keeps
// only a window's worth; a counter that went down (its quota built anew)
// counts from zero, never as a negative bar.
func TestSamplerGapsAndResets(t *testing.T) {
	m0 := time.Date(2026, 6, 30, 10, 0, 0, 0, time.UTC)
	clk := schedtest.NewClock(m0)
	f := &fakeQuotas{}
	s := loadstatus.NewSampler(f.read, clk, loadstatus.HistoryOptions{Step: time.Minute, Points: 5, Samples: 1})
	s.Sample()
	f.set(func(f *fakeQuotas) { f.units[0] = 4 })
	clk.Advance(3 * time.Minute) // no timer runs: Start was not called
	s.Sample()
	h, _ := s.History("zoek.example.nl")
	want := []loadstatus.HistoryPoint{{At: m0}, {At: m0.Add(time.Minute)}, {At: m0.Add(2 * time.Minute)}, {At: m0.Add(3 * time.Minute), Units: 4}}
	if !samePoints(h.Points, want) {
		t.Fatalf("after a 3-minute gap: %+v, want %+v", h.Points, want)
	}
	f.set(func(f *fakeQuotas) { f.units[0] = 1 }) // reset, then 1 unit
	clk.Advance(time.Hour)
	s.Sample()
	h, _ = s.History("zoek.example.nl")
	if len(h.Points) != 5 || !h.Points[0].At.Equal(m0.Add(59*time.Minute)) || h.Points[4].Units != 1 {
		t.Fatalf("after an hour's jump: %+v, want 5 points ending at 11:03 with 1 unit", h.Points)
	}
	for _, p := range h.Points[:4] {
		if p.Units != 0 {
			t.Errorf("empty minute %s has %g units", p.At.Format("15:04"), p.Units)
		}
	}
}

// TestSnapshotCarriesHistory: the job's snapshot gives a limited quota its
// history once StartHistory ran (JSON "history"), and the quota slice the
// host handed in is not written to.
func TestSnapshotCarriesHistory(t *testing.T) {
	clk := schedtest.NewClock(time.Date(2026, 6, 30, 10, 0, 0, 0, time.UTC))
	f := &fakeQuotas{}
	var last []loadstatus.Quota
	j := loadstatus.New(nil, &loadstatus.Options{Clock: clk, Quotas: func() []loadstatus.Quota { last = f.read(); return last }})
	if q := j.Snapshot().Quotas[0]; q.History != nil {
		t.Fatalf("history before sampling: %+v", q.History)
	}
	stop := j.StartHistory()
	defer stop()
	f.set(func(f *fakeQuotas) { f.units[0] = 2 })
	clk.Advance(10 * time.Second)
	snap := j.Snapshot()
	if q := snap.Quotas[0]; q.History == nil || len(q.History.Points) != 1 || q.History.Points[0].Units != 2 {
		t.Fatalf("limited quota's history: %+v", q.History)
	}
	if snap.Quotas[1].History != nil {
		t.Error("unlimited quota has a history")
	}
	if last[0].History != nil {
		t.Error("the snapshot wrote the history into the host's slice")
	}
	b, _ := json.Marshal(snap.Quotas[0])
	var back struct {
		History struct {
			StepSeconds float64 `json:"step_seconds"`
			Points      []struct {
				Units float64 `json:"units"`
			} `json:"points"`
		} `json:"history"`
	}
	if err := json.Unmarshal(b, &back); err != nil || back.History.StepSeconds != 60 || len(back.History.Points) != 1 {
		t.Errorf("JSON %s", b)
	}
}

func samePoints(a, b []loadstatus.HistoryPoint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].At.Equal(b[i].At) || a[i].Units != b[i].Units || a[i].Waiting != b[i].Waiting || a[i].Got429 != b[i].Got429 {
			return false
		}
	}
	return true
}

// TestSamplerHammer reads histories while the clock drives samples and the
// counters move (-race catches a history read outside the lock); the
// units recorded add up to the counters' increase however the readings
// interleave.
func TestSamplerHammer(t *testing.T) {
	clk := schedtest.NewClock(time.Date(2026, 6, 30, 10, 0, 0, 0, time.UTC))
	f := &fakeQuotas{}
	j := loadstatus.New(nil, &loadstatus.Options{Clock: clk, Quotas: f.read})
	stop := j.StartHistory()
	defer stop()
	var wg sync.WaitGroup
	done := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
					for _, q := range j.Snapshot().Quotas {
						if q.History != nil && len(q.History.Points) > 60 {
							t.Errorf("%d points", len(q.History.Points))
						}
					}
				}
			}
		}()
	}
	for range 30 {
		f.set(func(f *fakeQuotas) { f.units[0]++ })
		clk.Advance(20 * time.Second)
	}
	close(done)
	wg.Wait()
	var sum float64
	for _, p := range j.Snapshot().Quotas[0].History.Points {
		sum += p.Units
	}
	if sum != 30 {
		t.Errorf("recorded %g units, the counters rose by 30", sum)
	}
}

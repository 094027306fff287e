package sched_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// Property tests over random scenarios: guarantees 1, 3, 4 and 5.

func drawLimit(t *rapid.T) sched.Limit {
	return sched.Limit{
		Units: rapid.SampledFrom([]float64{1, 2.5, 10, 60, 120}).Draw(t, "units"),
		Per:   rapid.SampledFrom([]time.Duration{time.Second, 30 * time.Second, time.Minute}).Draw(t, "per"),
	}
}

// withMargin is the bucket host/internal/upstream/quota runs for a platform limit
// l at the headroom's floor: min(1, C/10) units less, refilling at the same
// rate (its window rounded up to the nanosecond).
func withMargin(l sched.Limit) sched.Limit {
	return sched.Headroom(l, sched.HeadroomFloor(l))
}

// TestPropertyNeverOverLimit: whatever the calls, cancellations, pauses and
// platform feedback, the platform model accepts every grant and the
// scheduler's counters are exact (guarantee 1, with oversized calls), also
// on a bucket that keeps the host's margin below the platform's limit.
func TestPropertyNeverOverLimit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := drawLimit(t)
		d := newDriver(t, l, nil)
		if rapid.Bool().Draw(t, "margin") {
			d = newDriver(t, withMargin(l), &sched.Options{PlatformUnits: l.Units})
			d.platform = l
		}
		var waiting []int
		maxEighths := int(math.Ceil(l.Units * 8 * 1.5))
		for range rapid.IntRange(1, 150).Draw(t, "steps") {
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0, 1, 2, 3, 4:
				s := fmt.Sprintf("s%d", rapid.IntRange(0, 4).Draw(t, "session"))
				cost := float64(rapid.IntRange(1, maxEighths).Draw(t, "eighths")) / 8
				waiting = append(waiting, d.ask(s, cost))
			case 5:
				if len(waiting) > 0 {
					i := rapid.IntRange(0, len(waiting)-1).Draw(t, "cancel")
					d.asks[waiting[i]].r.CancelAt(d.now)
					waiting = append(waiting[:i], waiting[i+1:]...)
				}
			case 6:
				d.s.PauseUntil(d.now.Add(time.Duration(rapid.Int64Range(0, int64(l.Per)).Draw(t, "pause"))))
			case 7:
				d.s.Observe(float64(rapid.IntRange(-1, int(l.Units)).Draw(t, "remaining")),
					time.Duration(rapid.IntRange(-1, int(l.Per/time.Second)).Draw(t, "reset"))*time.Second, d.now)
			default:
				d.until(d.now.Add(time.Duration(rapid.Int64Range(0, int64(l.Per)).Draw(t, "advance"))))
			}
		}
		d.until(d.now.Add(100 * l.Per))
		d.checkExact()
		if st := d.s.StatsAt(d.now); st.Queued != 0 {
			t.Fatalf("%d calls still queued after 100 windows", st.Queued)
		}
	})
}

// drawSaturating draws 2–4 sessions that keep calls waiting from their
// arrival on, arriving within two windows of each other.
func drawSaturating(t *rapid.T, l sched.Limit, maxCost int) []schedtest.Group {
	n := rapid.IntRange(2, 4).Draw(t, "sessions")
	var gs []schedtest.Group
	for i := range n {
		gs = append(gs, schedtest.Group{
			Name:    fmt.Sprintf("g%d", i),
			Arrive:  time.Duration(rapid.IntRange(0, 120).Draw(t, "arrive")) * l.Per / 60,
			Threads: rapid.IntRange(1, 8).Draw(t, "threads"),
			Cost:    float64(rapid.IntRange(1, maxCost).Draw(t, "cost")),
		})
	}
	return gs
}

// TestPropertyShareByUsage: sessions that all keep calls waiting get the
// shares of the fluid oracle within 0.03 (guarantee 3).
func TestPropertyShareByUsage(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := sched.Limit{Units: rapid.SampledFrom([]float64{30, 60, 120}).Draw(t, "units"), Per: time.Minute}
		gs := drawSaturating(t, l, 2)
		last := time.Duration(0)
		var names []string
		for _, g := range gs {
			last = max(last, g.Arrive)
			names = append(names, g.Name)
		}
		sc := schedtest.Scenario{
			Name: "random", Limit: l, Groups: gs, Duration: last + 9*time.Minute,
			Fair: names, From: last + time.Minute, To: last + 9*time.Minute,
			Expect: schedtest.Expect{ShareMargin: 0.03},
		}
		r := schedtest.Run(sc, "sched", schedtest.NewSched(l, 0))
		if !r.Fair() {
			t.Fatalf("%v\nshares %+v", r.Violations, r.Shares)
		}
	})
}

// TestPropertyNoStarvation: when the waiting sessions' calls fit in one
// window, every session gets a call within W, however much it used; when
// they do not, within W plus the refill of every session's call
// (guarantee 4).
func TestPropertyNoStarvation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := sched.Limit{Units: 20, Per: time.Minute}
		n := rapid.IntRange(2, 8).Draw(t, "sessions")
		var gs []schedtest.Group
		sum := 0.0
		for i := range n {
			g := schedtest.Group{
				Name:    fmt.Sprintf("g%d", i),
				Arrive:  time.Duration(rapid.IntRange(0, 15*60).Draw(t, "arrive")) * time.Second,
				Threads: rapid.IntRange(1, 4).Draw(t, "threads"),
				Cost:    float64(rapid.IntRange(1, 5).Draw(t, "cost")),
			}
			sum += g.Cost
			gs = append(gs, g)
		}
		bound := l.Per
		if sum > l.Units {
			bound += time.Duration(sum / l.Units * float64(l.Per))
		}
		sc := schedtest.Scenario{Name: "random", Limit: l, Groups: gs, Duration: 25 * time.Minute,
			Expect: schedtest.Expect{MaxGap: bound}}
		r := schedtest.Run(sc, "sched", schedtest.NewSched(l, 0))
		if !r.Fair() {
			t.Fatalf("%v (sum of costs %v, C %v)", r.Violations, sum, l.Units)
		}
	})
}

// TestPropertyOversized: calls costing more than C among ordinary traffic
// are all served, each on a full bucket, nothing goes over the limit, and
// an oversized call holds the others up no longer than a call costing C:
// every session gets a call within W, or W plus the refill of every
// session's call counted at most C (guarantees 4 and 5; the old debt of
// cost − C broke this bound).
func TestPropertyOversized(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		l := sched.Limit{Units: 10, Per: 10 * time.Second}
		gs := drawSaturating(t, l, 3)
		big := schedtest.Group{
			Name:   "big",
			Arrive: time.Duration(rapid.IntRange(0, 60).Draw(t, "arrive")) * time.Second,
			Calls:  rapid.IntRange(1, 3).Draw(t, "calls"),
			Cost:   float64(rapid.IntRange(11, 30).Draw(t, "cost")),
			Think:  time.Duration(rapid.IntRange(0, 20).Draw(t, "think")) * time.Second,
		}
		sum := l.Units // big's call, charged C
		for _, g := range gs {
			sum += g.Cost
		}
		bound := l.Per
		if sum > l.Units {
			bound += time.Duration(sum / l.Units * float64(l.Per))
		}
		sc := schedtest.Scenario{Name: "random", Limit: l, Groups: append(gs, big), Duration: 15 * time.Minute,
			Expect: schedtest.Expect{Served: "big", MaxGap: bound}}
		r := schedtest.Run(sc, "sched", schedtest.NewSched(l, 0))
		if !r.Fair() {
			t.Fatalf("%v (sum of charges %v, C %v)", r.Violations, sum, l.Units)
		}
	})
}

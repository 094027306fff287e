package quota

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sched"
)

// steppingClock moves a second forward at every reading, so a limit of a
// unit per second always has room: the benchmark measures the check, never
// a wait.
type steppingClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *steppingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

type stdTimer struct{ *time.Timer }

func (c *steppingClock) AfterFunc(d time.Duration, f func()) sched.Timer {
	return stdTimer{time.AfterFunc(d, f)}
}

// BenchmarkWaitGranted is a platform limit's own cost on an upstream fetch
// when the limit has room: the scheduler's bookkeeping for the session,
// with no wait (OpenBesluitvorming's 60 units a minute).
func BenchmarkWaitGranted(b *testing.B) {
	l, err := New("obv", "OpenBesluitvorming", "api", sched.Limit{Units: 60, Per: time.Minute},
		&sched.Options{Clock: &steppingClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}})
	if err != nil {
		b.Fatal(err)
	}
	info := &callinfo.Info{Session: "bench"}
	ctx := context.Background()
	for b.Loop() {
		if q, err := l.Wait(ctx, info, 1, false); err != nil || q != 0 {
			b.Fatalf("queued %v: %v", q, err)
		}
	}
}

// The platforms' real limits, for BenchmarkHeadroomCost.
var realLimits = []struct {
	name string
	l    sched.Limit
}{
	{"60per1m", sched.Limit{Units: 60, Per: time.Minute}},       // OpenBesluitvorming
	{"120per1m", sched.Limit{Units: 120, Per: time.Minute}},     // Open Archivaris
	{"3per1s", sched.Limit{Units: 3, Per: time.Second}},         // the SRU search (polite default)
	{"10per1s", sched.Limit{Units: 10, Per: time.Second}},       // Rechtspraak (polite default)
	{"10per30s", sched.Limit{Units: 10, Per: 30 * time.Second}}, // zoek.officielebekendmakingen.nl
}

// grantedWithin counts the units a local limit grants, in virtual time,
// to a queue of calls of one unit that arrives on a full bucket, within
// span of the arrival.
func grantedWithin(l sched.Limit, k float64, span time.Duration) float64 {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := sched.New(l, &sched.Options{PlatformUnits: k})
	n := int(k*(1+span.Seconds()/l.Per.Seconds())) + 10
	rs := make([]*sched.Reservation, n)
	for i := range rs {
		r, err := s.ReserveAt(t0, sched.Request{Session: "s", Cost: 1})
		if err != nil {
			panic(err)
		}
		rs[i] = r
	}
	end := t0.Add(span)
	for next := s.AdvanceAt(t0); !next.IsZero() && !next.After(end); next = s.AdvanceAt(next) {
	}
	var units float64
	for _, r := range rs {
		if g, ok := r.Grant(); ok && !g.At.After(t0.Add(span)) {
			units++
		}
	}
	return units
}

// BenchmarkHeadroomCost is the throughput the measured headroom costs at
// each real limit, against the one unit kept before, in virtual time:
// the units granted to a deep queue arriving on a full bucket within the
// first window (where headroom costs burst) and within ten windows (the
// sustained rate, which it does not cost), for a path of 300 ms spread
// (the jitter tests') and for a path at the cap.
func BenchmarkHeadroomCost(b *testing.B) {
	for _, rl := range realLimits {
		b.Run(rl.name, func(b *testing.B) {
			p := newPath(rl.l)
			for range MinPathSamples {
				p.sample(100 * time.Millisecond)
			}
			p.sample(400 * time.Millisecond) // a spread of 300 ms
			h := p.state(time.Time{}).Units
			one := sched.Headroom(rl.l, sched.HeadroomFloor(rl.l))
			var first, ten, atCap float64
			for b.Loop() {
				first = grantedWithin(sched.Headroom(rl.l, h), rl.l.Units, rl.l.Per) / grantedWithin(one, rl.l.Units, rl.l.Per)
				ten = grantedWithin(sched.Headroom(rl.l, h), rl.l.Units, 10*rl.l.Per) / grantedWithin(one, rl.l.Units, 10*rl.l.Per)
				atCap = grantedWithin(sched.Headroom(rl.l, p.cap()), rl.l.Units, rl.l.Per) / grantedWithin(one, rl.l.Units, rl.l.Per)
			}
			b.ReportMetric(h, "headroom-units")
			b.ReportMetric(first, "first-window/one-unit")
			b.ReportMetric(ten, "ten-windows/one-unit")
			b.ReportMetric(atCap, "first-window-at-cap/one-unit")
		})
	}
}

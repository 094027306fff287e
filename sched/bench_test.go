package sched

import (
	"fmt"
	"testing"
	"time"
)

// The scheduler at scale (issue 19): the cost of one grant and of one
// arrival with 10, 1,000 and 10,000 sessions waiting, at
// OpenBesluitvorming's limit, with and without deadlines. cmd/benchtable
// puts the 10,000 figures beside the 10 ones in `make bench`.
//
// "plain" waiting calls were queued with ReserveAt, as a Wait without a
// deadline or an OnQueued callback is: nothing plans for them. "deadlines"
// waiting calls were queued as a Wait with a context deadline is (a day
// away, so that none is late): every change plans the queue for them.

// benchSizes are the numbers of waiting sessions.
var benchSizes = []int{10, 1000, 10000}

// nopClock is a Clock whose timers never fire: the benchmarks move time
// with the time-explicit methods only.
type nopClock struct{}

func (nopClock) Now() time.Time                        { return t0 }
func (nopClock) AfterFunc(time.Duration, func()) Timer { return nopTimer{} }

type nopTimer struct{}

func (nopTimer) Stop() bool { return true }

// benchLimit is OpenBesluitvorming's limit as the host runs it: 59 units
// per 59 s, weights on the declared 60.
var benchLimit = Limit{Units: 59, Per: 59 * time.Second}

// benchRig keeps n sessions waiting on an empty bucket.
type benchRig struct {
	s       *Scheduler
	names   []string
	watched bool // waiting calls are queued with a deadline
	now     time.Time
}

func newBenchRig(n int, watched bool) *benchRig {
	b := &benchRig{s: newTestableScheduler(benchLimit, Options{Clock: nopClock{}, PlatformUnits: 60}), watched: watched, now: t0}
	b.s.LowerAt(t0, 0)
	for i := range n {
		b.names = append(b.names, fmt.Sprintf("s%d", i))
	}
	return b
}

// ask queues a call of cost 1 for session at at, as Wait with a deadline
// a day away does when watched, else as ReserveAt does.
func (b *benchRig) ask(at time.Time, session string, watched bool) *call {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	r := Request{Session: session, Cost: 1}
	if watched {
		c, err := b.s.admitLocked(at, r, at.Add(24*time.Hour))
		if err != nil {
			panic(err)
		}
		return c
	}
	c, err := b.s.q.enqueue(at, r)
	if err != nil {
		panic(err)
	}
	b.s.afterLocked()
	return c
}

// reserve queues a call for the i-th waiting session.
func (b *benchRig) reserve(at time.Time, i int) *call { return b.ask(at, b.names[i], b.watched) }

func deadlineName(watched bool) string {
	if watched {
		return "deadlines"
	}
	return "plain"
}

// The benchmarks time each grant or arrival on its own (time.Now around
// it, some 50 ns of overhead) and report it as ns/grant or ns/arrival:
// keeping n sessions waiting takes work between them that ns/op would
// count, and b.StopTimer per iteration costs far more than what it hides.

// BenchmarkSchedGrant measures AdvanceAt granting one call while n
// sessions wait; each session keeps calls queued, so that n stay waiting
// (each round of n grants is topped up, untimed).
func BenchmarkSchedGrant(b *testing.B) {
	for _, n := range benchSizes {
		for _, watched := range []bool{false, true} {
			b.Run(fmt.Sprintf("%d/%s", n, deadlineName(watched)), func(b *testing.B) {
				r := newBenchRig(n, watched)
				for i := range n {
					r.reserve(r.now, i)
					r.reserve(r.now, i)
				}
				next := r.s.AdvanceAt(r.now)
				var spent time.Duration
				for i := range b.N {
					if i > 0 && i%n == 0 {
						for j := range n {
							r.reserve(r.now, j)
						}
						next = r.s.AdvanceAt(r.now)
					}
					r.now = next
					start := time.Now()
					next = r.s.AdvanceAt(next)
					spent += time.Since(start)
				}
				b.ReportMetric(float64(spent)/float64(b.N), "ns/grant")
				if st := r.s.StatsAt(r.now); st.WaitingSessions != n || st.Calls != uint64(b.N) {
					b.Fatalf("%d sessions waiting, %d calls granted; want %d, %d", st.WaitingSessions, st.Calls, n, b.N)
				}
			})
		}
	}
}

// BenchmarkSchedArrival measures a new session's call arriving while n
// sessions wait on an empty bucket (nothing is granted): "plain" as
// ReserveAt queues it, "deadline" as Wait with a context deadline does,
// with the waiting calls plain, and "deadlines" likewise with every
// waiting call queued with a deadline too. Each arrival is cancelled,
// untimed, before the next.
func BenchmarkSchedArrival(b *testing.B) {
	for _, n := range benchSizes {
		for _, kind := range []string{"plain", "deadline", "deadlines"} {
			b.Run(fmt.Sprintf("%d/%s", n, kind), func(b *testing.B) {
				r := newBenchRig(n, kind == "deadlines")
				for i := range n {
					r.reserve(r.now, i)
				}
				// Newcomers reuse a few names: a session's record outlives
				// its cancelled call, and a map of b.N of them would be
				// measured instead.
				var names [16]string
				for i := range names {
					names[i] = fmt.Sprintf("new-%d", i)
				}
				var spent time.Duration
				for i := range b.N {
					session := names[i%len(names)]
					start := time.Now()
					c := r.ask(r.now, session, kind != "plain")
					spent += time.Since(start)
					(&Reservation{s: r.s, c: c}).CancelAt(r.now)
				}
				b.ReportMetric(float64(spent)/float64(b.N), "ns/arrival")
				if st := r.s.StatsAt(r.now); st.Calls != 0 || st.WaitingSessions != n {
					b.Fatalf("%d granted, %d sessions waiting; want 0, %d", st.Calls, st.WaitingSessions, n)
				}
			})
		}
	}
}

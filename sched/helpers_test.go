package sched_test

import (
	"slices"
	"time"

	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

var epoch = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// tb is what the helpers need of *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// driver plays calls against the time-explicit API in virtual time.
type driver struct {
	t        tb
	l        sched.Limit
	platform sched.Limit // the platform's own limit, for checkExact; zero: l
	s        *sched.Scheduler
	now      time.Time
	asks     []ask
}

type ask struct {
	session string
	cost    float64
	at      time.Time
	r       *sched.Reservation
}

func newDriver(t tb, l sched.Limit, opts *sched.Options) *driver {
	return &driver{t: t, l: l, s: sched.New(l, opts), now: epoch}
}

// ask queues a call now and returns its index.
func (d *driver) ask(session string, cost float64) int {
	d.t.Helper()
	r, err := d.s.ReserveAt(d.now, sched.Request{Session: session, Cost: cost})
	if err != nil {
		d.t.Fatal(err)
	}
	d.asks = append(d.asks, ask{session, cost, d.now, r})
	return len(d.asks) - 1
}

// until advances virtual time to t, granting as it goes.
func (d *driver) until(t time.Time) {
	for {
		next := d.s.AdvanceAt(d.now)
		if next.IsZero() || next.After(t) {
			break
		}
		d.now = next
	}
	if t.After(d.now) {
		d.now = t
		d.s.AdvanceAt(t)
	}
}

// next advances to the next grant and returns the indexes granted then.
func (d *driver) next() []int {
	d.t.Helper()
	n := d.s.AdvanceAt(d.now)
	if n.IsZero() {
		d.t.Fatal("nothing waits")
	}
	before := d.grantedSet()
	d.now = n
	d.s.AdvanceAt(n)
	var got []int
	for i := range d.asks {
		if _, ok := d.asks[i].r.Grant(); ok && !before[i] {
			got = append(got, i)
		}
	}
	return got
}

func (d *driver) grantedSet() map[int]bool {
	m := map[int]bool{}
	for i := range d.asks {
		if _, ok := d.asks[i].r.Grant(); ok {
			m[i] = true
		}
	}
	return m
}

type granted struct {
	i int
	g sched.Grant
}

// grants returns the granted calls in grant order.
func (d *driver) grants() []granted {
	var gs []granted
	for i := range d.asks {
		if g, ok := d.asks[i].r.Grant(); ok {
			gs = append(gs, granted{i, g})
		}
	}
	slices.SortFunc(gs, func(a, b granted) int { return int(a.g.Seq) - int(b.g.Seq) })
	return gs
}

// checkExact asserts guarantee 1 on everything granted so far: the
// platform model accepts every grant in grant order, the scheduler's
// counters match the grants exactly, and each session's calls were granted
// in the order they were asked.
func (d *driver) checkExact() {
	d.t.Helper()
	pl := d.platform
	if pl == (sched.Limit{}) {
		pl = d.l
	}
	p := schedtest.NewPlatform(pl)
	p.Send(epoch, 0)
	units, calls := 0.0, uint64(0)
	last := map[string]int{}
	for _, g := range d.grants() {
		a := d.asks[g.i]
		if !p.Send(g.g.At, a.cost) {
			d.t.Fatalf("platform refused grant %d (%s, cost %v) at %v: %.6f units left", g.g.Seq, a.session, a.cost, g.g.At.Sub(epoch), p.Tokens())
		}
		if j, ok := last[a.session]; ok && j > g.i {
			d.t.Fatalf("session %s: call %d granted after call %d", a.session, j, g.i)
		}
		last[a.session] = g.i
		units += a.cost
		calls++
	}
	st := d.s.StatsAt(d.now)
	if st.Units != units || st.Calls != calls {
		d.t.Fatalf("Stats counts %d calls, %v units; the grants are %d calls, %v units", st.Calls, st.Units, calls, units)
	}
}

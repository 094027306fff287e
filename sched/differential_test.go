package sched

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// The differential test of issue 19: the core, which picks with a heap of
// start tags, checks deadlines on the order tree and plans from it, against
// the reference (reference_test.go), which scans and simulates. On random
// workloads both get the same operations and must make the same decisions
// after every one: the same grants (instant, wait, sequence number), the
// same next instant, the same virtual time, and the same plan (position and
// expected grant of every watched call). A third core, forced to scan
// (core.scan, the path for limits too long for the tree), must agree too.

// diffRun is one workload played on the three cores.
type diffRun struct {
	t     *testing.T
	rng   *rand.Rand
	q     *core // heap, tree, projectOrder
	scan  *core // scanning, dry-run planning only
	ref   *refCore
	calls []diffCall
	now   time.Time
	ops   []string // for the failure message
}

type diffCall struct {
	c, s *call
	r    *refCall
}

func newDiffRun(t *testing.T, seed uint64, l Limit, k float64) *diffRun {
	d := &diffRun{
		t: t, rng: rand.New(rand.NewPCG(seed, 19)), now: t0,
		q: newCore(l, time.Hour, k), scan: newCore(l, time.Hour, k), ref: newRefCore(l, time.Hour, k),
	}
	d.scan.scan = true
	return d
}

func (d *diffRun) op(format string, args ...any) {
	d.ops = append(d.ops, fmt.Sprintf("t0+%v ", d.now.Sub(t0))+fmt.Sprintf(format, args...))
}

func (d *diffRun) fail(format string, args ...any) {
	d.t.Helper()
	from := max(0, len(d.ops)-15)
	d.t.Fatalf("after op %d (last ops:\n%s\n): %s", len(d.ops), joinLines(d.ops[from:]), fmt.Sprintf(format, args...))
}

func joinLines(ss []string) string {
	out := ""
	for _, s := range ss {
		out += "  " + s + "\n"
	}
	return out
}

func (d *diffRun) ask(session string, cost float64, front, watched bool) {
	d.op("ask %s %v front=%v watched=%v", session, cost, front, watched)
	r := Request{Session: session, Cost: cost, Front: front}
	c, err := d.q.enqueue(d.now, r)
	if err != nil {
		d.t.Fatal(err)
	}
	s, _ := d.scan.enqueue(d.now, r)
	rc, _ := d.ref.enqueue(d.now, r)
	if watched && c.state == stateWaiting {
		d.q.watch(c)
		d.scan.watch(s)
	}
	if watched && rc.state == stateWaiting {
		rc.watched = true
		d.ref.watchers++
	}
	d.calls = append(d.calls, diffCall{c, s, rc})
}

func (d *diffRun) cancel(i int, refund bool) {
	d.op("cancel %d refund=%v", i, refund)
	x := d.calls[i]
	d.q.cancel(d.now, x.c, refund)
	d.scan.cancel(d.now, x.s, refund)
	d.ref.cancel(d.now, x.r, refund)
}

func (d *diffRun) advance(to time.Time) {
	d.now = to
	d.op("advance")
	d.q.advance(to)
	d.scan.advance(to)
	d.ref.advance(to)
}

func (d *diffRun) pause(until time.Time) {
	d.op("pause until t0+%v", until.Sub(t0))
	for _, q := range []*core{d.q, d.scan} {
		q.b.pause(until)
		q.advance(q.now)
	}
	d.ref.b.pause(until)
	d.ref.advance(d.ref.now)
}

func (d *diffRun) lower(units float64) {
	d.op("lower %v", units)
	for _, q := range []*core{d.q, d.scan} {
		t := q.at(d.now)
		q.b.lower(t, units)
		q.advance(t)
	}
	t := d.ref.at(d.now)
	d.ref.b.lower(t, units)
	d.ref.advance(t)
}

func (d *diffRun) setLimit(l Limit) {
	d.op("limit %v/%v", l.Units, l.Per)
	d.q.setLimit(d.now, l)
	d.scan.setLimit(d.now, l)
	t := d.ref.at(d.now)
	d.ref.limit = l
	d.ref.b.setLimit(t, l, d.ref.declared())
	for _, w := range d.ref.waiting {
		d.ref.retag(w)
	}
	d.ref.advance(t)
}

type planned struct {
	pos int
	eta time.Time
}

// check compares the three cores' decisions and plans.
func (d *diffRun) check() {
	d.t.Helper()
	for i, x := range d.calls {
		for name, c := range map[string]*call{"core": x.c, "scan": x.s} {
			if c.state != x.r.state || c.grant.Seq != x.r.grant.Seq || !c.grant.At.Equal(x.r.grant.At) || c.grant.Queued != x.r.grant.Queued {
				d.fail("call %d: %s state %d grant %+v, reference state %d grant %+v", i, name, c.state, c.grant, x.r.state, x.r.grant)
			}
		}
	}
	for name, q := range map[string]*core{"core": d.q, "scan": d.scan} {
		if !q.next.Equal(d.ref.next) || q.vt != d.ref.vt || q.epoch != d.ref.epoch || q.queued != d.ref.queued || q.order.live != len(d.ref.waiting) {
			d.fail("%s: next %v vt %v epoch %d queued %d waiting %d; reference next %v vt %v epoch %d queued %d waiting %d",
				name, q.next, q.vt, q.epoch, q.queued, q.order.live, d.ref.next, d.ref.vt, d.ref.epoch, d.ref.queued, len(d.ref.waiting))
		}
		if q.watchers != len(q.watchList) || q.watchers != d.ref.watchers {
			d.fail("%s: %d watchers, %d listed; reference %d", name, q.watchers, len(q.watchList), d.ref.watchers)
		}
	}
	index := map[*refCall]int{}
	for i, x := range d.calls {
		index[x.r] = i
	}
	want := map[int]planned{}
	d.ref.project(d.now, func(c *refCall) bool { return c.watched }, func(c *refCall, pos int, eta time.Time) {
		want[index[c]] = planned{pos, eta}
	})
	for name, q := range map[string]*core{"core": d.q, "scan": d.scan} {
		idx := map[*call]int{}
		for i, x := range d.calls {
			idx[x.c], idx[x.s] = i, i
		}
		got := map[int]planned{}
		q.project(d.now, func(c *call, pos int, eta time.Time) {
			if _, dup := got[idx[c]]; dup {
				d.fail("%s: call %d reported twice", name, idx[c])
			}
			got[idx[c]] = planned{pos, eta}
		})
		if len(got) != len(want) {
			d.fail("%s planned %d watched calls, the reference %d", name, len(got), len(want))
		}
		for i, w := range want {
			if g, ok := got[i]; !ok || g.pos != w.pos || !g.eta.Equal(w.eta) {
				d.fail("%s plans call %d at position %d, t0+%v; the reference at %d, t0+%v", name, i, g.pos, g.eta.Sub(t0), w.pos, w.eta.Sub(t0))
			}
		}
	}
}

// waitingCall returns a random call still waiting, or -1.
func (d *diffRun) waitingCall() int {
	var w []int
	for i, x := range d.calls {
		if x.r.state == stateWaiting {
			w = append(w, i)
		}
	}
	if len(w) == 0 {
		return -1
	}
	return w[d.rng.IntN(len(w))]
}

// diffWorkload is one kind of random traffic.
type diffWorkload struct {
	name     string
	l        Limit
	k        float64 // declared capacity; 0: l.Units
	sessions int     // session pool
	steps    int
	plan     int // planLimit during the run
}

func (d *diffRun) play(w diffWorkload) {
	costs := []float64{1, 1, 1, 2, 0.125, 0.375, 3, 0.1, w.l.Units, w.l.Units * 1.5}
	for range w.steps {
		switch op := d.rng.IntN(20); {
		case op < 10:
			session := fmt.Sprintf("s%d", d.rng.IntN(w.sessions))
			if d.rng.IntN(15) == 0 {
				session = PublicSession
			}
			d.ask(session, costs[d.rng.IntN(len(costs))], d.rng.IntN(8) == 0, d.rng.IntN(3) == 0)
		case op < 12:
			if i := d.waitingCall(); i >= 0 {
				d.cancel(i, false)
			} else if len(d.calls) > 0 {
				d.cancel(d.rng.IntN(len(d.calls)), true)
			}
		case op == 12:
			d.pause(d.now.Add(time.Duration(d.rng.Int64N(int64(w.l.Per) / 2))))
		case op == 13:
			d.lower(float64(d.rng.IntN(int(w.l.Units) + 1)))
		case op == 14 && d.rng.IntN(10) == 0:
			l := w.l
			if d.rng.IntN(2) == 0 {
				l = Limit{Units: w.l.Units * 2, Per: w.l.Per}
			}
			d.setLimit(l)
		default:
			step := time.Duration(d.rng.Int64N(int64(w.l.Per) / 4))
			if next := d.q.next; !next.IsZero() && d.rng.IntN(2) == 0 {
				step = next.Sub(d.now) // exactly the next grant, as the timer would
			}
			d.advance(d.now.Add(max(0, step)))
		}
		d.check()
	}
}

var diffWorkloads = []diffWorkload{
	// Few sessions, every kind of call and event: the fair order, the
	// deadline guard switching on and off, pauses, corrections.
	{"few", Limit{Units: 10, Per: 10 * time.Second}, 0, 5, 400, MaxPlan},
	{"few-margin", Limit{Units: 9, Per: 9 * time.Second}, 10, 5, 400, MaxPlan},
	// Many sessions on a small bucket: overload, where the plan is served
	// in order of waiting and projectOrder answers, up to a short plan
	// limit so that its tail is reached.
	{"overload", Limit{Units: 5, Per: 10 * time.Second}, 0, 60, 600, 12},
	{"overload-margin", Limit{Units: 59, Per: 59 * time.Second}, 60, 200, 600, 40},
	// Around the edge of overload: a few sessions late, so that the
	// fair choice is sometimes the only late one.
	{"edge", Limit{Units: 10, Per: 10 * time.Second}, 0, 12, 600, 8},
	{"edge-margin", Limit{Units: 9, Per: 9 * time.Second}, 10, 6, 600, 8},
	{"overload-long-plan", Limit{Units: 4, Per: 4 * time.Second}, 0, 40, 600, MaxPlan},
}

func TestDifferentialAgainstReference(t *testing.T) {
	seeds := 6
	if testing.Short() || raceEnabled {
		seeds = 3 // the cores are single-goroutine: the race detector adds little
	}
	order, part, dry := 0, 0, 0
	for _, w := range diffWorkloads {
		for seed := range uint64(seeds) {
			t.Run(fmt.Sprintf("%s/seed%d", w.name, seed), func(t *testing.T) {
				defer func(p int) { planLimit = p }(planLimit)
				planLimit = w.plan
				d := newDiffRun(t, seed, w.l, w.k)
				d.play(w)
				order += d.q.plans.order
				part += d.q.plans.part
				dry += d.q.plans.dry
			})
		}
	}
	t.Logf("plans read off the order tree: %d; partly: %d; by dry run: %d", order, part, dry)
	if order == 0 || part == 0 || dry == 0 {
		t.Fatalf("the workloads did not exercise every way of planning (%d from the tree, %d partly, %d by dry run)", order, part, dry)
	}
}

// TestDifferentialAtScale compares the plans where projectOrder earns its
// keep: 3,000 sessions on OpenBesluitvorming's limit as the host runs it,
// a third of their calls watched, planned to the real MaxPlan.
func TestDifferentialAtScale(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("the reference takes seconds to plan 3,000 sessions")
	}
	d := newDiffRun(t, 19, Limit{Units: 59, Per: 59 * time.Second}, 60)
	d.lower(0)
	for i := range 3000 {
		cost := []float64{1, 1, 2, 0.125}[i%4]
		d.ask(fmt.Sprintf("s%d", i), cost, false, i%3 == 0)
		if i%2 == 0 {
			d.ask(fmt.Sprintf("s%d", i), 1, false, i%5 == 0)
		}
	}
	d.check()
	for range 3 {
		d.advance(d.q.next)
		d.ask("newcomer", 1, false, true)
		d.check()
	}
	t.Logf("plans read off the order tree: %d; partly: %d; by dry run: %d", d.q.plans.order, d.q.plans.part, d.q.plans.dry)
	if d.q.plans.order == 0 {
		t.Fatal("projectOrder never answered")
	}
}

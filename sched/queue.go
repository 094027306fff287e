package sched

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// callState is where a call is in its life.
type callState uint8

const (
	stateWaiting callState = iota
	stateGranted
	stateCancelled
	stateRefunded
)

// call is one queued request. Its fields after seq are guarded by the
// Scheduler's lock.
type call struct {
	sess    *session
	cost    float64
	arrived time.Time
	seq     uint64

	state   callState
	grant   Grant
	charged time.Duration // the bucket's charged after this call's take
	done    chan struct{} // closed when granted

	// Blocking Wait bookkeeping; see Scheduler.watchLocked.
	blocking bool
	watched  bool
	onQueued func(position int, eta time.Duration)
	deadline time.Time     // zero: none
	notify   chan struct{} // buffered 1: pos, eta or late changed
	pos      int
	eta      time.Time
	late     bool // eta is after deadline
	sentPos  int
	sentEta  time.Time
	widx     int    // index in core.watchList while watched
	mark     uint64 // core.markGen: reported by projectOrder's plan

	// fx is min(cost, K) in 1/1024 units, or -1 if that is not exact
	// (see core.qunits).
	fx int64
	// need and charge are the bucket's need and charge (rounded up) for
	// the call, kept for the order tree's leaf.
	need, charge time.Duration
}

// session is one MCP session's queue and usage.
type session struct {
	id     string
	public bool
	queue  []*call // waiting calls, head first

	used     float64   // units granted, not counted for PublicSession
	lastSeen time.Time // last arrival or grant; usage is forgotten Forget later
	since    time.Time // the head has been waiting since; deadline = since + Per

	// Start-time fair queueing tags of the head call (fair.go).
	fairTags

	// Its place in core.order while it waits (and, through it, in
	// core.tags); -1 otherwise.
	slot int
}

// counters are the cumulative numbers behind Stats.
type counters struct {
	calls     uint64
	units     float64
	totalWait time.Duration
	cancelled uint64
	rejected  uint64
}

// core is the time-explicit scheduler: every method takes the instant it
// acts at, and none blocks or reads a clock. It is not safe for concurrent
// use; Scheduler guards it with a mutex.
type core struct {
	limit         Limit
	platformUnits float64 // Options.PlatformUnits; see declared
	forget        time.Duration
	b             *bucket // the local copy of the platform's bucket

	now       time.Time // latest instant seen; earlier instants count as now
	fairClock           // virtual time; restarts whenever the queue runs empty (fair.go)
	sessions  map[string]*session
	tags      tagHeap   // waiting sessions' slots by tags (fair.go)
	order     orderTree // waiting sessions, longest waiting first (order.go)
	unitMax   int64     // the most one head call charges or needs, ns: max(Per, charge of K)
	scan      bool      // decide by scanning, as for limits too large for the tree; tests set it
	queued    int       // calls in all queues
	seq       uint64    // arrivals
	grants    uint64    // grants, for Grant.Seq
	next      time.Time // earliest instant the next grant can happen; zero if none waits

	watchers  int     // waiting calls with a deadline or an OnQueued callback
	watchList []*call // those calls
	blocking  int     // waiting calls of blocked Wait calls
	lastSweep time.Time
	stats     counters

	// Planning (plan.go).
	qunits   int64      // sum of fx over the queued calls whose fx is exact
	qinexact int        // queued calls whose fx is not
	hits     []planHit  // scratch
	prefix   []*session // scratch
	markGen  uint64
	plans    struct{ order, part, dry int } // how project planned, for tests

	// onGrant, when set, makes this a dry run (see project): grants are
	// reported to it and calls are left untouched.
	onGrant func(c *call, g Grant)
}

func newCore(l Limit, forget time.Duration, platformUnits float64) *core {
	q := &core{
		limit:         l,
		platformUnits: platformUnits,
		forget:        forget,
		sessions:      make(map[string]*session),
	}
	q.b = newBucket(l, q.declared())
	q.limitChanged()
	return q
}

// limitChanged recomputes what depends on the limit: unitMax, the calls'
// fx and the tree's values.
func (q *core) limitChanged() {
	q.unitMax = int64(max(q.limit.Per, q.b.charge(q.declared(), true)))
	q.qunits, q.qinexact = 0, 0
	q.order.each(func(s *session) {
		for _, c := range s.queue {
			q.price(c)
			q.count(c, 1)
		}
	})
	q.rebuild(q.order.live)
}

// setLimit is Scheduler.SetLimitAt on the core.
func (q *core) setLimit(t time.Time, l Limit) {
	t = q.at(t)
	q.limit = l
	q.b.setLimit(t, l, q.declared())
	q.order.each(q.retag)
	q.tags.init(func(slot int) (float64, float64) {
		s := q.order.slots[slot]
		return s.start, s.finish
	})
	q.limitChanged()
	q.advance(t)
}

// price computes what the call's cost means under the present limit.
func (q *core) price(c *call) {
	c.fx = q.fixedUnits(c.cost)
	c.need, c.charge = q.b.need(c.cost), q.b.charge(c.cost, true)
}

// fixedUnits is min(cost, K) in 1/1024 units, or -1 if that is not exact
// or above 2^30 units. While every queued call's is exact, the float sum
// of the queued units that planning uses is exact in any order, and
// incremental sums reproduce it (see projectOrder).
func (q *core) fixedUnits(cost float64) int64 {
	u := min(cost, q.declared()) * 1024
	if u != math.Trunc(u) || u > 1<<40 {
		return -1
	}
	return int64(u)
}

// count adds (sign 1) or removes (sign -1) c from qunits and qinexact.
func (q *core) count(c *call, sign int64) {
	if c.fx < 0 {
		q.qinexact += int(sign)
	} else {
		q.qunits += sign * c.fx
	}
}

// at returns t, or the latest instant seen if t is earlier: time never runs
// backwards inside the scheduler.
func (q *core) at(t time.Time) time.Time {
	if t.Before(q.now) {
		return q.now
	}
	q.now = t
	return t
}

func (q *core) validate(r Request) error {
	switch {
	case r.Session == "":
		return fmt.Errorf("sched: Request.Session is empty")
	case math.IsNaN(r.Cost) || math.IsInf(r.Cost, 0) || r.Cost <= 0:
		return fmt.Errorf("sched: Request.Cost must be a positive finite number, got %v", r.Cost)
	case r.Cost/q.limit.Units*float64(q.limit.Per) >= float64(maxCharge):
		return fmt.Errorf("sched: Request.Cost %v is too large for a limit of %v units per %v", r.Cost, q.limit.Units, q.limit.Per)
	}
	return nil
}

// declared is K, the platform's declared capacity: Options.PlatformUnits,
// and never less than the bucket's own capacity.
func (q *core) declared() float64 {
	return max(q.platformUnits, q.limit.Units)
}

// weight is the session's share weight, K / (K + used).
func (q *core) weight(s *session) float64 {
	if s.public {
		return 1
	}
	k := q.declared()
	return k / (k + s.used)
}

// session returns the session record for id, forgetting its usage if it
// has been idle for Forget.
func (q *core) session(t time.Time, id string) *session {
	s := q.sessions[id]
	if s == nil {
		s = &session{id: id, public: id == PublicSession, slot: -1}
		q.sessions[id] = s
	} else if len(s.queue) == 0 && t.Sub(s.lastSeen) >= q.forget {
		*s = session{id: id, public: s.public, slot: -1}
	}
	return s
}

// sweep drops forgotten sessions, at most four times per Forget.
func (q *core) sweep(t time.Time) {
	if q.onGrant != nil || t.Sub(q.lastSweep) < q.forget/4 {
		return
	}
	q.lastSweep = t
	for id, s := range q.sessions {
		if len(s.queue) == 0 && t.Sub(s.lastSeen) >= q.forget {
			delete(q.sessions, id)
		}
	}
}

// usage returns the units the session id is charged with at t.
func (q *core) usage(t time.Time, id string) float64 {
	s := q.sessions[id]
	if s == nil || (len(s.queue) == 0 && t.Sub(s.lastSeen) >= q.forget) {
		return 0
	}
	return s.used
}

// leaf is s's node in the order tree: its head's charge, and its deadline
// less its head's need.
func (q *core) leaf(s *session) onode {
	h := s.queue[0]
	d := max(q.order.rel(s.since.Add(q.limit.Per)), -maxSum)
	n := min(int64(h.need), farAway)
	return onode{sum: int64(h.charge), slack: d - n, minD: d}
}

// join puts s, just tagged, behind every waiting session.
func (q *core) join(s *session) {
	o := &q.order
	if o.live == 0 {
		o.next, o.front, o.base = 0, 0, q.now
	}
	if o.next == len(o.slots) {
		q.rebuild(o.live + 1)
	}
	s.slot = o.next
	o.next++
	o.slots[s.slot] = s
	o.live++
	o.set(s.slot, q.leaf(s))
	q.tags.push(s.slot, s.start, s.finish)
}

// leave takes s out of the waiting sessions.
func (q *core) leave(s *session) {
	q.tags.remove(s.slot)
	o := &q.order
	o.slots[s.slot] = nil
	o.set(s.slot, emptyNode)
	o.live--
	s.slot = -1
	if o.live == 0 {
		o.next, o.front, o.base = 0, 0, q.now
	}
}

// headChanged follows a change of s's head call or tags while s waits.
func (q *core) headChanged(s *session) {
	q.tags.fix(s.slot, s.start, s.finish)
	q.order.set(s.slot, q.leaf(s))
}

// rebuild compacts the order tree's slots for at least n sessions and
// recomputes it on the present instant: O(slots), after as many joins.
func (q *core) rebuild(n int) {
	o := &q.order
	size := 16
	for size < 2*n {
		size *= 2
	}
	old := o.slots
	slots := make([]*session, size)
	k := 0
	o.each(func(s *session) {
		s.slot = k
		slots[k] = s
		k++
	})
	o.slots, o.next, o.front, o.size, o.base = slots, k, 0, size, q.now
	q.tags.reindex(size, func(i int) int { return old[i].slot })
	if len(o.nodes) != 2*size {
		o.nodes = make([]onode, 2*size)
	}
	for i := range size {
		o.nodes[size+i] = emptyNode
		if i < k {
			o.nodes[size+i] = q.leaf(slots[i])
		}
	}
	for i := size - 1; i >= 1; i-- {
		o.nodes[i] = combine(o.nodes[2*i], o.nodes[2*i+1])
	}
}

// treeUsable reports whether the order tree's values are exact (see the
// magnitudes in order.go), rebuilding it on a new base if the busy
// period has grown too long.
func (q *core) treeUsable() bool {
	if q.scan {
		return false
	}
	if q.now.Sub(q.order.base) >= rebaseAfter {
		q.rebuild(q.order.live)
	}
	return q.unitMax <= maxSum/int64(q.order.live+2)
}

// tagHead gives a session that has just become backlogged its start tag.
func (q *core) tagHead(s *session) {
	q.begin(&s.fairTags)
	q.retag(s)
}

// retag recomputes the head's finish tag after the head changed; the start
// tag, the session's place in virtual time, stays.
func (q *core) retag(s *session) {
	s.tag(s.queue[0].cost, q.weight(s))
}

// enqueue adds a call at t and grants whatever is due.
func (q *core) enqueue(t time.Time, r Request) (*call, error) {
	if err := q.validate(r); err != nil {
		return nil, err
	}
	t = q.at(t)
	q.advance(t)
	s := q.session(t, r.Session)
	q.seq++
	c := &call{sess: s, cost: r.Cost, arrived: t, seq: q.seq, done: make(chan struct{})}
	q.price(c)
	s.lastSeen = t
	switch {
	case len(s.queue) == 0:
		s.queue = append(s.queue, c)
		s.since = t
		q.tagHead(s)
		if q.order.live == 0 && !q.b.readyAt(t, c.cost).After(t) {
			// Nothing else waits and the bucket holds the call: advance
			// would pick s, fairly, and grant it at once. The waiting
			// sessions' structures need not hear of it.
			q.queued++
			q.count(c, 1)
			q.grant(t, s, true)
			q.advance(t)
			return c, nil
		}
		q.join(s)
	case r.Front:
		s.queue = slices.Insert(s.queue, 0, c)
		q.retag(s)
		q.headChanged(s)
	default:
		s.queue = append(s.queue, c)
	}
	q.queued++
	q.count(c, 1)
	q.advance(t)
	return c, nil
}

// advance grants, at t, every call that is due, and sets q.next.
func (q *core) advance(t time.Time) {
	t = q.at(t)
	q.next = time.Time{}
	for q.queued > 0 {
		s, fair := q.pick(t)
		if ready := q.b.readyAt(t, s.queue[0].cost); ready.After(t) {
			q.next = ready
			break
		}
		q.grant(t, s, fair)
	}
	q.sweep(t)
}

// pick chooses the session whose head goes next: the smallest start tag
// (fair), unless serving it first would make some waiting session miss its
// deadline; then the session that has waited longest.
func (q *core) pick(t time.Time) (s *session, fair bool) {
	w := q.order.first()
	b := q.order.slots[q.tags.min()]
	if b == w || q.meets(t, b) {
		return b, true
	}
	return w, false
}

// meets reports whether, with first served first and then every other
// waiting session's head in order of waiting time, each session would get
// its call by its deadline (since + Per), assuming no new arrivals.
//
// Served back to back from t, the i-th call of that plan goes at
//
//	x_i = max(x0, E0 + S_i + need_i)
//
// where x0 is t or the end of a pause, E0 the instant the bucket is empty
// capped to x0 − Per, S_i the charges of the calls before it, and need_i
// what it needs in the bucket: readyAt is max(x_{i−1}, E_{i−1} + need_i),
// and as no need exceeds its own charge nor Per, the cap never applies
// after the first call and the latest term of the max is the last one. So
// each session meets its deadline D_i iff x0 ≤ D_i and E0 + S_i ≤
// D_i − need_i, and the order tree keeps the minima of those right-hand
// sides over runs of sessions: O(log n) instead of a simulation over all.
func (q *core) meets(t time.Time, first *session) bool {
	if !q.treeUsable() {
		return q.meetsScan(t, first)
	}
	o := &q.order
	x0t := q.b.at(t)
	if o.rel(x0t) > o.nodes[1].minD {
		return false
	}
	e := q.b.empty
	if lo := x0t.Add(-q.limit.Per); e.Before(lo) {
		e = lo
	}
	e0 := o.rel(e)
	f := o.nodes[o.size+first.slot]
	if e0 > f.slack {
		return false
	}
	// The sessions before first are served after it, the ones after it
	// as in order.
	l := o.query(0, first.slot)
	if l.slack != inf && e0+f.sum > l.slack {
		return false
	}
	r := o.query(first.slot+1, o.size)
	return r.slack == inf || e0+l.sum+f.sum <= r.slack
}

// meetsScan is meets by simulation, for limits whose window is too long
// for the tree's arithmetic.
func (q *core) meetsScan(t time.Time, first *session) bool {
	p := q.b.snapshot()
	ok := func(s *session) bool {
		x := p.serve(t, s.queue[0].cost)
		t = x
		return !x.After(s.since.Add(q.limit.Per))
	}
	if !ok(first) {
		return false
	}
	o := &q.order
	for _, s := range o.slots[o.front:o.next] {
		if s != nil && s != first && !ok(s) {
			return false
		}
	}
	return true
}

// grant gives s's head call the bucket at t.
func (q *core) grant(t time.Time, s *session, fair bool) {
	c := s.queue[0]
	s.queue[0] = nil
	s.queue = s.queue[1:]
	q.queued--
	q.b.take(t, c.cost)
	c.charged = q.b.charged
	q.served(&s.fairTags, fair)
	if !s.public {
		s.used += c.cost
	}
	s.lastSeen = t
	q.count(c, -1)
	if s.slot >= 0 {
		q.leave(s)
	}
	if len(s.queue) > 0 {
		s.since = t
		q.again(&s.fairTags)
		q.retag(s)
		q.join(s)
	} else {
		s.queue = nil
	}
	q.idle()
	q.grants++
	g := Grant{At: t, Queued: t.Sub(c.arrived), Seq: q.grants}
	if q.onGrant != nil {
		q.onGrant(c, g)
		return
	}
	c.state, c.grant = stateGranted, g
	q.unwatch(c)
	close(c.done)
	q.stats.calls++
	q.stats.units += c.cost
	q.stats.totalWait += g.Queued
}

// idle restarts virtual time when nothing waits: every session that comes
// back then starts level, with only its usage to tell it apart.
func (q *core) idle() {
	if q.queued == 0 {
		q.restart()
	}
}

func (q *core) unwatch(c *call) {
	if c.watched {
		c.watched = false
		q.watchers--
		last := q.watchList[len(q.watchList)-1]
		q.watchList[c.widx], last.widx = last, c.widx
		q.watchList[len(q.watchList)-1] = nil
		q.watchList = q.watchList[:len(q.watchList)-1]
	}
	if c.blocking {
		c.blocking = false
		q.blocking--
	}
}

// cancel withdraws c at t. A waiting call leaves its queue; a granted call
// is refunded if refund is set (its grant was never used). It reports
// whether c had been granted.
func (q *core) cancel(t time.Time, c *call, refund bool) (wasGranted bool) {
	t = q.at(t)
	switch c.state {
	case stateWaiting:
		s := c.sess
		i := slices.Index(s.queue, c)
		s.queue = slices.Delete(s.queue, i, i+1)
		q.queued--
		q.count(c, -1)
		switch {
		case len(s.queue) == 0:
			s.queue = nil
			q.leave(s)
		case i == 0:
			q.retag(s)
			q.headChanged(s)
		}
		c.state = stateCancelled
		q.unwatch(c)
		q.stats.cancelled++
		q.idle()
	case stateGranted:
		if refund {
			q.b.refund(t, c.cost, c.charged)
			if !c.sess.public {
				c.sess.used = max(0, c.sess.used-c.cost)
			}
			c.state = stateRefunded
			q.stats.calls--
			q.stats.units -= c.cost
			q.stats.totalWait -= c.grant.Queued
			q.stats.cancelled++
		}
		wasGranted = true
	}
	q.advance(t)
	return wasGranted
}

// watch marks c, waiting for a blocked Wait, as planned for.
func (q *core) watch(c *call) {
	c.watched = true
	q.watchers++
	c.widx = len(q.watchList)
	q.watchList = append(q.watchList, c)
}

package sched

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// The reference: package sched's core as it was before issue 19, when
// picking the next session scanned every waiting session and planning
// cloned the whole queue. It is kept, verbatim but for its names, as the
// oracle of the differential test (differential_test.go): the heap of
// start tags, the deadline tree and the incremental planning must make
// exactly its decisions.

// refCall is the reference's call. Its fields after seq are guarded by the
// Scheduler's lock.
type refCall struct {
	sess    *refSession
	cost    float64
	arrived time.Time
	seq     uint64
	charged time.Duration // the bucket's charged after this call's take

	state callState
	grant Grant
	done  chan struct{} // closed when granted

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
}

// refSession is the reference's session.
type refSession struct {
	id     string
	public bool
	queue  []*refCall // waiting calls, head first

	used     float64   // units granted, not counted for PublicSession
	lastSeen time.Time // last arrival or grant; usage is forgotten Forget later
	since    time.Time // the head has been waiting since; deadline = since + Per

	// Start-time fair queueing tags of the head call, in virtual units.
	start, finish float64
	lastFinish    float64 // finish tag of the last grant
	epoch         uint64  // lastFinish is stale unless epoch == refCore.epoch
}

// refCore is the time-explicit scheduler as it was before issue 19: every method takes the instant it
// acts at, and none blocks or reads a clock. It is not safe for concurrent
// use; Scheduler guards it with a mutex.
type refCore struct {
	limit         Limit
	platformUnits float64 // Options.PlatformUnits; see declared
	forget        time.Duration
	b             *bucket // the local copy of the platform's bucket

	now      time.Time // latest instant seen; earlier instants count as now
	vt       float64   // virtual time: start tag of the last fair grant
	epoch    uint64    // bumped whenever the queue runs empty
	sessions map[string]*refSession
	waiting  []*refSession // sessions with queued calls, longest waiting first
	queued   int           // calls in all queues
	seq      uint64        // arrivals
	grants   uint64        // grants, for Grant.Seq
	next     time.Time     // earliest instant the next grant can happen; zero if none waits

	watchers  int // waiting calls with a deadline or an OnQueued callback
	blocking  int // waiting calls of blocked Wait calls
	lastSweep time.Time
	stats     counters

	// onGrant, when set, makes this a dry run (see project): grants are
	// reported to it and calls are left untouched.
	onGrant func(c *refCall, g Grant)
}

func newRefCore(l Limit, forget time.Duration, platformUnits float64) *refCore {
	q := &refCore{
		limit:         l,
		platformUnits: platformUnits,
		forget:        forget,
		sessions:      make(map[string]*refSession),
	}
	q.b = newBucket(l, q.declared())
	return q
}

// at returns t, or the latest instant seen if t is earlier: time never runs
// backwards inside the scheduler.
func (q *refCore) at(t time.Time) time.Time {
	if t.Before(q.now) {
		return q.now
	}
	q.now = t
	return t
}

func (q *refCore) validate(r Request) error {
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
func (q *refCore) declared() float64 {
	return max(q.platformUnits, q.limit.Units)
}

// weight is the session's share weight, K / (K + used).
func (q *refCore) weight(s *refSession) float64 {
	if s.public {
		return 1
	}
	k := q.declared()
	return k / (k + s.used)
}

// session returns the session record for id, forgetting its usage if it
// has been idle for Forget.
func (q *refCore) session(t time.Time, id string) *refSession {
	s := q.sessions[id]
	if s == nil {
		s = &refSession{id: id, public: id == PublicSession}
		q.sessions[id] = s
	} else if len(s.queue) == 0 && t.Sub(s.lastSeen) >= q.forget {
		*s = refSession{id: id, public: s.public}
	}
	return s
}

// sweep drops forgotten sessions, at most four times per Forget.
func (q *refCore) sweep(t time.Time) {
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
func (q *refCore) usage(t time.Time, id string) float64 {
	s := q.sessions[id]
	if s == nil || (len(s.queue) == 0 && t.Sub(s.lastSeen) >= q.forget) {
		return 0
	}
	return s.used
}

// tagHead gives a session that has just become backlogged its start tag.
func (q *refCore) tagHead(s *refSession) {
	if s.epoch != q.epoch {
		s.lastFinish, s.epoch = 0, q.epoch
	}
	s.start = max(q.vt, s.lastFinish)
	q.retag(s)
}

// retag recomputes the head's finish tag after the head changed; the start
// tag, the session's place in virtual time, stays.
func (q *refCore) retag(s *refSession) {
	s.finish = s.start + s.queue[0].cost/q.weight(s)
}

// enqueue adds a call at t and grants whatever is due.
func (q *refCore) enqueue(t time.Time, r Request) (*refCall, error) {
	if err := q.validate(r); err != nil {
		return nil, err
	}
	t = q.at(t)
	q.advance(t)
	s := q.session(t, r.Session)
	q.seq++
	c := &refCall{sess: s, cost: r.Cost, arrived: t, seq: q.seq, done: make(chan struct{})}
	s.lastSeen = t
	switch {
	case len(s.queue) == 0:
		s.queue = append(s.queue, c)
		s.since = t
		q.tagHead(s)
		q.waiting = append(q.waiting, s)
	case r.Front:
		s.queue = slices.Insert(s.queue, 0, c)
		q.retag(s)
	default:
		s.queue = append(s.queue, c)
	}
	q.queued++
	q.advance(t)
	return c, nil
}

// advance grants, at t, every call that is due, and sets q.next.
func (q *refCore) advance(t time.Time) {
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
func (q *refCore) pick(t time.Time) (s *refSession, fair bool) {
	b := q.waiting[0]
	for _, s := range q.waiting[1:] {
		if s.start < b.start || s.start == b.start && s.finish < b.finish {
			b = s
		}
	}
	if b == q.waiting[0] || q.meets(t, b) {
		return b, true
	}
	return q.waiting[0], false
}

// meets reports whether, with first served first and then every other
// waiting session's head in order of waiting time, each session would get
// its call by its deadline (since + Per), assuming no new arrivals.
func (q *refCore) meets(t time.Time, first *refSession) bool {
	p := q.b.snapshot()
	ok := func(s *refSession) bool {
		x := p.serve(t, s.queue[0].cost)
		t = x
		return !x.After(s.since.Add(q.limit.Per))
	}
	if !ok(first) {
		return false
	}
	for _, s := range q.waiting {
		if s != first && !ok(s) {
			return false
		}
	}
	return true
}

// grant gives s's head call the bucket at t.
func (q *refCore) grant(t time.Time, s *refSession, fair bool) {
	c := s.queue[0]
	s.queue[0] = nil
	s.queue = s.queue[1:]
	q.queued--
	q.b.take(t, c.cost)
	c.charged = q.b.charged
	if fair {
		q.vt = max(q.vt, s.start)
	}
	s.lastFinish = s.finish
	if !s.public {
		s.used += c.cost
	}
	s.lastSeen = t
	q.waiting = slices.DeleteFunc(q.waiting, func(x *refSession) bool { return x == s })
	if len(s.queue) > 0 {
		s.since = t
		s.start = max(q.vt, s.lastFinish)
		q.retag(s)
		q.waiting = append(q.waiting, s)
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
func (q *refCore) idle() {
	if q.queued == 0 {
		q.epoch++
		q.vt = 0
	}
}

func (q *refCore) unwatch(c *refCall) {
	if c.watched {
		c.watched = false
		q.watchers--
	}
	if c.blocking {
		c.blocking = false
		q.blocking--
	}
}

// cancel withdraws c at t. A waiting call leaves its queue; a granted call
// is refunded if refund is set (its grant was never used). It reports
// whether c had been granted.
func (q *refCore) cancel(t time.Time, c *refCall, refund bool) (wasGranted bool) {
	t = q.at(t)
	switch c.state {
	case stateWaiting:
		s := c.sess
		i := slices.Index(s.queue, c)
		s.queue = slices.Delete(s.queue, i, i+1)
		q.queued--
		switch {
		case len(s.queue) == 0:
			s.queue = nil
			q.waiting = slices.DeleteFunc(q.waiting, func(x *refSession) bool { return x == s })
		case i == 0:
			q.retag(s)
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

// project plans the queue from t assuming no new arrivals, and reports for
// every waiting call for which want returns true its position (1 = next)
// and expected grant instant.
func (q *refCore) project(t time.Time, want func(*refCall) bool, report func(c *refCall, pos int, eta time.Time)) {
	n := 0
	for _, s := range q.waiting {
		for _, c := range s.queue {
			if want(c) {
				n++
			}
		}
	}
	if n == 0 {
		return
	}
	snap := q.b.snapshot()
	d := &refCore{
		limit: q.limit, platformUnits: q.platformUnits, forget: q.forget, b: &snap,
		now: q.now, vt: q.vt, epoch: q.epoch,
		queued: q.queued, grants: q.grants,
	}
	for _, s := range q.waiting {
		cp := *s
		cp.queue = slices.Clone(s.queue)
		d.waiting = append(d.waiting, &cp)
	}
	pos := 0
	d.onGrant = func(c *refCall, g Grant) {
		pos++
		if want(c) {
			report(c, pos, g.At)
			n--
		}
	}
	at := q.at(t)
	for pos < planLimit && n > 0 && d.queued > 0 {
		d.advance(at)
		at = d.next
	}
	if n == 0 || d.queued == 0 {
		return
	}
	// Too deep to plan: assume everything still queued goes first, each
	// call charged what the bucket charges it.
	units := 0.0
	for _, s := range d.waiting {
		for _, c := range s.queue {
			units += min(c.cost, q.declared())
		}
	}
	eta := at.Add(q.limit.unitDur(units, true))
	for _, s := range d.waiting {
		for _, c := range s.queue {
			if want(c) {
				report(c, pos+d.queued, eta)
			}
		}
	}
}

package sched

import (
	"slices"
	"time"
)

// MaxPlan bounds a projection: beyond this many grants ahead, the calls
// still queued are assumed to come after every other queued unit. The
// cluster's Lua port of the policy (package sched/schedlua) is given this
// value rather than a copy of it.
const MaxPlan = 2048

// planLimit is MaxPlan; the differential test lowers it to reach the
// plan's tail with small queues.
var planLimit = MaxPlan

// project plans the queue from t assuming no new arrivals, and reports for
// every watched call (core.watchList) its position (1 = next) and expected
// grant instant.
//
// The plan is the one a dry run of the scheduler makes (projectDry), up
// to MaxPlan grants ahead. When the queue is longer than a window can
// serve, the plan's first grants are the waiting sessions' heads in the
// order they started waiting, and projectOrder reads that part of the plan
// off the order tree instead of simulating it.
func (q *core) project(t time.Time, report func(c *call, pos int, eta time.Time)) {
	if len(q.watchList) == 0 || q.queued == 0 {
		return
	}
	at := q.at(t)
	if q.projectOrder(at, report) {
		return
	}
	q.plans.dry++
	q.projectDry(q.dryCopy(), at, 0, len(q.watchList), report)
}

// projectDry plans by a dry run on d, a copy of the waiting sessions
// after pos grants of the plan, n watched calls still to report: O(log n)
// per grant planned, after O(n) to copy them.
func (q *core) projectDry(d *core, at time.Time, pos, n int, report func(c *call, pos int, eta time.Time)) {
	d.onGrant = func(c *call, g Grant) {
		pos++
		if c.watched {
			report(c, pos, g.At)
			n--
		}
	}
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
	d.order.each(func(s *session) {
		for _, c := range s.queue {
			units += min(c.cost, q.declared())
		}
	})
	eta := at.Add(q.limit.unitDur(units, true))
	d.order.each(func(s *session) {
		for _, c := range s.queue {
			if c.watched {
				report(c, pos+d.queued, eta)
			}
		}
	})
}

// dryCopy returns a copy of q to plan on. The waiting sessions and their
// queues are copied; the calls are shared, and the copy's grants leave
// them untouched (onGrant).
func (q *core) dryCopy() *core {
	snap := q.b.snapshot()
	d := &core{
		limit: q.limit, platformUnits: q.platformUnits, forget: q.forget, b: &snap,
		now: q.now, fairClock: q.fairClock, queued: q.queued, grants: q.grants,
		unitMax: q.unitMax, scan: q.scan,
	}
	d.tags = q.tags.clone()
	o := &q.order
	d.order = orderTree{
		slots: make([]*session, len(o.slots)), next: o.next, front: o.front, live: o.live,
		size: o.size, nodes: slices.Clone(o.nodes), base: o.base,
	}
	// Two allocations, not one per session and one per queue: the copies
	// live in one slice and their queues in another (each capped, and a
	// dry run only takes from the front).
	copies := make([]session, len(d.tags.a))
	calls := make([]*call, 0, q.queued)
	for i := range d.tags.a {
		cp := &copies[i]
		*cp = *o.slots[d.tags.a[i].slot]
		k := len(calls)
		calls = append(calls, cp.queue...)
		cp.queue = calls[k:len(calls):len(calls)]
		d.order.slots[cp.slot] = cp
	}
	return d
}

// planHit is a watched call that projectOrder found in the plan.
type planHit struct {
	c   *call
	pos int
	x   int64 // its expected grant, relative to the order tree's base
}

// projectOrder reports what projectDry would, without a dry run, when the
// plan's part that matters is served in order of waiting; it returns false,
// having reported nothing, when it cannot tell.
//
// The plan serves the session that has waited longest whenever serving the
// fair choice first would make a session miss its deadline (pick). If two
// sessions miss their deadlines even when every waiting session is served
// in order of waiting, each session before the first of them is served in
// that order: whichever session is the fair choice, at least one of the
// two is not it and, served after it, misses all the more; and as the
// plan serves the sessions before them, those two stay as late as they
// were (the plan's charges before each stay the same). Those grants go at
// max(x0, E0 + charges before + need) (see meets), one per instant once
// the bucket is empty. So the plan up to the first of the two is a prefix
// sum over the order of waiting: O(sessions planned for + watched calls),
// with no copy of the queue and no simulation.
//
// The plan's tail, when it stops at MaxPlan, is estimated from the units
// still queued; projectOrder knows them exactly while every queued call's
// units are a multiple of 1/1024 (core.qunits), when the dry run's float
// sum is exact too.
func (q *core) projectOrder(at time.Time, report func(c *call, pos int, eta time.Time)) bool {
	if !q.treeUsable() {
		return false
	}
	o := &q.order
	x0t := q.b.at(at)
	x0 := o.rel(x0t)
	if x0 >= farAway {
		return false
	}
	e := q.b.empty
	if lo := x0t.Add(-q.limit.Per); e.Before(lo) {
		e = lo
	}
	e0 := o.rel(e)
	late := o.lastBelow(e0, o.next)
	if late < 0 {
		return false
	}
	late = o.lastBelow(e0, late)
	if late < 0 {
		return false
	}
	// Sweep the sessions before the first of the two, in order.
	n := len(q.watchList)
	hits, prefix := q.hits[:0], q.prefix[:0]
	var (
		sum      int64 // charges before the session at hand
		pos      int   // its position in the plan
		units    int64 // fx of the heads planned
		lastE    int64 // E0 + charges before + need of the MaxPlan-th
		nextX    int64 // grant of the one after the MaxPlan-th
		planFull bool  // the sweep reached position MaxPlan + 1
	)
	for i := o.front; i < late && len(hits) < n; i++ {
		s := o.slots[i]
		if s == nil {
			continue
		}
		pos++
		lf := o.nodes[o.size+i]
		eNeed := e0 + sum + (lf.minD - lf.slack)
		if pos > planLimit {
			nextX, planFull = max(x0, eNeed), true
			break
		}
		if h := s.queue[0]; h.watched {
			hits = append(hits, planHit{h, pos, max(x0, eNeed)})
		}
		units += s.queue[0].fx
		lastE = eNeed
		sum += lf.sum
		prefix = append(prefix, s)
	}
	q.hits, q.prefix = hits[:0], prefix[:0]
	if len(hits) == n {
		q.plans.order++
		for _, h := range hits {
			report(h.c, h.pos, o.base.Add(time.Duration(h.x)))
		}
		return true
	}
	if !planFull {
		// The plan goes on past the certain part: dry-run only the rest
		// (which starts with a check of the plan limit after the prefix's
		// last grant, as projectDry's loop does after every instant).
		if len(prefix) == 0 || len(prefix) >= planLimit {
			return false
		}
		q.plans.part++
		for _, h := range hits {
			report(h.c, h.pos, o.base.Add(time.Duration(h.x)))
		}
		d, at := q.dryAfter(prefix, late, x0, e0)
		q.projectDry(d, at, len(prefix), n-len(hits), report)
		clear(prefix)
		return true
	}
	// Some watched call is not among the first MaxPlan heads: the plan
	// stops at MaxPlan, which must lie in the certain part, after the
	// grants the bucket's content allows at once (one instant each from
	// there), with exact units for the tail.
	if lastE <= x0 || q.qinexact > 0 || q.qunits > 1<<53 {
		return false
	}
	q.plans.order++
	q.markGen++
	for _, h := range hits {
		h.c.mark = q.markGen
		report(h.c, h.pos, o.base.Add(time.Duration(h.x)))
	}
	tail := float64(q.qunits-units) / 1024
	eta := o.base.Add(time.Duration(nextX)).Add(q.limit.unitDur(tail, true))
	for _, c := range q.watchList {
		if c.mark != q.markGen {
			report(c, q.queued, eta)
		}
	}
	return true
}

// dryAfter returns a copy of the waiting sessions as the plan leaves them
// after serving prefix, the sessions before slot late, in order of waiting
// (projectOrder's certain part), and the instant of the last of those
// grants. It does what those grants do (grant): the bucket is charged,
// virtual time follows the grants that were the fair choice, and a
// session with more calls waits again, behind everyone, with its next
// call. O(n), with no simulation of the prefix.
func (q *core) dryAfter(prefix []*session, late int, x0, e0 int64) (*core, time.Time) {
	o := &q.order
	snap := q.b.snapshot()
	d := &core{
		limit: q.limit, platformUnits: q.platformUnits, forget: q.forget, b: &snap,
		now: q.now, fairClock: q.fairClock, queued: q.queued - len(prefix), grants: q.grants + uint64(len(prefix)),
		unitMax: q.unitMax, scan: q.scan,
	}
	// A prefix grant was the fair choice if its session came first by tag
	// among the sessions then waiting: the prefix's later sessions, the
	// rest, and the sessions waiting again after an earlier grant.
	var restMin *session
	for _, s := range o.slots[late:o.next] {
		if s != nil {
			if restMin == nil || tagLess(s, restMin) {
				restMin = s
			}
			cp := *s
			cp.queue = slices.Clone(s.queue)
			d.join(&cp)
		}
	}
	after := make([]*session, len(prefix)) // after[j]: the smallest of prefix[j+1:] and the rest
	m := restMin
	for j := len(prefix) - 1; j >= 0; j-- {
		after[j] = m
		if m == nil || tagLess(prefix[j], m) {
			m = prefix[j]
		}
	}
	// The smallest tags of the sessions waiting again: they wait behind
	// every prefix session, so a prefix session with the same tags goes
	// first.
	again, againStart, againFinish := false, 0.0, 0.0
	sum := int64(0)
	x := int64(0)
	for j, s := range prefix {
		lf := o.nodes[o.size+s.slot]
		x = max(x0, e0+sum+(lf.minD-lf.slack))
		sum += lf.sum
		h := s.queue[0]
		fair := (after[j] == nil || tagLess(s, after[j])) &&
			(!again || s.start < againStart || s.start == againStart && s.finish <= againFinish)
		tags := s.fairTags // the grant's effect on the copy, not on s
		d.served(&tags, fair)
		if len(s.queue) == 1 {
			continue
		}
		cp := *s
		cp.fairTags = tags
		cp.queue = slices.Clone(s.queue[1:])
		if !cp.public {
			cp.used += h.cost
		}
		cp.since = o.base.Add(time.Duration(x))
		d.again(&cp.fairTags)
		d.retag(&cp)
		if !again || cp.start < againStart || cp.start == againStart && cp.finish < againFinish {
			again, againStart, againFinish = true, cp.start, cp.finish
		}
		d.join(&cp)
	}
	snap.empty = o.base.Add(time.Duration(e0 + sum))
	return d, o.base.Add(time.Duration(x))
}

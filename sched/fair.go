package sched

import "slices"

// Start-time fair queueing (Goyal, Vin and Cheng, 1996), written once.
// The rules live here: a session's tags (fairTags), virtual time
// (fairClock) and the order of the waiting sessions by their tags
// (tagHeap). Two queues are built on them. The Scheduler's core
// (queue.go) adds the token bucket and the longest-waiting-first guard;
// FairQueue adds nothing but a queue per session, for places that free up
// one at a time (the host's instance admission), so that a connector's
// instances are shared by the very rules that share its platform.
// schedlua's sched.lua ports the same rules for Redis, where Go cannot
// run; its differential test holds it to the core.

// fairClock is virtual time V and the busy period it belongs to: V is the
// start tag of the latest fair grant, and epoch counts the restarts, so a
// finish tag from an earlier busy period is known stale without visiting
// every session at each restart.
type fairClock struct {
	vt    float64
	epoch uint64
}

// fairTags are one session's tags. The start tag is its place in virtual
// time while it waits; the finish tag is start + cost/weight of its head;
// lastFinish, of its latest grant, is where its next wait starts.
type fairTags struct {
	start, finish float64
	lastFinish    float64
	epoch         uint64 // lastFinish is stale unless epoch == fairClock.epoch
}

// begin gives a session that starts waiting its start tag, max(V, F):
// a newcomer starts level with the front, a session that was just served
// behind it.
func (c *fairClock) begin(s *fairTags) {
	if s.epoch != c.epoch {
		s.lastFinish, s.epoch = 0, c.epoch
	}
	s.start = max(c.vt, s.lastFinish)
}

// again is begin for a session served a moment ago that still waits: its
// lastFinish is of this busy period.
func (c *fairClock) again(s *fairTags) { s.start = max(c.vt, s.lastFinish) }

// tag sets the head's finish tag; the weight is taken when the call
// becomes the head, and a call's cost counts 1/weight times.
func (s *fairTags) tag(cost, weight float64) { s.finish = s.start + cost/weight }

// served records a grant to s. Only a fair grant (the smallest tags)
// moves virtual time: a grant out of turn (the core's deadline guard) must
// not advance the others' start.
func (c *fairClock) served(s *fairTags, fair bool) {
	if fair {
		c.vt = max(c.vt, s.start)
	}
	s.lastFinish = s.finish
}

// restart begins a new busy period: virtual time and every tag go back to
// zero, so that a session coming back is told apart only by its weight.
func (c *fairClock) restart() {
	c.epoch++
	c.vt = 0
}

// tagEntry is a waiting session in the heap by its slot, with the keys it
// is ordered by copied in: a sift compares entries without visiting the
// sessions, which at 10,000 waiting sessions are mostly out of the cache.
type tagEntry struct {
	start, finish float64
	slot          int
}

// entryLess orders sessions for the fair choice: the smallest start tag,
// then the smallest finish tag, then the one waiting longest (the smaller
// slot: slots are given in the order sessions start waiting).
func entryLess(a, b *tagEntry) bool {
	if a.start != b.start {
		return a.start < b.start
	}
	if a.finish != b.finish {
		return a.finish < b.finish
	}
	return a.slot < b.slot
}

// tagHeap is a binary min-heap of the waiting sessions, by entryLess,
// known by their slots: O(1) for the fair choice, O(log n) to keep. pos
// holds each entry's index by slot.
type tagHeap struct {
	a   []tagEntry
	pos []int
}

// min returns the slot of the fair choice.
func (h *tagHeap) min() int { return h.a[0].slot }

// push adds the session in slot with its tags.
func (h *tagHeap) push(slot int, start, finish float64) {
	if slot >= len(h.pos) {
		h.pos = append(h.pos, make([]int, slot+1-len(h.pos))...)
	}
	h.a = append(h.a, tagEntry{start, finish, slot})
	i := len(h.a) - 1
	h.pos[slot] = i
	h.up(i)
}

// remove takes the session in slot out.
func (h *tagHeap) remove(slot int) {
	i, last := h.pos[slot], len(h.a)-1
	if i != last {
		h.a[i] = h.a[last]
		h.pos[h.a[i].slot] = i
	}
	h.a[last] = tagEntry{}
	h.a = h.a[:last]
	if i != last {
		h.fixAt(i)
	}
}

// fix restores the heap after the tags of the session in slot changed.
func (h *tagHeap) fix(slot int, start, finish float64) {
	i := h.pos[slot]
	h.a[i].start, h.a[i].finish = start, finish
	h.fixAt(i)
}

func (h *tagHeap) fixAt(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h *tagHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !entryLess(&h.a[i], &h.a[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *tagHeap) down(i0 int) bool {
	i, n := i0, len(h.a)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && entryLess(&h.a[r], &h.a[l]) {
			m = r
		}
		if !entryLess(&h.a[m], &h.a[i]) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > i0
}

func (h *tagHeap) swap(i, j int) {
	h.a[i], h.a[j] = h.a[j], h.a[i]
	h.pos[h.a[i].slot], h.pos[h.a[j].slot] = i, j
}

// reindex follows a renumbering of the slots that keeps their order, and
// so the heap's: newSlot maps an entry's old slot to its new one, and n is
// the number of slots.
func (h *tagHeap) reindex(n int, newSlot func(old int) int) {
	if len(h.pos) < n {
		h.pos = make([]int, n)
	}
	for i := range h.a {
		h.a[i].slot = newSlot(h.a[i].slot)
		h.pos[h.a[i].slot] = i
	}
}

// init restores the heap after every session's tags changed; tags gives
// them by slot.
func (h *tagHeap) init(tags func(slot int) (start, finish float64)) {
	for i := range h.a {
		h.a[i].start, h.a[i].finish = tags(h.a[i].slot)
	}
	for i := len(h.a)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// clone returns an independent copy, for a dry run.
func (h *tagHeap) clone() tagHeap {
	return tagHeap{a: slices.Clone(h.a), pos: slices.Clone(h.pos)}
}

// FairQueue is start-time fair queueing with nothing added: items wait in
// their session's queue, in the order they were pushed, and [FairQueue.Pop]
// takes the head of the session with the smallest tags, by the rules and
// order the [Scheduler] uses (see the package doc, "What fair means"):
// each item advances its session's tag by cost/weight, the weight read
// from the weight function when the item becomes its session's head.
// Sessions that keep items waiting therefore get pops in proportion to
// their weights. It knows no time and no capacity: its owner pops when a
// place frees up, as the host's instance admission does with a
// connector's instances, weighted by the schedulers' own weights.
//
// Virtual time restarts only when the owner says so ([FairQueue.Restart]):
// an item popped is still in use, and a session holding places must keep
// its place behind a newcomer until every place is free again.
//
// A FairQueue is not safe for concurrent use; its owner locks.
type FairQueue[T comparable] struct {
	weight   func(session string) float64
	clock    fairClock
	sessions map[string]*fairSession[T]
	tags     tagHeap
	slots    []*fairSession[T] // waiting sessions by slot, in the order they started waiting; nil: free
	next     int               // the next slot to give
	live     int               // waiting sessions
	waiting  int               // waiting items
}

// fairSession is one session's tags and waiting items.
type fairSession[T comparable] struct {
	id string
	fairTags
	queue []fairItem[T]
	slot  int // in FairQueue.slots while it waits; -1 otherwise
}

// fairItem is a waiting item and what it costs.
type fairItem[T comparable] struct {
	item T
	cost float64
}

// NewFairQueue returns an empty queue. weight gives a session's weight in
// (0, 1] (see [Scheduler.WeightAt]); nil weighs every session 1, and a
// weight that is not positive counts as a tiny one, so that a tag stays
// finite.
func NewFairQueue[T comparable](weight func(session string) float64) *FairQueue[T] {
	return &FairQueue[T]{weight: weight, sessions: map[string]*fairSession[T]{}}
}

func (q *FairQueue[T]) weightOf(session string) float64 {
	if q.weight == nil {
		return 1
	}
	if w := q.weight(session); w > 0 {
		return w
	}
	return 1e-9
}

// Push queues item, costing cost (> 0), behind session's other items.
func (q *FairQueue[T]) Push(session string, item T, cost float64) {
	s := q.session(session)
	s.queue = append(s.queue, fairItem[T]{item, cost})
	q.waiting++
	if len(s.queue) == 1 {
		q.clock.begin(&s.fairTags)
		s.tag(cost, q.weightOf(session))
		q.join(s)
	}
}

// Serve records an item of session, costing cost, served the instant it
// arrives, when nothing waits: what Push and then Pop would do, without
// queueing it (the Scheduler's core takes the same shortcut). It does
// nothing and reports false when items wait, since Pop would then take
// the fair choice, not this item.
func (q *FairQueue[T]) Serve(session string, cost float64) bool {
	if q.waiting > 0 {
		return false
	}
	s := q.session(session)
	q.clock.begin(&s.fairTags)
	s.tag(cost, q.weightOf(session))
	q.clock.served(&s.fairTags, true)
	return true
}

// session returns session's record, made if it has none.
func (q *FairQueue[T]) session(id string) *fairSession[T] {
	s := q.sessions[id]
	if s == nil {
		s = &fairSession[T]{id: id, slot: -1}
		q.sessions[id] = s
	}
	return s
}

// Pop takes the next item: the head of the waiting session with the
// smallest start tag (ties: the smaller finish tag, then the session that
// started waiting first). ok is false when nothing waits.
func (q *FairQueue[T]) Pop() (session string, item T, ok bool) {
	if q.waiting == 0 {
		return "", item, false
	}
	s := q.slots[q.tags.min()]
	head := s.queue[0]
	s.queue[0] = fairItem[T]{}
	s.queue = s.queue[1:]
	q.waiting--
	q.clock.served(&s.fairTags, true)
	q.leave(s)
	session = s.id
	if len(s.queue) > 0 {
		// Served, it waits again behind every waiting session, its next
		// item tagged from where this one finished.
		q.clock.again(&s.fairTags)
		s.tag(s.queue[0].cost, q.weightOf(session))
		q.join(s)
	} else {
		s.queue = nil
	}
	return session, head.item, true
}

// Remove takes item out of session's queue, wherever it is; it reports
// whether item waited there. The session keeps its start tag: leaving
// the queue is not being served.
func (q *FairQueue[T]) Remove(session string, item T) bool {
	s := q.sessions[session]
	if s == nil {
		return false
	}
	i := slices.IndexFunc(s.queue, func(x fairItem[T]) bool { return x.item == item })
	if i < 0 {
		return false
	}
	s.queue = slices.Delete(s.queue, i, i+1)
	q.waiting--
	switch {
	case len(s.queue) == 0:
		s.queue = nil
		q.leave(s)
	case i == 0:
		s.tag(s.queue[0].cost, q.weightOf(session))
		q.tags.fix(s.slot, s.start, s.finish)
	}
	return true
}

// Len returns the number of waiting items.
func (q *FairQueue[T]) Len() int { return q.waiting }

// Forget drops session's tags if nothing of it waits and its next start
// tag would be virtual time anyway: an owner calls it when the session
// holds nothing any more, so that the sessions it keeps are those that
// still have a place in virtual time.
func (q *FairQueue[T]) Forget(session string) {
	s := q.sessions[session]
	if s != nil && len(s.queue) == 0 && (s.epoch != q.clock.epoch || s.lastFinish <= q.clock.vt) {
		delete(q.sessions, session)
	}
}

// Restart begins a new busy period when nothing waits: virtual time and
// every session's tags go back to zero. The owner calls it when nothing
// it popped is still in use either (the Scheduler restarts when nothing
// waits, because its grants are spent at once; an instance is held).
func (q *FairQueue[T]) Restart() {
	if q.waiting > 0 {
		return
	}
	q.clock.restart()
	if len(q.sessions) > fairKept {
		clear(q.sessions)
	}
}

// fairKept is how many sessions' records a restart keeps: the restart
// makes their tags stale (the epoch) without visiting them, and a session
// that comes back, as the lone session taking and freeing an instance
// does at every call, reuses its record instead of making one. Past it
// the records go, so that sessions that never come back are not kept.
const fairKept = 64

// join puts s, just tagged, behind every waiting session.
func (q *FairQueue[T]) join(s *fairSession[T]) {
	if q.next == len(q.slots) {
		q.compact(q.live + 1)
	}
	s.slot = q.next
	q.next++
	q.slots[s.slot] = s
	q.live++
	q.tags.push(s.slot, s.start, s.finish)
}

// leave takes s out of the waiting sessions.
func (q *FairQueue[T]) leave(s *fairSession[T]) {
	q.tags.remove(s.slot)
	q.slots[s.slot] = nil
	s.slot = -1
	if q.live--; q.live == 0 {
		q.next = 0
	}
}

// compact renumbers the waiting sessions' slots from 0, in order, with
// room for at least n: O(slots), after as many joins.
func (q *FairQueue[T]) compact(n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	old := q.slots
	slots := make([]*fairSession[T], size)
	k := 0
	for _, s := range old[:q.next] {
		if s != nil {
			s.slot = k
			slots[k] = s
			k++
		}
	}
	q.slots, q.next = slots, k
	q.tags.reindex(size, func(i int) int { return old[i].slot })
}

// Order calls yield with the waiting items in the order Pop would take
// them if nothing were pushed or removed and every session kept its
// present weight, until yield returns false. It changes nothing: its
// owner numbers its waiting items by it (the host's instance admission
// tells a call waiting there its place), and the numbers are those of the
// fair order itself, not of arrival. It is O(n log n) in the waiting
// items, so an owner reads it when asked, not at every change.
func (q *FairQueue[T]) Order(yield func(session string, item T) bool) {
	type cursor struct {
		s    *fairSession[T]
		i    int // the next of s.queue
		tags fairTags
	}
	vt := q.clock.vt
	cur := make(map[int]*cursor, q.live)
	h := make(orderHeap, 0, q.live)
	for slot, s := range q.slots[:q.next] {
		if s != nil {
			cur[slot] = &cursor{s: s, tags: s.fairTags}
			h = append(h, tagEntry{s.start, s.finish, slot})
		}
	}
	h.init()
	weights := map[string]float64{}
	weight := func(id string) float64 {
		w, ok := weights[id]
		if !ok {
			w = q.weightOf(id)
			weights[id] = w
		}
		return w
	}
	next := q.next
	for len(h) > 0 {
		e := h.pop()
		c := cur[e.slot]
		delete(cur, e.slot)
		if !yield(c.s.id, c.s.queue[c.i].item) {
			return
		}
		// What Pop does: served, the session waits again behind every
		// waiting session (a slot after theirs), its next item tagged
		// from where this one finished.
		vt = max(vt, c.tags.start)
		c.tags.lastFinish = c.tags.finish
		if c.i++; c.i < len(c.s.queue) {
			c.tags.start = max(vt, c.tags.lastFinish)
			c.tags.tag(c.s.queue[c.i].cost, weight(c.s.id))
			cur[next] = c
			h.push(tagEntry{c.tags.start, c.tags.finish, next})
			next++
		}
	}
}

// orderHeap is a plain binary min-heap of entries by entryLess, for
// Order's projection (tagHeap keeps positions by slot, which a
// projection does not need).
type orderHeap []tagEntry

func (h orderHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *orderHeap) push(e tagEntry) {
	*h = append(*h, e)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !entryLess(&a[i], &a[p]) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *orderHeap) pop() tagEntry {
	a := *h
	e := a[0]
	n := len(a) - 1
	a[0] = a[n]
	*h = a[:n]
	h.down(0)
	return e
}

func (h orderHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && entryLess(&h[r], &h[l]) {
			m = r
		}
		if !entryLess(&h[m], &h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

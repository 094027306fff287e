package sched

import (
	"math"
	"time"
)

// The two orders of the waiting sessions (issue 19). Picking the next
// session used to scan every waiting session twice: once for the smallest
// start tag, once to check the deadlines. Both are now kept ordered:
//
//   - tagHeap (fair.go), a binary heap by (start, finish, slot), gives the
//     fair choice in O(1) and is kept in O(log n);
//   - orderTree, a segment tree over the sessions in the order they started
//     waiting, answers the deadline check in O(log n).
//
// The deadline check needs no simulation because the bucket's dynamics
// collapse when calls are served back to back (see meetsTree): the k-th
// call of a plan is served at max(x0, E0 + charges before it + its need),
// where x0 is the first instant a grant is allowed and E0 the instant the
// bucket was empty, capped to one window before x0. Every term is a whole
// number of nanoseconds, so the tree's sums and minima decide exactly what
// the step-by-step plan decided.

// tagLess orders sessions for the fair choice as the heap does
// (entryLess, fair.go).
func tagLess(a, b *session) bool {
	return entryLess(&tagEntry{a.start, a.finish, a.slot}, &tagEntry{b.start, b.finish, b.slot})
}

// inf is the slack of a node without sessions: no constraint.
const inf = math.MaxInt64

// Magnitudes. The tree's values are nanoseconds relative to base; they
// stay below 2^62 in absolute value as long as the busy period since base
// is shorter than 2^60 ns (36 years; otherwise the tree is rebuilt on a
// new base) and the waiting sessions' charges add up to less than 2^61
// (otherwise, with limits whose window is months long, the scan is used).
const (
	rebaseAfter = time.Duration(1) << 60
	maxSum      = int64(1) << 61
	farAway     = int64(1) << 62
)

// onode is a node of orderTree: what a run of consecutive waiting sessions,
// served back to back, charges and how much room its deadlines leave.
type onode struct {
	sum   int64 // charges of its sessions' head calls
	slack int64 // min over its sessions of deadline − need − charges before it in the run; inf if none
	minD  int64 // earliest deadline; inf if none
}

// combine is the run l followed by the run r.
func combine(l, r onode) onode {
	o := onode{sum: l.sum + r.sum, slack: l.slack, minD: min(l.minD, r.minD)}
	if r.slack != inf {
		o.slack = min(o.slack, r.slack-l.sum)
	}
	return o
}

var emptyNode = onode{slack: inf, minD: inf}

// orderTree keeps the waiting sessions in the order they started waiting
// (longest waiting first): each has a slot, slots are handed out in
// increasing order, and a session that leaves leaves a hole until the next
// rebuild compacts them. Over the slots it keeps a segment tree of onodes.
type orderTree struct {
	slots []*session // by slot; nil: a hole
	next  int        // the next slot to hand out
	front int        // no session waits in a slot below front
	live  int        // sessions in slots
	size  int        // leaves: a power of two ≥ len(slots)
	nodes []onode    // 1 is the root; leaf i is size+i
	base  time.Time  // the instant the values are relative to
}

// rel is t − base, capped to ±farAway.
func (o *orderTree) rel(t time.Time) int64 {
	d := int64(t.Sub(o.base))
	return min(max(d, -farAway), farAway)
}

// first returns the session that has waited longest.
func (o *orderTree) first() *session {
	for o.slots[o.front] == nil {
		o.front++
	}
	return o.slots[o.front]
}

// each calls f for every waiting session, longest waiting first.
func (o *orderTree) each(f func(s *session)) {
	for _, s := range o.slots[o.front:o.next] {
		if s != nil {
			f(s)
		}
	}
}

// query returns the run of the sessions in slots [lo, hi).
func (o *orderTree) query(lo, hi int) onode {
	l, r := emptyNode, emptyNode
	for lo, hi = lo+o.size, hi+o.size; lo < hi; lo, hi = lo/2, hi/2 {
		if lo&1 == 1 {
			l = combine(l, o.nodes[lo])
			lo++
		}
		if hi&1 == 1 {
			hi--
			r = combine(o.nodes[hi], r)
		}
	}
	return combine(l, r)
}

// set puts n at slot i and updates its ancestors.
func (o *orderTree) set(i int, n onode) {
	i += o.size
	o.nodes[i] = n
	for i /= 2; i >= 1; i /= 2 {
		o.nodes[i] = combine(o.nodes[2*i], o.nodes[2*i+1])
	}
}

// lastBelow returns the last slot below limit whose session, in the plan
// that serves every waiting session in order from an empty instant of
// e0, would miss its deadline: deadline − need − charges before it < e0.
// It returns -1 if there is none.
func (o *orderTree) lastBelow(e0 int64, limit int) int {
	return o.lastBelowAt(1, 0, o.size, 0, e0, limit)
}

func (o *orderTree) lastBelowAt(v, lo, hi int, off, e0 int64, limit int) int {
	n := o.nodes[v]
	if lo >= limit || n.slack == inf || n.slack-off >= e0 {
		return -1
	}
	if hi-lo == 1 {
		return lo
	}
	mid := (lo + hi) / 2
	if r := o.lastBelowAt(2*v+1, mid, hi, off+o.nodes[2*v].sum, e0, limit); r >= 0 {
		return r
	}
	return o.lastBelowAt(2*v, lo, mid, off, e0, limit)
}

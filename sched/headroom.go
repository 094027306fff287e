package sched

import (
	"math"
	"time"
)

// HeadroomCap is the largest share of a platform's declared capacity a
// local bucket keeps as headroom: the bucket always keeps a quarter of the
// platform's burst (15 units at OpenBesluitvorming, 2.5 at Rechtspraak's
// 10 a second). Much smaller and the bucket loses rate: a unit that
// refills while the bucket is full and the next granted call is still in
// its instance is lost, and a one-unit bucket at 10 a second loses it to
// every call slower than 100 ms from grant to departure. The cap binds on
// a path whose spread exceeds three quarters of a window (45 s at
// OpenBesluitvorming, 0.75 s at 10 a second); there 429s may still come.
// schedlua's departure script caps the replicas' headroom with this same
// value.
const HeadroomCap = 0.75

// HeadroomFloor is the least headroom a local bucket keeps below the
// platform's limit l, min(1, l.Units/10): a path measured as steady still
// keeps one unit, but a small bucket never loses more than a tenth of its
// burst to it.
func HeadroomFloor(l Limit) float64 { return min(1, l.Units/10) }

// Headroom returns the local limit that keeps h units (at most
// HeadroomCap of the capacity; nothing when h ≤ 0) below the platform's
// limit l: capacity l.Units − h at l's rate, so that headroom costs burst
// and never sustained rate. When the shorter window is not a whole number
// of nanoseconds it is rounded up: the local bucket never refills faster
// than the platform's.
func Headroom(l Limit, h float64) Limit {
	h = min(max(h, 0), l.Units*HeadroomCap)
	if h == 0 {
		return l
	}
	return Limit{Units: l.Units - h, Per: time.Duration(math.Ceil(float64(l.Per) * (l.Units - h) / l.Units))}
}

// Weigher has a session's share weight at an instant, as
// [Scheduler.WeightAt] gives it.
type Weigher interface {
	WeightAt(t time.Time, session string) float64
}

// MinWeight is a session's weight where one call of it counts against
// several quotas: the smallest of their weights at t, 1 when there is
// none. The call moves only as fast as its strictest quota lets its
// session go, so whatever is shared before the quotas (the host's
// instances of a connector) follows that quota's share, not a laxer one.
func MinWeight[W Weigher](t time.Time, session string, quotas []W) float64 {
	w := 1.0
	for _, q := range quotas {
		w = min(w, q.WeightAt(t, session))
	}
	return w
}

package sched

import "time"

// bucket is a token bucket that keeps, instead of a token count, the
// instant at which it was (or will be) empty: it holds
//
//	Units × min(Per, t − empty) / Per
//
// units at t. A zero empty means a full bucket. Costs are converted to
// refill times exactly and kept in integer nanoseconds: charges are rounded
// up and refunds and corrections down, so the bucket never holds more than
// the platform's own bucket would.
type bucket struct {
	limit  Limit
	quota  float64 // K ≥ limit.Units: the most one call is charged
	empty  time.Time
	paused time.Time
	conv   *convCache // shared with snapshots; used under the Scheduler's lock
	// charged is the refill time of every take so far, and lastTake the
	// instant of the latest: what a refund needs to know of the takes
	// that followed the grant it gives back (see refund).
	charged  time.Duration
	lastTake time.Time
}

// convCache memoises Limit.unitDur: a platform has few distinct costs.
type convCache struct {
	up, down map[float64]time.Duration
}

func newBucket(l Limit, quota float64) *bucket {
	return &bucket{limit: l, quota: max(quota, l.Units), conv: &convCache{up: map[float64]time.Duration{}, down: map[float64]time.Duration{}}}
}

// dur is the refill time of units, rounded up or down (see Limit.unitDur).
func (b *bucket) dur(units float64, up bool) time.Duration {
	m := b.conv.down
	if up {
		m = b.conv.up
	}
	if d, ok := m[units]; ok {
		return d
	}
	d := b.limit.unitDur(units, up)
	if len(m) >= 1024 {
		clear(m)
	}
	m[units] = d
	return d
}

// charge is what cost takes from the bucket, as a refill time rounded up
// (a charge) or down (a refund): the cost, but no more than the platform's
// whole quota K. Without a margin (K = C) an oversized call empties the
// bucket, exactly Per.
func (b *bucket) charge(cost float64, up bool) time.Duration {
	return b.dur(min(cost, b.quota), up)
}

// need is how full the bucket must be, as a refill time, before cost fits:
// the cost itself, or the whole bucket for an oversized call (cost ≥ C).
func (b *bucket) need(cost float64) time.Duration {
	if cost >= b.limit.Units {
		return b.limit.Per
	}
	return min(b.limit.Per, b.dur(cost, true))
}

// at is the later of t and the end of a pause.
func (b *bucket) at(t time.Time) time.Time {
	if t.Before(b.paused) {
		return b.paused
	}
	return t
}

// readyAt returns the earliest instant, not before t, at which cost fits:
// the bucket holds min(cost, capacity) and no pause is in force.
func (b *bucket) readyAt(t time.Time, cost float64) time.Time {
	t = b.at(t)
	if x := b.empty.Add(b.need(cost)); x.After(t) {
		return x
	}
	return t
}

// capAt applies the capacity: a bucket cannot hold more than it refills in
// one window.
func (b *bucket) capAt(t time.Time) {
	if lo := t.Add(-b.limit.Per); b.empty.Before(lo) {
		b.empty = lo
	}
}

// take charges cost at t, but no more than the platform's whole quota K:
// an oversized call, taken on a full bucket, empties the platform's bucket
// (and the local one, unless it keeps a margin below K; then it holds
// C − K).
func (b *bucket) take(t time.Time, cost float64) {
	b.capAt(t)
	d := b.charge(cost, true)
	b.empty = b.empty.Add(d)
	b.charged += d
	if t.After(b.lastTake) {
		b.lastTake = t
	}
}

// refund gives back, at t, what take charged for cost, for a grant that
// was never used; since is b.charged just after that grant's take.
//
// Taking the charge back is not enough once other grants followed: the
// platform, which never saw the refunded call, was fuller when they came,
// and may have been full, wasting refill that this bucket, lower by the
// refunded cost, kept. Given back in full, the bucket would then hold
// more than the platform's (a platform refusal TestHammer found under
// -race). So the bucket is left no fuller than a platform that saw only
// the calls sent: it is empty no sooner than the latest take's instant
// less a window, plus everything charged after the refunded grant.
func (b *bucket) refund(t time.Time, cost float64, since time.Duration) {
	b.capAt(t)
	e := b.empty.Add(-b.charge(cost, false))
	if after := b.charged - since; after > 0 {
		if floor := b.lastTake.Add(after - b.limit.Per); floor.After(e) {
			e = floor
		}
	}
	b.empty = e
	b.capAt(t)
}

// lower makes the bucket hold at most units at t.
func (b *bucket) lower(t time.Time, units float64) {
	b.capAt(t)
	var e time.Time
	if units >= 0 {
		e = t.Add(-b.dur(units, false))
	} else {
		e = t.Add(b.dur(-units, true))
	}
	if e.After(b.empty) {
		b.empty = e
	}
}

// pause grants nothing before until.
func (b *bucket) pause(until time.Time) {
	if until.After(b.paused) {
		b.paused = until
	}
}

func (b *bucket) pausedUntil() time.Time { return b.paused }

func (b *bucket) tokens(t time.Time) float64 {
	d := min(b.limit.Per, t.Sub(b.empty))
	return b.limit.Units * float64(d) / float64(b.limit.Per)
}

// setLimit keeps the units (up to the new capacity) and the pause: a
// platform's Retry-After holds whatever the limit becomes.
func (b *bucket) setLimit(t time.Time, l Limit, quota float64) {
	tok := min(b.tokens(t), l.Units)
	paused, charged, last := b.paused, b.charged, b.lastTake
	*b = *newBucket(l, quota)
	b.lower(t, tok)
	b.paused, b.charged, b.lastTake = paused, charged, last
}

// snapshot is a copy to plan ahead on (it shares the conversion cache).
func (b *bucket) snapshot() bucket { return *b }

// serve plans one grant on a snapshot: it returns the instant, not before
// t, at which cost fits, and charges it there.
func (b *bucket) serve(t time.Time, cost float64) time.Time {
	x := b.readyAt(t, cost)
	b.take(x, cost)
	return x
}

package schedtest

import (
	"math/big"
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

// Platform is an independent model of a platform's own token bucket, after
// OpenBesluitvorming's web/rate_limit.ts: capacity C, continuous refill of
// C per window W, a call accepted only if the bucket holds at least its
// cost. It counts in exact rational arithmetic, so it shares no rounding
// with the scheduler.
//
// rate_limit.ts refuses every call costing more than C. The requirement
// has such a call processed and then use up the entire quota, and package
// sched serves it when the bucket is full and empties the bucket (to 0, no
// debt); Platform models that documented extension, so that guarantee 1
// ("nothing goes over the limit") can be checked for oversized calls too.
type Platform struct {
	capacity *big.Rat
	windowNs *big.Rat
	tokens   *big.Rat
	at       time.Time
	started  bool
}

// NewPlatform returns a platform bucket for l that starts full.
func NewPlatform(l sched.Limit) *Platform {
	c := new(big.Rat).SetFloat64(l.Units)
	return &Platform{
		capacity: c,
		windowNs: new(big.Rat).SetInt64(int64(l.Per)),
		tokens:   new(big.Rat).Set(c),
	}
}

func (p *Platform) refill(t time.Time) {
	if !p.started {
		p.started, p.at = true, t
		return
	}
	if !t.After(p.at) {
		return
	}
	add := new(big.Rat).SetInt64(int64(t.Sub(p.at)))
	add.Mul(add, p.capacity)
	add.Quo(add, p.windowNs)
	p.tokens.Add(p.tokens, add)
	if p.tokens.Cmp(p.capacity) > 0 {
		p.tokens.Set(p.capacity)
	}
	p.at = t
}

// need is the level at which cost is accepted, and what it takes: the
// cost, or the full bucket.
func (p *Platform) need(cost *big.Rat) *big.Rat {
	if cost.Cmp(p.capacity) > 0 {
		return p.capacity
	}
	return cost
}

// Send offers a call costing cost at t (not before the previous call) and
// reports whether the platform accepts it; if so it is charged.
func (p *Platform) Send(t time.Time, cost float64) bool {
	p.refill(t)
	c := p.need(new(big.Rat).SetFloat64(cost))
	if p.tokens.Cmp(c) < 0 {
		return false
	}
	p.tokens.Sub(p.tokens, c)
	return true
}

// ReadyAt returns the earliest instant, not before t, at which a call
// costing cost would be accepted.
func (p *Platform) ReadyAt(t time.Time, cost float64) time.Time {
	p.refill(t)
	if !t.After(p.at) {
		t = p.at
	}
	short := new(big.Rat).Sub(p.need(new(big.Rat).SetFloat64(cost)), p.tokens)
	if short.Sign() <= 0 {
		return t
	}
	// ns = ceil(short × W / C)
	ns := short.Mul(short, p.windowNs)
	ns.Quo(ns, p.capacity)
	q, r := new(big.Int).QuoRem(ns.Num(), ns.Denom(), new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return t.Add(time.Duration(q.Int64()))
}

// Tokens returns the units in the bucket at the last call.
func (p *Platform) Tokens() float64 {
	f, _ := p.tokens.Float64()
	return f
}

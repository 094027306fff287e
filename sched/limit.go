package sched

import (
	"fmt"
	"math"
	"math/big"
	"time"
)

// Limit is a platform's published request limit: a token bucket of
// capacity Units that refills evenly, Units per Per. At OpenBesluitvorming
// it is Limit{Units: 60, Per: time.Minute}: 60 units, one unit a second.
//
// Units is a float64 because costs can be fractional (a PDF page costs 1/8
// at OpenBesluitvorming).
type Limit struct {
	Units float64       // capacity C of the bucket, in platform units
	Per   time.Duration // window W in which the bucket refills from empty to full
}

// minUnitTime is the finest refill the bucket can count: the bucket keeps
// time in whole nanoseconds.
const minUnitTime = time.Microsecond

// Validate reports whether l can be used by [New]. The error names the bad
// field.
func (l Limit) Validate() error {
	switch {
	case math.IsNaN(l.Units) || math.IsInf(l.Units, 0) || l.Units <= 0:
		return fmt.Errorf("sched: Limit.Units must be a positive finite number, got %v", l.Units)
	case l.Per <= 0:
		return fmt.Errorf("sched: Limit.Per must be positive, got %v", l.Per)
	case float64(l.Per)/l.Units < float64(minUnitTime):
		return fmt.Errorf("sched: Limit.Units %v per Limit.Per %v refills faster than one unit per %v", l.Units, l.Per, minUnitTime)
	}
	return nil
}

// unitDur converts units (≥ 0) into the time the bucket needs to refill
// them, computed exactly and rounded up to the nanosecond (so that a charge
// is never smaller than the cost) or down (so that a refund or a correction
// never gives back more).
func (l Limit) unitDur(units float64, up bool) time.Duration {
	x := new(big.Rat).SetFloat64(units)
	x.Mul(x, new(big.Rat).SetInt64(int64(l.Per)))
	x.Quo(x, new(big.Rat).SetFloat64(l.Units))
	q, r := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
	if up && r.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return time.Duration(q.Int64())
}

// maxCharge bounds one call's cost so that its refill time fits a Duration.
const maxCharge = time.Duration(1 << 62)

// PublicSession is the one session shared by the search page and
// BesluitBron's own maintenance (fetching the load status and so on). Its
// usage is never counted, so its weight stays that of a new session.
const PublicSession = "besluitbron/public"

// Options configures a [Scheduler]. A nil *Options means all defaults. New
// copies the fields it needs; changing Options later has no effect.
type Options struct {
	// Forget is how long after a session's last call its usage is
	// forgotten. Zero means 30 minutes.
	Forget time.Duration
	// Clock is the clock Wait and its timers use. Nil means the real
	// clock. The time-explicit methods (those ending in At) never read it.
	Clock Clock
	// PlatformUnits is the platform's declared capacity K, when Limit.Units
	// keeps a safety margin below it (host/internal/upstream/quota runs
	// OpenBesluitvorming's 60 units per minute on a bucket of 59 units per
	// 59 s with PlatformUnits 60). Two things use K rather than the
	// bucket's capacity: a session's weight, K / (K + used), so that the
	// weights are those of the declared limit (1/2 after 60 units, 1/3
	// after 120); and the charge of an oversized call, min(cost, K), the
	// platform's whole quota (see the package doc). Zero means the
	// Limit's Units; a value below them counts as them. A set value is kept
	// by [Scheduler.SetLimitAt]; a zero one follows the new limit.
	PlatformUnits float64
}

// DefaultForget is the default for [Options.Forget].
const DefaultForget = 30 * time.Minute

// Clock is the time source of the blocking edge ([Scheduler.Wait]). Tests
// pass a fake; production uses the real clock.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending [Clock.AfterFunc] call.
type Timer interface {
	// Stop prevents the call if it has not started; it reports whether it
	// did so.
	Stop() bool
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) Timer {
	return time.AfterFunc(d, f)
}

var _ Clock = realClock{}

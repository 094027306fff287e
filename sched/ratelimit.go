package sched

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// RateLimitBounds reads a platform's RateLimit-Remaining and
// RateLimit-Reset header values, as sent, for a bucket of limit l: the
// platform's bucket holds at least lo and at most hi units now. It is the
// one reading of these headers in BesluitBron: [Scheduler.Observe] and
// [Scheduler.ObserveHeaders] use it, and so does the cluster's shared
// limiter, which passes lo and hi to its Lua port of the policy.
//
// The headers are rounded: Remaining down to a whole unit, so the bucket
// holds between Remaining and Remaining+1; Reset, the seconds until the
// bucket is full again (OpenBesluitvorming's meaning), up to a second, so
// the bucket lacks between (Reset−1) and Reset seconds of refill. Where
// both are given the bounds are the tighter of the two.
//
// A value that is empty, not a plain number, negative, NaN or infinite
// counts as absent. ok is false without a usable Remaining: Reset alone
// corrects nothing (a platform that sends only Reset may mean an instant
// rather than a delay), so the caller leaves its bucket alone.
func RateLimitBounds(l Limit, remaining, reset string) (lo, hi float64, ok bool) {
	rem := headerNumber(remaining)
	if rem < 0 {
		return 0, 0, false
	}
	lo, hi = bounds(l, rem, headerNumber(reset))
	return lo, hi, true
}

// headerNumber is a header value as a number, or -1 when it is absent or
// not a usable one (see RateLimitBounds).
func headerNumber(v string) float64 {
	v = strings.TrimSpace(v)
	if v == "" {
		return -1
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return -1
	}
	return f
}

// bounds is the arithmetic behind RateLimitBounds and Observe: remaining
// units and reset seconds, each negative when absent, bound the platform's
// bucket of limit l. A bound nothing gives is infinite.
func bounds(l Limit, remaining, resetSec float64) (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	if remaining >= 0 {
		lo, hi = remaining, remaining+1
	}
	if resetSec >= 0 {
		perSec := l.Units * float64(time.Second) / float64(l.Per)
		lo = max(lo, l.Units-resetSec*perSec)
		hi = min(hi, l.Units-(resetSec-1)*perSec)
	}
	return lo, hi
}

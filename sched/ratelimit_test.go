package sched_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

// TestRateLimitBounds is the one reading of RateLimit-Remaining and
// RateLimit-Reset: absent, garbage, negative and non-finite values count as
// absent; Remaining alone bounds the bucket to [r, r+1]; Reset tightens it
// by the refill of (Reset−1) to Reset seconds at the limit's rate.
func TestRateLimitBounds(t *testing.T) {
	obv := sched.Limit{Units: 60, Per: time.Minute}       // 1 unit/s
	host := sched.Limit{Units: 59, Per: 59 * time.Second} // the host's copy of it: the same rate
	slow := sched.Limit{Units: 10, Per: 30 * time.Second} // 1/3 unit/s
	tests := []struct {
		name             string
		l                sched.Limit
		remaining, reset string
		lo, hi           float64
		ok               bool
	}{
		{"both missing", obv, "", "", 0, 0, false},
		{"reset alone", obv, "", "30", 0, 0, false},
		{"remaining garbage", obv, "abc", "30", 0, 0, false},
		{"remaining with a unit", obv, "12 units", "", 0, 0, false},
		{"remaining number then garbage", obv, "12abc", "", 0, 0, false},
		{"remaining negative", obv, "-1", "", 0, 0, false},
		{"remaining NaN", obv, "NaN", "", 0, 0, false},
		{"remaining Inf", obv, "Inf", "", 0, 0, false},
		{"remaining overflows", obv, "1e999", "", 0, 0, false},
		{"remaining alone", obv, "10", "", 10, 11, true},
		{"remaining with spaces", obv, " 10\t", "", 10, 11, true},
		{"remaining zero", obv, "0", "", 0, 1, true},
		{"remaining fractional", obv, "2.5", "", 2.5, 3.5, true},
		{"reset garbage ignored", obv, "10", "soon", 10, 11, true},
		{"reset negative ignored", obv, "10", "-5", 10, 11, true},
		{"reset NaN ignored", obv, "10", "NaN", 10, 11, true},
		{"reset Inf ignored", obv, "10", "+Inf", 10, 11, true},
		// Consistent headers: 29 left, full again in 31 s (29 to 30 units).
		{"reset agrees", obv, "29", "31", 29, 30, true},
		// Reset tightens the upper bound: 40 left by Remaining, but full
		// again only in 30 s: at most 31.
		{"reset lowers hi", obv, "40", "30", 40, 31, true},
		// Reset raises the lower bound: 5 left by Remaining, but full in 10 s:
		// at least 50.
		{"reset raises lo", obv, "5", "10", 50, 6, true},
		{"reset zero: full", obv, "60", "0", 60, 61, true},
		{"reset longer than the window", obv, "0", "90", 0, -29, true},
		{"reset fractional", obv, "10", "49.5", 10.5, 11, true},
		{"host copy, same rate", host, "20", "40", 20, 20, true},
		{"slow limit", slow, "2", "24", 2, 10 - 23.0/3, true},
		{"slow limit, reset wins below", slow, "0", "15", 5, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi, ok := sched.RateLimitBounds(tt.l, tt.remaining, tt.reset)
			if ok != tt.ok || (ok && (math.Abs(lo-tt.lo) > 1e-9 || math.Abs(hi-tt.hi) > 1e-9)) {
				t.Fatalf("RateLimitBounds(%v, %q, %q) = %v, %v, %v; want %v, %v, %v",
					tt.l, tt.remaining, tt.reset, lo, hi, ok, tt.lo, tt.hi, tt.ok)
			}
		})
	}
}

// TestObserveHeadersIsObserve: the header form corrects the bucket exactly
// as Observe does with the same values parsed, and does nothing without a
// usable Remaining.
func TestObserveHeadersIsObserve(t *testing.T) {
	l := sched.Limit{Units: 59, Per: 59 * time.Second}
	t0 := time.Unix(1_700_000_000, 0)
	rng := rand.New(rand.NewPCG(3, 5))
	for i := range 500 {
		a := sched.New(l, &sched.Options{PlatformUnits: 60})
		b := sched.New(l, &sched.Options{PlatformUnits: 60})
		at := t0.Add(time.Duration(rng.IntN(120)) * time.Second)
		spent := float64(rng.IntN(59))
		a.LowerAt(t0, spent)
		b.LowerAt(t0, spent)
		rem, reset := rng.IntN(62)-1, rng.IntN(70)-1
		remS, resetS := strconv.Itoa(rem), strconv.Itoa(reset)
		if rem < 0 {
			remS = []string{"", "x", "-1"}[rng.IntN(3)]
		}
		if reset < 0 {
			resetS = []string{"", "later", "-2"}[rng.IntN(3)]
		}
		a.ObserveHeaders(remS, resetS, at)
		if rem >= 0 {
			resetIn := time.Duration(-1)
			if reset >= 0 {
				resetIn = time.Duration(reset) * time.Second
			}
			b.Observe(float64(rem), resetIn, at)
		}
		if ga, gb := a.TokensAt(at), b.TokensAt(at); ga != gb {
			t.Fatalf("case %d (Remaining %q, Reset %q at +%v, %v spent): ObserveHeaders left %v units, Observe %v",
				i, remS, resetS, at.Sub(t0), spent, ga, gb)
		}
	}
}

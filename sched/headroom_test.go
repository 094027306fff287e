package sched_test

import (
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// The headroom tests moved here from host/internal/upstream/quota with
// the computation (issue 29).

func TestHeadroomKeepsRate(t *testing.T) {
	for _, l := range []sched.Limit{{Units: 60, Per: time.Minute}, {Units: 10, Per: 30 * time.Second}, {Units: 120, Per: time.Minute}, {Units: 5, Per: 500 * time.Millisecond}} {
		h := sched.Headroom(l, sched.HeadroomFloor(l))
		if h.Units >= l.Units || h.Units < l.Units-1 {
			t.Errorf("%v: headroom capacity %v", l, h.Units)
		}
		if r1, r2 := l.Units/l.Per.Seconds(), h.Units/h.Per.Seconds(); r1 != r2 {
			t.Errorf("%v: rate changed %v → %v", l, r1, r2)
		}
	}
}

// TestHeadroomNeverFaster: a window that is not a whole number of
// nanoseconds is rounded up, so the local bucket never refills faster than
// the platform's (the exact platform model in sched's property tests
// caught the truncated window letting an oversized call through early).
func TestHeadroomNeverFaster(t *testing.T) {
	for _, l := range []sched.Limit{{Units: 120, Per: time.Second}, {Units: 7, Per: time.Second}, {Units: 2.5, Per: time.Minute}, {Units: 60, Per: time.Minute}} {
		h := sched.Headroom(l, sched.HeadroomFloor(l))
		// h.Per/h.Units ≥ l.Per/l.Units, in exact integers where they are.
		if float64(h.Per)*l.Units < float64(l.Per)*h.Units {
			t.Errorf("%v: headroom %v refills faster", l, h)
		}
		if d := float64(h.Per) - float64(l.Per)*h.Units/l.Units; d >= 1 {
			t.Errorf("%v: headroom %v is %v ns slower than needed", l, h, d)
		}
	}
}

// TestHeadroomBounds: no headroom for h ≤ 0, at most HeadroomCap of the
// capacity, and the host's OpenBesluitvorming bucket (schedtest.OBVHost)
// at the floor.
func TestHeadroomBounds(t *testing.T) {
	l := schedtest.OBV
	if got := sched.Headroom(l, 0); got != l {
		t.Errorf("Headroom(%v, 0) = %v, want the limit itself", l, got)
	}
	if got := sched.Headroom(l, -3); got != l {
		t.Errorf("Headroom(%v, -3) = %v, want the limit itself", l, got)
	}
	if got, want := sched.Headroom(l, 1000).Units, l.Units*(1-sched.HeadroomCap); got != want {
		t.Errorf("Headroom(%v, 1000) keeps %v units, want %v (the cap)", l, got, want)
	}
	if got := sched.Headroom(l, sched.HeadroomFloor(l)); got != schedtest.OBVHost {
		t.Errorf("OpenBesluitvorming at the floor: %v, want schedtest.OBVHost %v", got, schedtest.OBVHost)
	}
	for _, c := range []struct{ units, floor float64 }{{60, 1}, {10, 1}, {2.5, 0.25}, {1, 0.1}} {
		if got := sched.HeadroomFloor(sched.Limit{Units: c.units, Per: time.Second}); got != c.floor {
			t.Errorf("HeadroomFloor(%v units) = %v, want %v", c.units, got, c.floor)
		}
	}
}

// fixedWeight is a quota whose every session weighs w.
type fixedWeight float64

func (w fixedWeight) WeightAt(time.Time, string) float64 { return float64(w) }

// TestMinWeight: a call counted by several quotas weighs what the
// strictest of them says; with none, 1.
func TestMinWeight(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	if got := sched.MinWeight[fixedWeight](now, "s", nil); got != 1 {
		t.Errorf("no quota: %v, want 1", got)
	}
	if got := sched.MinWeight(now, "s", []fixedWeight{0.5, 0.25, 1}); got != 0.25 {
		t.Errorf("quotas 1/2, 1/4, 1: %v, want 1/4", got)
	}
	// Real schedulers: one where s used 60 of K = 60 units, one where it
	// used nothing.
	busy := sched.New(schedtest.OBV, nil)
	for range 60 {
		if _, err := busy.ReserveAt(now, sched.Request{Session: "s", Cost: 1}); err != nil {
			t.Fatal(err)
		}
	}
	idle := sched.New(schedtest.OBV, nil)
	if got := sched.MinWeight(now, "s", []*sched.Scheduler{idle, busy}); got != 0.5 {
		t.Errorf("used 60 of 60 at one quota, nothing at the other: %v, want 1/2", got)
	}
}

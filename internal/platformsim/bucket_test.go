package platformsim

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestBucketSteps walks OpenBesluitvorming's bucket through fixed instants:
// a full bucket of 60, refilled at 1 unit per second, never above 60.
func TestBucketSteps(t *testing.T) {
	t0 := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	b := NewBucket(60, 1)
	steps := []struct {
		at   float64
		cost float64
		want Decision
	}{
		{0, 5, Decision{Allowed: true, Remaining: 55, Reset: 5}},
		{0, 55, Decision{Allowed: true, Remaining: 0, Reset: 60}},
		{0, 1, Decision{Allowed: false, Remaining: 0, Reset: 60, RetryAfter: 1}},
		{2, 5, Decision{Allowed: false, Remaining: 0, Reset: 58, RetryAfter: 3}}, // the recorded obv-429.http
		{2.5, 1, Decision{Allowed: true, Remaining: 1, Reset: 59, RetryAfter: 0}},
		{1000, 0.125, Decision{Allowed: true, Remaining: 59, Reset: 1}}, // refill stops at capacity
		{1000, 61, Decision{Allowed: false, Remaining: 0, Reset: 1, RetryAfter: 2}},
		{999, 1, Decision{Allowed: true, Remaining: 58, Reset: 2}}, // a clock going back refills nothing
	}
	for i, s := range steps {
		got := b.Take(at(s.at), s.cost)
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Errorf("step %d (t=%vs, cost %v): (-want +got)\n%s", i, s.at, s.cost, diff)
		}
	}
}

func TestSearchCost(t *testing.T) {
	for limit, want := range map[string]float64{
		"": 1, "1": 1, "24": 1, "25": 2, "48": 2, "49": 3, "100": 5, "1441": 61,
		"0": 1, "-3": 1, "abc": 1, "2.5": 1, "NaN": 1,
	} {
		if got := SearchCost(limit); got != want {
			t.Errorf("SearchCost(%q) = %v, want %v", limit, got, want)
		}
	}
}

func TestCounterWindow(t *testing.T) {
	t0 := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	c := newCounter()
	w := time.Minute
	c.admit(t0, 60, w)
	c.admit(t0.Add(30*time.Second), 30, w)
	c.admit(t0.Add(61*time.Second), 30, w) // the first left the window
	if c.MaxWindowUnits != 90 || c.Units != 120 {
		t.Errorf("max %v units %v, want 90 and 120", c.MaxWindowUnits, c.Units)
	}
	c.admit(t0.Add(62*time.Second), 40, w)
	if c.MaxWindowUnits != 100 {
		t.Errorf("max %v, want 100", c.MaxWindowUnits)
	}
}

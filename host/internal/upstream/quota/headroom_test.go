package quota

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

// The headroom follows the path: the start's assumed second until enough
// answers are measured, then ceil(rate × spread) between the floor and the
// cap, a unit more per 429 that decays after ten windows; the local
// buckets' capacity follows it at the same rate.
func TestHeadroomFollowsThePath(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	clock := &fixedClock{t: t0}
	l, err := New("rs", "Rechtspraak", "api", sched.Limit{Units: 10, Per: time.Second}, &sched.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	want := func(units float64, reason string) {
		t.Helper()
		st := l.HeadroomAt(clock.t)
		if st.Units != units || st.Reason != reason {
			t.Fatalf("headroom %v (%s), want %v (%s): %+v", st.Units, st.Reason, units, reason, st)
		}
		if got := l.Scheduler().StatsAt(clock.t).Limit.Units; got != 10-units {
			t.Fatalf("the scheduler's capacity %v, want %v", got, 10-units)
		}
	}
	// Before 8 answers: a spread of 1 s at 10 a second is 10 units, capped
	// at three quarters of the capacity.
	want(7.5, ReasonStart)
	answer := func(status int, d time.Duration) {
		clock.t = clock.t.Add(time.Second)
		l.Observe(status, http.Header{}, clock.t.Add(-d), clock.t)
	}
	for range 8 {
		answer(200, 50*time.Millisecond)
	}
	want(1, ReasonFloor)
	answer(200, 330*time.Millisecond) // spread 280 ms: 2.8 units
	want(3, ReasonSpread)
	answer(429, 50*time.Millisecond)
	want(4, Reason429)
	if st := l.HeadroomAt(clock.t); st.Got429 != 1 || st.After429 != 1 {
		t.Fatalf("after a 429: %+v", st)
	}
	for range 4 {
		answer(429, 50*time.Millisecond)
	}
	want(7.5, ReasonCap)
	// Ten windows (10 s) without a 429 take a unit off; fifty all five.
	clock.t = clock.t.Add(50 * time.Second)
	answer(200, 50*time.Millisecond)
	want(3, ReasonSpread)
}

// Depart waits at the departure pacer; an ended context is an error and
// the request is not counted.
func TestDepartPacesAndRefusesEnded(t *testing.T) {
	l, err := New("rs", "Rechtspraak", "api", sched.Limit{Units: 4, Per: time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Depart(ctx, 1); err == nil {
		t.Fatal("an ended call departed")
	}
	if got := l.dep.Stats().Calls; got != 0 {
		t.Fatalf("the pacer counted %d departures of ended calls", got)
	}
	if _, err := l.Depart(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if got := l.dep.Stats().Calls; got != 1 {
		t.Fatalf("the pacer counted %d departures, want 1", got)
	}
}

type fixedClock struct{ t time.Time }

func (c *fixedClock) Now() time.Time { return c.t }

func (c *fixedClock) AfterFunc(d time.Duration, f func()) sched.Timer {
	return stdTimer{time.AfterFunc(d, f)}
}

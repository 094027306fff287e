package sched_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

func TestLimitValidate(t *testing.T) {
	for _, tt := range []struct {
		l     sched.Limit
		field string // "" means valid
	}{
		{sched.Limit{Units: 60, Per: time.Minute}, ""},
		{sched.Limit{Units: 0.5, Per: time.Second}, ""},
		{sched.Limit{Units: 0, Per: time.Minute}, "Limit.Units"},
		{sched.Limit{Units: -1, Per: time.Minute}, "Limit.Units"},
		{sched.Limit{Units: math.NaN(), Per: time.Minute}, "Limit.Units"},
		{sched.Limit{Units: math.Inf(1), Per: time.Minute}, "Limit.Units"},
		{sched.Limit{Units: 60}, "Limit.Per"},
		{sched.Limit{Units: 1e9, Per: time.Second}, "Limit.Units"},
	} {
		err := tt.l.Validate()
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%+v: %v", tt.l, err)
		case tt.field != "" && (err == nil || !strings.HasPrefix(err.Error(), "sched: "+tt.field)):
			t.Errorf("%+v: error %v; want one naming %s", tt.l, err, tt.field)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("New accepted an invalid limit")
		}
	}()
	sched.New(sched.Limit{}, nil)
}

func TestRequestValidate(t *testing.T) {
	s := sched.New(sched.Limit{Units: 60, Per: time.Minute}, nil)
	for _, tt := range []struct {
		r     sched.Request
		field string
	}{
		{sched.Request{Cost: 1}, "Request.Session"},
		{sched.Request{Session: "a"}, "Request.Cost"},
		{sched.Request{Session: "a", Cost: -1}, "Request.Cost"},
		{sched.Request{Session: "a", Cost: math.NaN()}, "Request.Cost"},
		{sched.Request{Session: "a", Cost: 1e300}, "Request.Cost"},
	} {
		_, err := s.Wait(context.Background(), tt.r)
		if err == nil || !strings.Contains(err.Error(), tt.field) || !strings.HasPrefix(err.Error(), "sched: ") {
			t.Errorf("%+v: error %v; want one naming %s", tt.r, err, tt.field)
		}
		if _, err := s.ReserveAt(epoch, tt.r); err == nil {
			t.Errorf("%+v: ReserveAt accepted it", tt.r)
		}
	}
	if st := s.Stats(); st.Calls != 0 || st.Queued != 0 {
		t.Fatalf("invalid requests changed the state: %+v", st)
	}
}

func TestSetLimit(t *testing.T) {
	d := newDriver(t, sched.Limit{Units: 60, Per: time.Minute}, nil)
	for range 50 {
		d.ask("A", 1)
	}
	// 10 units left; the new capacity is 5, refilled 5 per 10 s.
	d.s.SetLimitAt(d.now, sched.Limit{Units: 5, Per: 10 * time.Second})
	if got := d.s.TokensAt(d.now); got != 5 {
		t.Fatalf("tokens after SetLimit: %v; want 5 (capped)", got)
	}
	if got := d.s.UsageAt(d.now, "A"); got != 50 {
		t.Fatalf("usage after SetLimit: %v; want 50", got)
	}
	for range 6 {
		d.ask("A", 1)
	}
	if next := d.s.AdvanceAt(d.now); !next.Equal(epoch.Add(2 * time.Second)) {
		t.Fatalf("next grant at %v; want 2s (one unit at the new rate)", next.Sub(epoch))
	}
}

// A pause (a platform's Retry-After) survives a new limit: the host
// changes the limit when its headroom moves, often right after a 429.
func TestSetLimitKeepsPause(t *testing.T) {
	d := newDriver(t, sched.Limit{Units: 10, Per: 10 * time.Second}, nil)
	until := d.now.Add(5 * time.Second)
	d.s.PauseUntil(until)
	d.s.SetLimitAt(d.now, sched.Limit{Units: 8, Per: 8 * time.Second})
	if got := d.s.StatsAt(d.now).PausedUntil; !got.Equal(until) {
		t.Fatalf("paused until %v after SetLimit; want %v", got, until)
	}
	d.ask("A", 1)
	if next := d.s.AdvanceAt(d.now); !next.Equal(until) {
		t.Fatalf("next grant at %v; want the pause's end %v", next, until)
	}
}

func TestStatsSessionsForgotten(t *testing.T) {
	d := newDriver(t, sched.Limit{Units: 60, Per: time.Minute}, &sched.Options{Forget: time.Minute})
	d.ask("A", 1)
	d.ask("B", 1)
	if st := d.s.StatsAt(d.now); st.Sessions != 2 {
		t.Fatalf("sessions %d; want 2", st.Sessions)
	}
	d.until(epoch.Add(time.Minute))
	if st := d.s.StatsAt(d.now); st.Sessions != 0 {
		t.Fatalf("sessions %d after Forget; want 0", st.Sessions)
	}
}

func TestWeightAt(t *testing.T) {
	t0 := time.Unix(0, 0)
	s := sched.New(sched.Limit{Units: 59, Per: 59 * time.Second}, &sched.Options{PlatformUnits: 60})
	for i := 0; i < 60; i++ {
		if _, err := s.ReserveAt(t0.Add(time.Duration(i)*time.Second), sched.Request{Session: "a", Cost: 1}); err != nil {
			t.Fatal(err)
		}
	}
	at := t0.Add(time.Minute)
	if w := s.WeightAt(at, "a"); w != 0.5 {
		t.Errorf("weight after 60 units: %v, want 1/2", w)
	}
	if w := s.WeightAt(at, "new"); w != 1 {
		t.Errorf("a new session's weight: %v, want 1", w)
	}
	if w := s.WeightAt(at, sched.PublicSession); w != 1 {
		t.Errorf("the public session's weight: %v, want 1", w)
	}
}

package sched_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// TestBehindAtIsWhenTheCallStarts: with the bucket spent and calls of
// one unit waiting from several sessions, BehindAt(t, more) names the
// place and the start of a call that joins behind them and more others:
// the instant the scheduler grants the last of them, in virtual time
// (all cost one unit, so the last place is granted then whichever call
// the fair order puts there). It changes nothing: the queue is as long
// after it.
func TestBehindAtIsWhenTheCallStarts(t *testing.T) {
	for _, more := range []int{0, 1, 7} {
		t.Run(fmt.Sprint(more), func(t *testing.T) {
			t0 := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
			s := sched.New(schedtest.OBV, nil)
			// Spend the bucket, then queue five calls of three sessions.
			for range int(schedtest.OBV.Units) {
				if _, err := s.ReserveAt(t0, sched.Request{Session: "spent", Cost: 1}); err != nil {
					t.Fatal(err)
				}
			}
			for i := range 5 {
				if _, err := s.ReserveAt(t0, sched.Request{Session: fmt.Sprint("s", i%3), Cost: 1}); err != nil {
					t.Fatal(err)
				}
			}
			ask := t0.Add(300 * time.Millisecond)
			place, wait := s.BehindAt(ask, more)
			if place != 5+more+1 {
				t.Errorf("place %d, want %d", place, 5+more+1)
			}
			if q := s.StatsAt(ask).Queued; q != 5 {
				t.Fatalf("%d calls wait after BehindAt, want 5 (it changes nothing)", q)
			}
			// The others, then the call, join; the clock moves from grant
			// to grant until the last of them has its grant: with every
			// call of one unit, the call granted last is granted when
			// BehindAt says (which of them it is, the fair order decides).
			for i := range more + 1 {
				if _, err := s.ReserveAt(ask, sched.Request{Session: fmt.Sprint("m", i), Cost: 1}); err != nil {
					t.Fatal(err)
				}
			}
			now := ask
			for s.StatsAt(now).Queued > 0 {
				next := s.AdvanceAt(now)
				if s.StatsAt(now).Queued == 0 {
					break
				}
				if !next.After(now) {
					t.Fatalf("nothing due after %v and calls still wait", now)
				}
				now = next
			}
			if got := now.Sub(ask); got != wait {
				t.Errorf("the last call granted after %v, BehindAt said %v", got, wait)
			}
		})
	}
}

package sched_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// epochOfBubble is where time starts in a synctest bubble.
var epochOfBubble = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// TestWaitSeedScenario runs the seed's scenario through the blocking edge,
// with goroutines and timers in a synctest bubble: a session keeps 100
// searches waiting at OpenBesluitvorming's limit, and newcomers ask one
// search each. The seed measured up to 106 s before its version 1.4.6 and
// under 3 s after; the physical limit is the refill of one unit, 1 s.
func TestWaitSeedScenario(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := sched.New(schedtest.OBV, nil)
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for range 100 {
			wg.Go(func() {
				for ctx.Err() == nil {
					s.Wait(ctx, sched.Request{Session: "heavy", Cost: schedtest.SearchCost(24)})
				}
			})
		}
		time.Sleep(61*time.Second + 300*time.Millisecond)
		var worst time.Duration
		for i := range 20 {
			g, err := s.Wait(context.Background(), sched.Request{Session: fmt.Sprintf("new-%d", i), Cost: 1})
			if err != nil {
				t.Fatal(err)
			}
			worst = max(worst, g.Queued)
			time.Sleep(10*time.Second + 370*time.Millisecond)
		}
		cancel()
		wg.Wait()
		t.Logf("worst newcomer wait %v; %d calls granted in %v", worst, s.Stats().Calls, time.Since(epochOfBubble))
		if worst > time.Second {
			t.Fatalf("a newcomer waited %v; want ≤ 1s", worst)
		}
		if st := s.Stats(); st.Queued != 0 || st.Units != float64(st.Calls) {
			t.Fatalf("stats after the run: %+v", st)
		}
	})
}

func TestWaitOnQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := sched.New(sched.Limit{Units: 10, Per: 10 * time.Second}, nil)
		ctx := context.Background()
		s.Wait(ctx, sched.Request{Session: "A", Cost: 10})
		for range 2 {
			go s.Wait(ctx, sched.Request{Session: "B", Cost: 1})
			synctest.Wait()
		}
		type note struct {
			pos int
			eta time.Duration
		}
		var notes []note
		start := time.Now()
		g, err := s.Wait(ctx, sched.Request{Session: "B", Cost: 1, OnQueued: func(pos int, eta time.Duration) {
			notes = append(notes, note{pos, eta})
		}})
		if err != nil || time.Since(start) != 3*time.Second || g.Queued != 3*time.Second {
			t.Fatalf("granted %+v, %v after %v", g, err, time.Since(start))
		}
		want := []note{{3, 3 * time.Second}, {2, 2 * time.Second}, {1, time.Second}}
		if !slices.Equal(notes, want) {
			t.Fatalf("OnQueued got %v; want %v", notes, want)
		}
	})
}

func TestWaitPauseUntil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := sched.New(sched.Limit{Units: 10, Per: 10 * time.Second}, nil)
		s.PauseUntil(time.Now().Add(5 * time.Second))
		g, err := s.Wait(context.Background(), sched.Request{Session: "A", Cost: 1})
		if err != nil || g.Queued != 5*time.Second {
			t.Fatalf("granted %+v, %v; want after the 5s pause", g, err)
		}
		if st := s.Stats(); !st.PausedUntil.Equal(g.At) {
			t.Fatalf("PausedUntil %v; want %v", st.PausedUntil, g.At)
		}
	})
}

// TestWaitFakeClock drives the blocking edge with an injected clock: Wait
// arms exactly one timer, at the instant the bucket has room.
func TestWaitFakeClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clock := schedtest.NewClock(epoch)
		s := sched.New(sched.Limit{Units: 10, Per: 10 * time.Second}, &sched.Options{Clock: clock})
		ctx := context.Background()
		s.Wait(ctx, sched.Request{Session: "A", Cost: 10})
		done := make(chan sched.Grant)
		go func() {
			g, _ := s.Wait(ctx, sched.Request{Session: "B", Cost: 2})
			done <- g
		}()
		synctest.Wait()
		if got, want := clock.Pending(), []time.Time{epoch.Add(2 * time.Second)}; !slices.Equal(got, want) {
			t.Fatalf("timers %v; want %v", got, want)
		}
		clock.Advance(1999 * time.Millisecond)
		synctest.Wait()
		select {
		case g := <-done:
			t.Fatalf("granted early: %+v", g)
		default:
		}
		clock.Advance(time.Millisecond)
		if g := <-done; g.Queued != 2*time.Second || !g.At.Equal(epoch.Add(2*time.Second)) {
			t.Fatalf("grant %+v", g)
		}
		if got := clock.Pending(); len(got) != 0 {
			t.Fatalf("timers left: %v", got)
		}
	})
}

// TestWaitGrantRacesDeadline makes the grant and the context's deadline
// fall on the same instant. Whichever wins, the outcome is consistent: a
// grant is returned and counted, or an error is returned and nothing is
// charged.
func TestWaitGrantRacesDeadline(t *testing.T) {
	for range 20 {
		synctest.Test(t, func(t *testing.T) {
			s := sched.New(sched.Limit{Units: 10, Per: 10 * time.Second}, nil)
			ctx := context.Background()
			s.Wait(ctx, sched.Request{Session: "A", Cost: 10})
			dctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			_, err := s.Wait(dctx, sched.Request{Session: "B", Cost: 1})
			st := s.Stats()
			used := s.UsageAt(time.Now(), "B")
			switch {
			case err == nil && st.Units == 11 && used == 1:
			case err != nil && st.Units == 10 && used == 0 && s.TokensAt(time.Now()) == 1:
			default:
				t.Fatalf("err %v, stats %+v, usage %v", err, st, used)
			}
		})
	}
}

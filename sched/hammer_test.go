package sched_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// TestHammer has P goroutines make N calls each on the real clock, with
// cancellations and short deadlines mixed in, sized to take about 0.1 s.
// Run it with -race. Whatever the interleaving, the counting is exact: the
// scheduler's totals equal the sum of the grants that Wait returned, and
// the platform model accepts every one of them in grant order.
func TestHammer(t *testing.T) {
	P, N := 8, 200
	if testing.Short() {
		N = 50
	}
	// 20 units per millisecond; costs average just over one unit.
	l := sched.Limit{Units: 200, Per: 10 * time.Millisecond}
	s := sched.New(l, nil)
	type rec struct {
		g    sched.Grant
		cost float64
	}
	var (
		mu     sync.Mutex
		grants []rec
		retry  uint64 // RetryError
		ctxErr uint64 // ctx done, before or while waiting
	)
	var wg sync.WaitGroup
	for p := range P {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(p), 7))
			for range N {
				cost := float64(1+rng.IntN(16)) / 8
				ctx, cancel := context.Background(), context.CancelFunc(func() {})
				switch rng.IntN(10) {
				case 0:
					ctx, cancel = context.WithTimeout(ctx, time.Duration(rng.IntN(200))*time.Microsecond)
				case 1:
					ctx, cancel = context.WithCancel(ctx)
					time.AfterFunc(time.Duration(rng.IntN(100))*time.Microsecond, cancel)
				}
				g, err := s.Wait(ctx, sched.Request{Session: fmt.Sprintf("s%d", rng.IntN(5)), Cost: cost})
				cancel()
				mu.Lock()
				var re *sched.RetryError
				switch {
				case err == nil:
					grants = append(grants, rec{g, cost})
				case errors.As(err, &re):
					retry++
				default:
					ctxErr++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.SortFunc(grants, func(a, b rec) int { return int(a.g.Seq) - int(b.g.Seq) })
	p := schedtest.NewPlatform(l)
	units := 0.0
	for i, r := range grants {
		if !p.Send(r.g.At, r.cost) {
			t.Fatalf("platform refused grant %d (cost %v)", r.g.Seq, r.cost)
		}
		if i > 0 && r.g.At.Before(grants[i-1].g.At) {
			t.Fatalf("grant %d at %v before grant %d at %v", r.g.Seq, r.g.At, grants[i-1].g.Seq, grants[i-1].g.At)
		}
		units += r.cost
	}
	st := s.Stats()
	// A context already done when Wait is called never reaches the queue,
	// so Cancelled may count fewer than the context errors.
	if st.Units != units || st.Calls != uint64(len(grants)) || st.Queued != 0 || st.Rejected != retry || st.Cancelled > ctxErr {
		t.Fatalf("stats %+v; want %d calls, %v units, %d rejected, ≤ %d cancelled, nothing queued", st, len(grants), units, retry, ctxErr)
	}
	t.Logf("%d grants, %v units, %d rejected, %d cancelled", len(grants), units, retry, ctxErr)
}

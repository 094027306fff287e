package admission

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestNewcomerGetsNextSlot: one session floods; a newcomer's call takes the
// next free slot, ahead of the flood's queued calls.
func TestNewcomerGetsNextSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New(2, nil)
		var order []string
		var mu sync.Mutex
		hold := make(chan struct{})
		run := func(session string) {
			rel, err := a.Acquire(context.Background(), session)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, session)
			mu.Unlock()
			<-hold
			rel()
		}
		for range 6 {
			go run("flood")
		}
		synctest.Wait()
		go run("newcomer")
		synctest.Wait()
		hold <- struct{}{} // one flood call finishes: the slot must go to the newcomer
		synctest.Wait()
		mu.Lock()
		got := append([]string(nil), order...)
		mu.Unlock()
		if len(got) != 3 || got[2] != "newcomer" {
			t.Fatalf("order %v: the newcomer should get the first freed slot", got)
		}
		close(hold)
	})
}

// TestLoneSessionUsesEverySlot: no cap per session; a session alone may
// hold every instance.
func TestLoneSessionUsesEverySlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New(4, nil)
		var in, maxIn atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rel, _ := a.Acquire(context.Background(), "s")
				n := in.Add(1)
				if n > maxIn.Load() {
					maxIn.Store(n)
				}
				time.Sleep(time.Second) // virtual time
				in.Add(-1)
				rel()
			}()
		}
		wg.Wait()
		if maxIn.Load() != 4 {
			t.Fatalf("a lone session held at most %d of 4 slots", maxIn.Load())
		}
	})
}

// TestSlotsFollowWeights: when sessions wait for slots, each gets them in
// proportion to its weight. Three sessions of weights 1, 1/2 and 1/3 keep
// calls waiting; of 600 grants they get 6/11, 3/11 and 2/11.
func TestSlotsFollowWeights(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		weights := map[string]float64{"new": 1, "used60": 0.5, "used120": 1.0 / 3}
		a := New(2, func(s string) float64 { return weights[s] })
		var mu sync.Mutex
		grants := map[string]int{}
		total := 0
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var wg sync.WaitGroup
		for s := range weights {
			for range 4 { // four calls of each session always waiting
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						rel, err := a.Acquire(ctx, s)
						if err != nil {
							return
						}
						mu.Lock()
						grants[s]++
						total++
						done := total >= 600
						mu.Unlock()
						time.Sleep(time.Second)
						rel()
						if done {
							cancel()
							return
						}
					}
				}()
			}
		}
		wg.Wait()
		for s, want := range map[string]float64{"new": 6.0 / 11, "used60": 3.0 / 11, "used120": 2.0 / 11} {
			if got := float64(grants[s]) / float64(total); got < want-0.02 || got > want+0.02 {
				t.Errorf("%s got %.3f of the grants, want %.3f", s, got, want)
			}
		}
	})
}

func TestCancelledWaitLeavesQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New(1, nil)
		rel, _ := a.Acquire(context.Background(), "a")
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if _, err := a.Acquire(ctx, "b"); err == nil {
			t.Fatal("want a timeout")
		}
		if _, waiting := a.Stats(); waiting != 0 {
			t.Fatalf("%d waiting after cancel", waiting)
		}
		rel()
		if free, _ := a.Stats(); free != 1 {
			t.Fatalf("free = %d", free)
		}
	})
}

// TestEndedCallGetsNoSlot: a call whose context has ended (its client
// gone, issue 27) gets no slot, even with slots free, and takes none.
func TestEndedCallGetsNoSlot(t *testing.T) {
	a := New(2, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rel, err := a.Acquire(ctx, "gone"); err == nil {
		rel()
		t.Fatal("a call whose context has ended got a slot")
	}
	if free, waiting := a.Stats(); free != 2 || waiting != 0 {
		t.Fatalf("free %d, waiting %d; want 2, 0", free, waiting)
	}
}

// endingCtx is a context whose end shows in Err before its Done channel
// closes (the runtime's call context between its parent's end and its own
// callback): the instant in which a slot granted to it must not be used.
type endingCtx struct {
	context.Context
	ended atomic.Bool
}

func (c *endingCtx) Err() error {
	if c.ended.Load() {
		return context.Canceled
	}
	return c.Context.Err()
}

// TestSlotGrantedAsTheCallEndsGoesOn: a waiting call is granted a slot in
// the instant its context ends: it runs nothing, and the slot goes to the
// next waiter rather than being held or lost.
func TestSlotGrantedAsTheCallEndsGoesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := New(1, nil)
		rel, _ := a.Acquire(context.Background(), "holder")
		ending := &endingCtx{Context: context.Background()}
		got := make(chan error, 1)
		go func() {
			r, err := a.Acquire(ending, "gone")
			if err == nil {
				r()
			}
			got <- err
		}()
		synctest.Wait()
		next := make(chan error, 1)
		go func() {
			r, err := a.Acquire(context.Background(), "next")
			if err == nil {
				defer r()
			}
			next <- err
		}()
		synctest.Wait()
		ending.ended.Store(true)
		rel() // the slot is granted to the ended call, the first waiter
		if err := <-got; err == nil {
			t.Fatal("the ended call was given its slot")
		}
		if err := <-next; err != nil {
			t.Fatalf("the next waiter: %v", err)
		}
		synctest.Wait()
		if free, waiting := a.Stats(); free != 1 || waiting != 0 {
			t.Fatalf("free %d, waiting %d; want 1, 0", free, waiting)
		}
	})
}

// TestHammer: many goroutines, sessions and cancellations; slots are never
// oversubscribed and all come back. Run with -race.
func TestHammer(t *testing.T) {
	a := New(3, nil)
	var in atomic.Int32
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				ctx, cancel := context.WithCancel(context.Background())
				if i%7 == 0 {
					cancel()
				}
				rel, err := a.Acquire(ctx, string(rune('a'+g%5)))
				if err == nil {
					if n := in.Add(1); n > 3 {
						t.Errorf("%d slots in use", n)
					}
					in.Add(-1)
					rel()
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	if free, waiting := a.Stats(); free != 3 || waiting != 0 {
		t.Fatalf("free %d waiting %d", free, waiting)
	}
}

package admission

import (
	"context"
	"maps"
	"runtime"
	"testing"
)

// TestAcquireNotifyTellsAWait: a call that finds a slot is told nothing;
// one that must wait is told once, before it blocks, how many calls wait
// (itself included), and gets the slot when it is given back.
func TestAcquireNotifyTellsAWait(t *testing.T) {
	a := New(1, nil)
	told := make(chan int, 4)
	release, err := a.AcquireNotify(context.Background(), "a", func(n int) { told <- n })
	if err != nil {
		t.Fatal(err)
	}
	if len(told) != 0 {
		t.Fatalf("a call that found a free slot was told it waits (%d)", <-told)
	}
	got := make(chan func(), 1)
	go func() {
		r, err := a.AcquireNotify(context.Background(), "b", func(n int) { told <- n })
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	if n := <-told; n != 1 {
		t.Errorf("told %d calls wait, want 1", n)
	}
	release()
	(<-got)()
	if len(told) != 0 {
		t.Errorf("told more than once")
	}
}

// TestAcquireFuncWaitsWithoutAGoroutine: calls that must wait are queued
// with no goroutine of theirs; each is told its Ticket, whose place is
// its place in the fair order (a newcomer's first call before a flood's
// second), not its arrival; given back slots start them one by one in
// that order; a call whose context ends leaves the queue, its
// continuation told why, and the places behind it move up.
func TestAcquireFuncWaitsWithoutAGoroutine(t *testing.T) {
	a := New(1, nil)
	hold, err := a.Acquire(context.Background(), "holder")
	if err != nil {
		t.Fatal(err)
	}
	type start struct {
		name    string
		release func()
		err     error
	}
	started := make(chan start, 8)
	tickets := map[string]Ticket{}
	before := runtime.NumGoroutine()
	ctxs := map[string]context.CancelFunc{}
	for _, c := range []struct{ name, session string }{{"a1", "a"}, {"a2", "a"}, {"a3", "a"}, {"b1", "b"}} {
		ctx, cancel := context.WithCancel(context.Background())
		ctxs[c.name] = cancel
		a.AcquireFunc(ctx, c.session, func(tk Ticket) { tickets[c.name] = tk }, func(release func(), err error) {
			started <- start{c.name, release, err}
		})
	}
	if n := runtime.NumGoroutine() - before; n > 0 {
		t.Errorf("%d goroutines more for 4 waiting calls, want none", n)
	}
	places := func() map[string]int {
		m := map[string]int{}
		for name, tk := range tickets {
			m[name], _ = tk.Place()
		}
		return m
	}
	if got, want := places(), map[string]int{"a1": 1, "b1": 2, "a2": 3, "a3": 4}; !maps.Equal(got, want) {
		t.Errorf("places %v, want %v (the fair order)", got, want)
	}
	ctxs["a2"]()
	if s := <-started; s.name != "a2" || s.err == nil || s.release != nil {
		t.Fatalf("the cancelled call's continuation got %+v, want a2 with an error and no slot", s)
	}
	if _, waiting := a.Stats(); waiting != 3 {
		t.Errorf("%d calls wait after a cancel, want 3", waiting)
	}
	if got, want := places(), map[string]int{"a1": 1, "b1": 2, "a2": 0, "a3": 3}; !maps.Equal(got, want) {
		t.Errorf("places after a2 left: %v, want %v", got, want)
	}
	hold()
	for _, want := range []string{"a1", "b1", "a3"} {
		s := <-started
		if s.name != want || s.err != nil {
			t.Fatalf("started %+v, want %s with its slot", s, want)
		}
		if p, _ := tickets[want].Place(); p != 0 {
			t.Errorf("%s started, its place still %d", want, p)
		}
		s.release()
	}
	for _, cancel := range ctxs {
		cancel()
	}
}

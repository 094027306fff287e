package admission

import (
	"context"
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

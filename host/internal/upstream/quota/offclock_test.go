package quota

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/runtime/clientcall"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedtest"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// limitAt is obv's quota at 10 units a minute on clk, its bucket empty:
// the next call waits about 6 s of clk's time.
func limitAt(t *testing.T, clk *schedtest.Clock) *Use {
	t.Helper()
	l, err := New("obv", "OpenBesluitvorming", "api", sched.Limit{Units: 10, Per: time.Minute}, &sched.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	l.PauseDeadlines(clientcall.Pause)
	l.Scheduler().LowerAt(clk.Now(), 0)
	return l.Use("obv", "api")
}

// TestQueueOffClockWaitsPastTheDeadline: a call whose expected grant
// falls after its call deadline (1 s, call_timeout's clock) is refused at
// once as an ordinary call; marked QueueOffClock (an MCP task) it waits
// with its deadline stopped, is told its place and the limit it waits at
// (with the limit's refill), and is let through when the limit refills.
func TestQueueOffClockWaitsPastTheDeadline(t *testing.T) {
	clk := schedtest.NewClock(time.Now())
	u := limitAt(t, clk)
	ctx, cancel := clientcall.WithDeadline(context.Background(), time.Second)
	defer cancel()
	_, err := u.Wait(ctx, &callinfo.Info{Session: "a"}, 1, false)
	var fe *connector.FetchError
	if !errors.As(err, &fe) || fe.Kind != connector.FetchQueueTimeout {
		t.Fatalf("an ordinary call past its deadline: %v, want a queue timeout", err)
	}

	queued := make(chan int, 16)
	type at struct {
		limit  string
		refill time.Duration
		done   bool
	}
	var ats []at
	info := &callinfo.Info{Session: "a", QueueOffClock: true,
		OnQueued: func(position int, eta time.Duration) { queued <- position },
		AtLimit:  func(limit string, refill time.Duration, done bool) { ats = append(ats, at{limit, refill, done}) },
	}
	got := make(chan error, 1)
	go func() {
		_, err := u.Wait(ctx, info, 1, false)
		got <- err
	}()
	select {
	case p := <-queued:
		if p != 1 {
			t.Errorf("place %d, want 1", p)
		}
	case err := <-got:
		t.Fatalf("a task's call past its deadline: %v before it was queued, want it to wait", err)
	}
	clk.Advance(10 * time.Second)
	if err := <-got; err != nil {
		t.Fatalf("a task's call past its deadline: %v, want it let through when the limit refills", err)
	}
	if ctx.Err() != nil {
		t.Error("the call's deadline ran while it waited")
	}
	want := []at{{"OpenBesluitvorming's limit", 6 * time.Second, false}, {"OpenBesluitvorming's limit", 6 * time.Second, true}}
	if len(ats) != 2 || ats[0] != want[0] || ats[1] != want[1] {
		t.Errorf("AtLimit was told %+v, want %+v", ats, want)
	}
}

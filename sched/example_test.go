package sched_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

// The seed's scenario with the time-explicit API: one session queues 63
// searches at OpenBesluitvorming's limit, a second session asks one search
// half a second later and gets the next unit of refill.
func Example() {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s := sched.New(sched.Limit{Units: 60, Per: time.Minute}, nil)

	var heavy []*sched.Reservation
	for range 63 {
		r, _ := s.ReserveAt(t0, sched.Request{Session: "heavy", Cost: 1})
		heavy = append(heavy, r)
	}
	newcomer, _ := s.ReserveAt(t0.Add(500*time.Millisecond), sched.Request{Session: "new", Cost: 1})

	// Run virtual time forward until nothing waits.
	for t := t0; !t.IsZero(); t = s.AdvanceAt(t) {
	}
	g, _ := newcomer.Grant()
	fmt.Println("newcomer waited", g.Queued)
	last, _ := heavy[62].Grant()
	fmt.Println("heavy's 63rd search waited", last.Queued)
	// Output:
	// newcomer waited 500ms
	// heavy's 63rd search waited 4s
}

// Wait grants at once when there is room, and fails at once, with the
// expected delay, when the grant would come after the context's deadline.
func ExampleScheduler_Wait() {
	s := sched.New(sched.Limit{Units: 60, Per: time.Minute}, nil)
	ctx := context.Background()

	g, err := s.Wait(ctx, sched.Request{Session: "mcp-session-1", Cost: 60})
	fmt.Println("queued", g.Queued, err)

	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = s.Wait(ctx, sched.Request{Session: "mcp-session-1", Cost: 5})
	var re *sched.RetryError
	if errors.As(err, &re) {
		fmt.Println("retry after", re.After.Round(time.Second))
	}
	// Output:
	// queued 0s <nil>
	// retry after 5s
}

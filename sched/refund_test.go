package sched

import (
	"testing"
	"time"
)

// TestRefundAfterLaterGrantsNeverOverfills: a grant refunded after other
// grants followed it gives back no more than a platform that never saw it
// still holds. The platform, full when the refunded call took 5 of its 10
// units, was still full (its refill wasted) when the next call took 3, so
// it holds 7; giving the 5 back in full left this bucket at 9.5, and the
// next grants went over the platform's limit (TestHammer under -race). A
// refund with nothing after it is exact.
func TestRefundAfterLaterGrantsNeverOverfills(t *testing.T) {
	l := Limit{Units: 10, Per: time.Second}
	g := time.Unix(100, 0)
	b := newBucket(l, l.Units)
	b.take(g, 5)
	since := b.charged
	y := g.Add(250 * time.Millisecond)
	b.take(y, 3)
	b.refund(y, 5, since)
	if got := b.tokens(y); got > 7+1e-9 {
		t.Fatalf("after the refund the bucket holds %v units; the platform, which saw only the call of 3, holds 7", got)
	}

	alone := newBucket(l, l.Units)
	alone.take(g, 5)
	since = alone.charged
	alone.refund(g.Add(100*time.Millisecond), 5, since)
	if got := alone.tokens(g.Add(100 * time.Millisecond)); got != 10 {
		t.Fatalf("a refund with no grant after it: the bucket holds %v units, want all 10 back", got)
	}
}

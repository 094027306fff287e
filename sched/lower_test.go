package sched

import (
	"testing"
	"time"
)

func TestLowerAtEmptiesAndNeverRaises(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	s := New(Limit{Units: 60, Per: time.Minute}, nil)
	if got := s.TokensAt(t0); got != 60 {
		t.Fatalf("new bucket holds %v units, want 60", got)
	}
	s.LowerAt(t0, 0)
	if got := s.TokensAt(t0); got != 0 {
		t.Fatalf("after LowerAt(0): %v units, want 0", got)
	}
	if got := s.TokensAt(t0.Add(2 * time.Second)); got != 2 {
		t.Fatalf("2 s after emptying: %v units, want 2 (refill goes on)", got)
	}
	s.LowerAt(t0.Add(2*time.Second), 10)
	if got := s.TokensAt(t0.Add(2 * time.Second)); got != 2 {
		t.Fatalf("LowerAt(10) raised the bucket to %v", got)
	}
	r, err := s.ReserveAt(t0.Add(2*time.Second), Request{Session: "a", Cost: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Grant(); ok {
		t.Fatal("a cost of 3 was granted from 2 units")
	}
	s.AdvanceAt(t0.Add(3 * time.Second))
	if g, ok := r.Grant(); !ok || !g.At.Equal(t0.Add(3*time.Second)) {
		t.Fatalf("grant %+v %v, want at t0+3s", g, ok)
	}
}

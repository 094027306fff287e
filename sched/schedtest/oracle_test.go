package schedtest_test

import (
	"math"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// euler integrates the fluid model step by step, as a check on the closed
// form: each waiting session's rate is proportional to its weight.
func euler(c float64, used []float64, public []bool, total float64) []float64 {
	u := append([]float64(nil), used...)
	got := make([]float64, len(u))
	const steps = 200000
	for range steps {
		w := make([]float64, len(u))
		sum := 0.0
		for i := range u {
			w[i] = c / (c + u[i])
			if public[i] {
				w[i] = 1
			}
			sum += w[i]
		}
		for i := range u {
			d := total / steps * w[i] / sum
			got[i] += d
			if !public[i] {
				u[i] += d
			}
		}
	}
	return got
}

func TestFairShares(t *testing.T) {
	for _, tt := range []struct {
		used   []float64
		public []bool
		total  float64
	}{
		{[]float64{0, 0, 0}, []bool{false, false, false}, 300},
		{[]float64{60, 0}, []bool{false, false}, 1},
		{[]float64{240, 0}, []bool{false, false}, 420},
		{[]float64{1260, 8, 7}, []bool{false, false, false}, 420},
		{[]float64{0, 500}, []bool{true, false}, 600},
	} {
		got := schedtest.FairShares(60, tt.used, tt.public, tt.total)
		want := euler(60, tt.used, tt.public, tt.total)
		sum := 0.0
		for i := range got {
			sum += got[i]
			if math.Abs(got[i]-want[i]) > 1e-3*tt.total {
				t.Errorf("used %v: FairShares %v, integration %v", tt.used, got, want)
				break
			}
		}
		if math.Abs(sum-tt.total) > 1e-6*tt.total {
			t.Errorf("used %v: shares add up to %v; want %v", tt.used, sum, tt.total)
		}
	}
	// The seed's ratios, for a small window: used 60 gets half, 120 a third.
	got := schedtest.FairShares(60, []float64{0, 60, 120}, nil, 0.006)
	if r1, r2 := got[1]/got[0], got[2]/got[0]; math.Abs(r1-0.5) > 1e-3 || math.Abs(r2-1.0/3) > 1e-3 {
		t.Errorf("ratios %v, %v; want 1/2, 1/3", r1, r2)
	}
}

// TestPlatform checks the platform model against OpenBesluitvorming's
// rate_limit.ts: capacity 60, one unit a second, a call accepted only if it
// fits (and, as sched's documented extension, an oversized call on a full
// bucket, which it empties).
func TestPlatform(t *testing.T) {
	t0 := schedtest.Epoch
	p := schedtest.NewPlatform(schedtest.OBV)
	steps := []struct {
		at     time.Duration
		cost   float64
		ok     bool
		tokens float64
	}{
		{0, 59, true, 1},
		{0, 1.125, false, 1},
		{125 * time.Millisecond, 1.125, true, 0},
		{500 * time.Millisecond, 0.125, true, 0.25},
		{time.Hour, 61, true, 0}, // oversized: only on a full bucket, which it empties
		{time.Hour + 250*time.Millisecond, 0.5, false, 0.25},
		{time.Hour + 500*time.Millisecond, 0.5, true, 0},
		{time.Hour + 1500*time.Millisecond, 0.5, true, 0.5},
	}
	for i, st := range steps {
		if ok := p.Send(t0.Add(st.at), st.cost); ok != st.ok || p.Tokens() != st.tokens {
			t.Fatalf("step %d: Send(%v) = %v leaving %v; want %v leaving %v", i, st.cost, ok, p.Tokens(), st.ok, st.tokens)
		}
	}
	if got, want := p.ReadyAt(t0.Add(time.Hour+1500*time.Millisecond), 3), t0.Add(time.Hour+4000*time.Millisecond); !got.Equal(want) {
		t.Fatalf("ReadyAt = %v; want %v", got.Sub(t0), want.Sub(t0))
	}
	q := schedtest.NewPlatform(sched.Limit{Units: 10, Per: 10 * time.Second})
	q.Send(t0, 5)
	if q.Send(t0, 11) {
		t.Fatal("an oversized call was accepted on a bucket that is not full")
	}
	// Full again ten seconds later: the oversized call empties it, and
	// the next unit is there one second after, as after a call costing C.
	if !q.Send(t0.Add(10*time.Second), 25) || q.Tokens() != 0 {
		t.Fatalf("an oversized call on a full bucket: %v units left; want accepted, 0", q.Tokens())
	}
	if got, want := q.ReadyAt(t0.Add(10*time.Second), 1), t0.Add(11*time.Second); !got.Equal(want) {
		t.Fatalf("after the oversized call, ReadyAt(1) = %v; want %v", got.Sub(t0), want.Sub(t0))
	}
}

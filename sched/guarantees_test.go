package sched_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// Each TestGuaranteeN checks guarantee N of the package documentation.

func TestGuarantee1NeverOverLimit(t *testing.T) {
	// Half an hour of mixed traffic with fractional and oversized costs,
	// cancellations, pauses and platform feedback; every grant is replayed
	// to an exact model of the platform's bucket.
	l := schedtest.OBV
	d := newDriver(t, l, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	var waiting []int
	for d.now.Before(epoch.Add(30 * time.Minute)) {
		switch x := rng.IntN(100); {
		case x < 60:
			cost := float64(1+rng.IntN(40)) / 8
			if rng.IntN(50) == 0 {
				cost = l.Units * 1.5
			}
			waiting = append(waiting, d.ask(fmt.Sprintf("s%d", rng.IntN(12)), cost))
		case x < 70 && len(waiting) > 0:
			i := rng.IntN(len(waiting))
			d.asks[waiting[i]].r.CancelAt(d.now)
			waiting = append(waiting[:i], waiting[i+1:]...)
		case x < 72:
			d.s.PauseUntil(d.now.Add(time.Duration(rng.IntN(5)) * time.Second))
		case x < 80:
			d.s.Observe(float64(rng.IntN(60)), time.Duration(rng.IntN(61))*time.Second, d.now)
		default:
			d.until(d.now.Add(time.Duration(rng.IntN(3000)) * time.Millisecond))
		}
	}
	d.until(d.now.Add(time.Hour))
	d.checkExact()
	if n := len(d.grants()); n < 500 {
		t.Fatalf("only %d grants: the test exercised too little", n)
	}
}

func TestGuarantee2ImmediateWhenRoom(t *testing.T) {
	t.Run("a call with room goes at once", func(t *testing.T) {
		d := newDriver(t, schedtest.OBV, nil)
		for range 60 {
			i := d.ask("A", 1)
			if g, ok := d.asks[i].r.Grant(); !ok || g.Queued != 0 || !g.At.Equal(epoch) {
				t.Fatalf("call %d: granted %v, %+v; want at once", i, ok, g)
			}
		}
	})
	t.Run("the rate is used in full while calls wait", func(t *testing.T) {
		// Three sessions with different costs keep calls waiting for ten
		// windows. Every grant must happen at the first instant the
		// platform would accept it, so no refill is wasted.
		l := schedtest.OBV
		d := newDriver(t, l, nil)
		costs := map[string]float64{"a": 1, "b": 2.5, "c": 0.125}
		for s, c := range costs {
			for range 3 {
				d.ask(s, c)
			}
		}
		p := schedtest.NewPlatform(l)
		p.Send(epoch, 0)
		end := epoch.Add(10 * l.Per)
		units := 0.0
		for seen := 0; d.now.Before(end); {
			d.until(d.s.AdvanceAt(d.now))
			gs := d.grants()
			for _, g := range gs[seen:] {
				a := d.asks[g.i]
				if g.g.At.After(end) {
					continue
				}
				if ready := p.ReadyAt(g.g.At, a.cost); !ready.Equal(g.g.At) {
					t.Fatalf("grant %d at %v: the platform was ready at %v", g.g.Seq, g.g.At.Sub(epoch), ready.Sub(epoch))
				}
				// The platform must not have been ready for this call
				// before the previous grant left it waiting.
				p.Send(g.g.At, a.cost)
				units += a.cost
				d.ask(a.session, a.cost)
			}
			seen = len(gs)
		}
		// A full bucket plus ten windows of refill, less at most one call.
		if most := l.Units * 11; units < most-2.5 || units > most {
			t.Fatalf("granted %v units in 10 windows; want %v (less one call at most)", units, most)
		}
	})
	t.Run("one session gets the whole limit", func(t *testing.T) {
		r := schedtest.Run(schedtest.Scenario{
			Name: "alone", Limit: schedtest.OBV, Duration: 10 * time.Minute,
			Groups: []schedtest.Group{{Name: "a", Threads: 3, Cost: 1}},
		}, "sched", schedtest.NewSched(schedtest.OBV, 0))
		if want := 60.0 + 10*60 - 1; r.Units < want {
			t.Fatalf("one session got %v units in 10 minutes; want ≥ %v", r.Units, want)
		}
	})
}

func TestGuarantee3ShareByUsage(t *testing.T) {
	// With tiny costs the weights barely move while the calls are counted,
	// so the ratio of grants is the ratio of weights, C / (C + used).
	for _, tt := range []struct {
		used         int
		wantA, wantB int // grants out of 48
	}{
		{0, 24, 24},
		{60, 16, 32},  // half of a new session
		{120, 12, 36}, // one third
	} {
		t.Run(fmt.Sprintf("used %d", tt.used), func(t *testing.T) {
			l := schedtest.OBV
			d := newDriver(t, l, nil)
			for i := range tt.used {
				d.until(epoch.Add(time.Duration(i) * time.Second))
				d.ask("A", 1)
			}
			d.until(d.now.Add(2 * l.Per)) // the bucket is full again
			d.ask("Z", l.Units)           // and now empty
			for range 48 {
				d.ask("A", 0.125)
				d.ask("B", 0.125)
			}
			got := map[string]int{}
			for got["A"]+got["B"] < 48 {
				for _, i := range d.next() {
					got[d.asks[i].session]++
				}
			}
			if math.Abs(float64(got["A"]-tt.wantA)) > 1 {
				t.Fatalf("A (used %d) got %d of 48 grants, B %d; want %d and %d (±1)", tt.used, got["A"], got["B"], tt.wantA, tt.wantB)
			}
		})
	}
	t.Run("on the host's bucket the weights use the declared capacity", func(t *testing.T) {
		// The host runs OpenBesluitvorming's 60 per minute on a bucket of
		// 59 per 59 s with PlatformUnits 60. A, which used 60 units, and a
		// new session B share 20 units in calls of 1/64: A's share must
		// be the oracle's for weights 60/(60+used), which start at exactly
		// 1/2 of B's, and not that of weights on the bucket's 59.
		bucket := sched.Limit{Units: 59, Per: 59 * time.Second}
		d := newDriver(t, bucket, &sched.Options{PlatformUnits: 60})
		for i := range 60 {
			d.until(epoch.Add(time.Duration(i) * time.Second))
			d.ask("A", 1)
		}
		d.until(d.now.Add(2 * bucket.Per)) // the bucket is full again
		d.ask("Z", bucket.Units)           // and now empty
		const c, n = 1.0 / 64, 1280
		for range n {
			d.ask("A", c)
			d.ask("B", c)
		}
		got := map[string]float64{}
		for got["A"]+got["B"] < n*c {
			for _, i := range d.next() {
				got[d.asks[i].session] += c
			}
		}
		total := got["A"] + got["B"]
		want := schedtest.FairShares(60, []float64{60, 0}, nil, total)[0] / total
		wrong := schedtest.FairShares(59, []float64{60, 0}, nil, total)[0] / total
		const margin = 0.0005
		if share := got["A"] / total; math.Abs(share-want) > margin {
			t.Fatalf("A (used 60) got %.5f of %v units; want %.5f ± %v (weights on 59 would give %.5f)", share, total, want, margin, wrong)
		}
		if math.Abs(want-wrong) < 2*margin {
			t.Fatalf("the oracles for 60 and 59 differ by %.5f: the check cannot tell them apart", math.Abs(want-wrong))
		}
	})
	t.Run("against the oracle", func(t *testing.T) {
		for _, sc := range schedtest.Scenarios() {
			if len(sc.Fair) == 0 {
				continue
			}
			r := schedtest.Run(sc, "sched", schedtest.NewSchedFor(sc))
			if r.ShareDev > sc.Expect.ShareMargin {
				t.Errorf("%s: shares deviate %.4f from the oracle; margin %.4f", sc.Name, r.ShareDev, sc.Expect.ShareMargin)
			}
			b := schedtest.Run(sc, "fifo", schedtest.NewFIFO(sc.Limit))
			if b.ShareDev <= sc.Expect.ShareMargin {
				t.Errorf("%s: the FIFO baseline's shares are within the margin (%.4f): the check cannot fail", sc.Name, b.ShareDev)
			}
		}
	})
}

func TestGuarantee4NoStarvation(t *testing.T) {
	scs := map[string]schedtest.Scenario{}
	for _, sc := range schedtest.Scenarios() {
		scs[sc.Name] = sc
	}
	t.Run("a heavy user gets a call every window", func(t *testing.T) {
		sc := scs["starving"]
		r := schedtest.Run(sc, "sched", schedtest.NewSchedFor(sc))
		if r.MaxGap > sc.Limit.Per {
			t.Fatalf("%s waited %v without a grant; want ≤ %v", r.MaxGapSession, r.MaxGap, sc.Limit.Per)
		}
	})
	t.Run("longest waiting first when a window cannot serve all", func(t *testing.T) {
		sc := scs["crowd"]
		r := schedtest.Run(sc, "sched", schedtest.NewSchedFor(sc))
		if want := time.Duration(90 * float64(sc.Limit.Per) / sc.Limit.Units); r.MaxGap > want {
			t.Fatalf("%s waited %v without a grant; want ≤ %v", r.MaxGapSession, r.MaxGap, want)
		}
		// After the start, each grant goes to the session whose current
		// wait began first.
		since := map[string]time.Time{}
		outstanding := map[string]int{}
		type ev struct {
			at    time.Time
			grant bool
			rec   schedtest.Record
		}
		var evs []ev
		for _, rec := range r.Records {
			evs = append(evs, ev{rec.Asked, false, rec})
			if !rec.At.IsZero() {
				evs = append(evs, ev{rec.At, true, rec})
			}
		}
		slices.SortStableFunc(evs, func(a, b ev) int {
			if c := a.at.Compare(b.at); c != 0 {
				return c
			}
			if a.grant != b.grant { // asks first
				if a.grant {
					return 1
				}
				return -1
			}
			return int(a.rec.Seq) - int(b.rec.Seq)
		})
		from := epoch.Add(sc.From)
		for _, e := range evs {
			s := e.rec.Session
			if !e.grant {
				if outstanding[s] == 0 {
					since[s] = e.at
				}
				outstanding[s]++
				continue
			}
			if !e.at.Before(from) {
				for o, n := range outstanding {
					if n > 0 && o != s && since[o].Before(since[s]) {
						t.Fatalf("at %v %s (waiting since %v) went before %s (waiting since %v)",
							e.at.Sub(epoch), s, since[s].Sub(epoch), o, since[o].Sub(epoch))
					}
				}
			}
			outstanding[s]--
			since[s] = e.at
		}
	})
}

func TestGuarantee5Oversized(t *testing.T) {
	t.Run("served on a full bucket, which it empties", func(t *testing.T) {
		l := sched.Limit{Units: 10, Per: 10 * time.Second}
		d := newDriver(t, l, nil)
		for range 12 {
			d.ask("busy", 1)
		}
		big := -1
		for {
			if big < 0 && !d.now.Before(epoch.Add(5*time.Second)) {
				big = d.ask("bulk", 25)
			}
			for _, i := range d.next() {
				if i != big {
					d.ask(d.asks[i].session, 1) // busy keeps two calls waiting
					continue
				}
				g, _ := d.asks[i].r.Grant()
				// It waits for a full bucket: at most one window, plus the
				// one unit that busy, waiting longer, was owed.
				if g.Queued > l.Per+time.Second {
					t.Fatalf("the oversized call waited %v; want ≤ %v", g.Queued, l.Per+time.Second)
				}
				// It uses up the entire quota and no more: the bucket is
				// empty, not in debt, and busy's next unit is there one
				// second later, not after 15 more units.
				if tok := d.s.TokensAt(g.At); tok != 0 {
					t.Fatalf("after the oversized call the bucket holds %v; want 0", tok)
				}
				next := d.s.AdvanceAt(d.now)
				if want := g.At.Add(time.Second); !next.Equal(want) {
					t.Fatalf("next grant at %v; want %v (one unit after the quota was used up)", next.Sub(epoch), want.Sub(epoch))
				}
				// The session is charged its whole cost: its weight falls
				// to 10/35, and the counters count all 25 units.
				if u := d.s.UsageAt(g.At, "bulk"); u != 25 {
					t.Fatalf("the oversized session's usage is %v; want its whole cost, 25", u)
				}
				d.until(d.now.Add(time.Minute))
				d.checkExact()
				st := d.s.StatsAt(d.now)
				if got := st.Units - float64(st.Calls-1); got != 25 {
					t.Fatalf("Stats counts %v units for the oversized call; want 25", got)
				}
				return
			}
		}
	})
	t.Run("with the host's margin the platform's quota is used up", func(t *testing.T) {
		// The host runs OpenBesluitvorming's 60 per minute on a bucket of
		// 59 per 59 s with PlatformUnits 60. Calls costing 60 (a search
		// for 1440 results, which the platform accepts) and 90 back to
		// back, with ordinary traffic: each is charged the platform's
		// whole quota, and the platform accepts every grant.
		bucket := sched.Limit{Units: 59, Per: 59 * time.Second}
		d := newDriver(t, bucket, &sched.Options{PlatformUnits: 60})
		d.platform = schedtest.OBV
		for range 3 {
			d.ask("busy", 1)
		}
		var big []int
		for range 4 {
			big = append(big, d.ask("bulk", 60))
		}
		big = append(big, d.ask("bulk", 90), d.ask("bulk", 60))
		var after []float64
		for len(after) < len(big) {
			for _, i := range d.next() {
				if slices.Contains(big, i) {
					g, _ := d.asks[i].r.Grant()
					after = append(after, d.s.TokensAt(g.At))
				} else {
					d.ask("busy", 1)
				}
			}
		}
		d.checkExact()
		for i, tok := range after {
			if tok != -1 {
				t.Fatalf("after oversized call %d the 59-unit bucket holds %v; want -1 (the platform's 0)", i, tok)
			}
		}
	})
}

func TestGuarantee6Forgetting(t *testing.T) {
	for _, forget := range []time.Duration{0, time.Minute} {
		want := forget
		if want == 0 {
			want = 30 * time.Minute
		}
		t.Run(fmt.Sprintf("Forget=%v", forget), func(t *testing.T) {
			// A quick limit, so the bucket is full again long before Forget.
			l := sched.Limit{Units: 60, Per: 6 * time.Second}
			// first returns the session that goes first when A, which used
			// 60 units at epoch, and a new session B ask at once, at
			// epoch+probe, on an empty bucket.
			first := func(probe time.Duration) string {
				d := newDriver(t, l, &sched.Options{Forget: forget})
				for range 60 {
					d.ask("A", 1)
				}
				d.until(epoch.Add(probe))
				if got := d.s.UsageAt(d.now, "A"); (probe < want) != (got == 60) {
					t.Errorf("usage of A %v after its last call: %v", probe, got)
				}
				d.ask("Z", l.Units)
				a, b := d.ask("A", 1), d.ask("B", 1)
				switch got := d.next(); {
				case len(got) == 1 && got[0] == a:
					return "A"
				case len(got) == 1 && got[0] == b:
					return "B"
				default:
					t.Fatalf("granted %v", got)
					return ""
				}
			}
			if got := first(want - time.Second); got != "B" {
				t.Errorf("just before Forget, %s went first; want the new session B", got)
			}
			if got := first(want); got != "A" {
				t.Errorf("at Forget, %s went first; want A, forgotten and first in line", got)
			}
		})
	}
}

func TestGuarantee7PublicSession(t *testing.T) {
	l := schedtest.OBV
	d := newDriver(t, l, nil)
	for range 120 {
		d.ask(sched.PublicSession, 1)
	}
	d.until(epoch.Add(2 * l.Per))
	if got := d.s.UsageAt(d.now, sched.PublicSession); got != 0 {
		t.Fatalf("the public session's usage is %v; want 0", got)
	}
	if st := d.s.StatsAt(d.now); st.Units != 120 {
		t.Fatalf("the bucket was charged %v units for the public session; want 120", st.Units)
	}
	// Having used 120 units, it still shares equally with a new session.
	d.ask("Z", l.Units)
	for range 20 {
		d.ask(sched.PublicSession, 1)
		d.ask("new", 1)
	}
	got := map[string]int{}
	for got[sched.PublicSession]+got["new"] < 20 {
		for _, i := range d.next() {
			got[d.asks[i].session]++
		}
	}
	if got[sched.PublicSession] < 9 {
		t.Fatalf("the public session got %d of 20 grants against a new session; want about half", got[sched.PublicSession])
	}
}

func TestGuarantee8Cancellation(t *testing.T) {
	l := sched.Limit{Units: 10, Per: 10 * time.Second}
	t.Run("a cancelled wait leaves at once and costs nothing", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := sched.New(l, nil)
			ctx := context.Background()
			if _, err := s.Wait(ctx, sched.Request{Session: "A", Cost: 10}); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			cctx, cancel := context.WithCancel(ctx)
			errc := make(chan error)
			go func() {
				_, err := s.Wait(cctx, sched.Request{Session: "B", Cost: 5})
				errc <- err
			}()
			var grant sched.Grant
			done := make(chan struct{})
			go func() {
				grant, _ = s.Wait(ctx, sched.Request{Session: "C", Cost: 1})
				close(done)
			}()
			synctest.Wait()
			if st := s.Stats(); st.Queued != 2 {
				t.Fatalf("queued %d; want 2", st.Queued)
			}
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled Wait returned %v", err)
			}
			if st := s.Stats(); st.Queued != 1 || time.Since(start) != 0 {
				t.Fatalf("after cancel: queued %d after %v; want 1 at once", st.Queued, time.Since(start))
			}
			<-done
			// C waits exactly for its own unit, as if B had never asked.
			if grant.Queued != time.Second {
				t.Fatalf("C waited %v; want 1s", grant.Queued)
			}
			if got := s.UsageAt(time.Now(), "B"); got != 0 {
				t.Fatalf("B's usage %v; want 0", got)
			}
		})
	})
	t.Run("a deadline that cannot be met fails at once", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := sched.New(l, nil)
			ctx := context.Background()
			s.Wait(ctx, sched.Request{Session: "A", Cost: 10})
			start := time.Now()
			dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			_, err := s.Wait(dctx, sched.Request{Session: "B", Cost: 3})
			var re *sched.RetryError
			if !errors.As(err, &re) || re.After != 3*time.Second || time.Since(start) != 0 {
				t.Fatalf("got %v after %v; want a RetryError{After: 3s} at once", err, time.Since(start))
			}
			if st := s.Stats(); st.Queued != 0 || st.Rejected != 1 || st.Units != 10 {
				t.Fatalf("stats %+v; want nothing queued or charged", st)
			}
		})
	})
	t.Run("a wait overtaken past its deadline fails as soon as that is known", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := sched.New(l, nil)
			ctx := context.Background()
			// A has used 10 units; its next call takes 2 s and fits a 2.5 s
			// deadline, until a new session takes the first unit.
			s.Wait(ctx, sched.Request{Session: "A", Cost: 10})
			start := time.Now()
			dctx, cancel := context.WithTimeout(ctx, 2500*time.Millisecond)
			defer cancel()
			errc := make(chan error)
			go func() {
				_, err := s.Wait(dctx, sched.Request{Session: "A", Cost: 2})
				errc <- err
			}()
			synctest.Wait()
			time.Sleep(500 * time.Millisecond)
			bdone := make(chan struct{})
			go func() {
				s.Wait(ctx, sched.Request{Session: "B", Cost: 1})
				close(bdone)
			}()
			defer func() { <-bdone }()
			err := <-errc
			var re *sched.RetryError
			if !errors.As(err, &re) || time.Since(start) != 500*time.Millisecond {
				t.Fatalf("got %v at %v; want a RetryError at 500ms", err, time.Since(start))
			}
			if re.After != 2500*time.Millisecond {
				t.Fatalf("After = %v; want 2.5s (B at 1s, then A's 2 units)", re.After)
			}
		})
	})
}

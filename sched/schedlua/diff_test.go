package schedlua

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/sched"
)

// luaSched drives the script directly, as one replica, in explicit time.
type luaSched struct {
	t      testing.TB
	rdb    *redis.Client
	prefix string
	a      Args
}

func newLuaSched(t testing.TB, rdb *redis.Client, l sched.Limit, forget time.Duration) *luaSched {
	return &luaSched{t: t, rdb: rdb, prefix: quotaPrefix("test/search"),
		a: Args{Replica: "r1", Limit: FromSched(l, 0), Forget: forget, Lease: time.Hour}}
}

func (s *luaSched) op(at time.Time, op string, args ...any) Reply {
	s.t.Helper()
	a := s.a
	a.Now = US(at)
	r, err := run(context.Background(), s.rdb, s.prefix, a, op, args...)
	if err != nil {
		s.t.Fatalf("%s at %v: %v", op, at, err)
	}
	return r
}

func (s *luaSched) enqueue(at time.Time, session, id string, cost float64, front bool) Reply {
	return s.op(at, "enq", session, id, Float(cost), s.a.Limit.Charge(cost, true), s.a.Limit.Charge(cost, false), Flag(front), "0")
}

// diffCall is one call in the differential run.
type diffCall struct {
	id      string
	session string
	res     *sched.Reservation
	luaAt   int64 // µs; 0 = not granted by the script
	luaSeq  uint64
}

// TestScriptMatchesSched runs random scenarios through sched.Scheduler
// (the reference) and through the script on miniredis, and requires the
// same grants at the same instants in the same order, and the same next
// instant after every step.
func TestScriptMatchesSched(t *testing.T) {
	// k is the declared capacity (sched.Options.PlatformUnits; 0: the
	// limit's Units): the last two are the host's buckets, one unit of
	// headroom below OpenBesluitvorming's 60 per minute and below 10 per
	// 10 s, with the weights and the oversized charges on the declared
	// capacity.
	limits := []struct {
		l sched.Limit
		k float64
	}{
		{sched.Limit{Units: 60, Per: time.Minute}, 0}, // OpenBesluitvorming
		{sched.Limit{Units: 10, Per: 10 * time.Second}, 0},
		{sched.Limit{Units: 4, Per: 2 * time.Second}, 0},
		{sched.Limit{Units: 59, Per: 59 * time.Second}, 60},
		{sched.Limit{Units: 9, Per: 9 * time.Second}, 10},
	}
	seeds := uint64(15)
	if raceEnabled {
		seeds = 3 // sequential and deterministic: the race detector adds little
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		c := limits[seed%uint64(len(limits))]
		t.Run(fmt.Sprintf("seed%d_%gper%v_K%g", seed, c.l.Units, c.l.Per, c.k), func(t *testing.T) {
			diffScenario(t, seed, c.l, c.k)
		})
	}
}

func diffScenario(t *testing.T, seed uint64, l sched.Limit, k float64) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()
	forget := 3 * l.Per
	rng := rand.New(rand.NewPCG(seed, 7))
	t0 := time.Unix(1_700_000_000, 0)
	ref := sched.New(l, &sched.Options{Forget: forget, PlatformUnits: k})
	ref.LowerAt(t0, 0) // the script starts a bucket it does not know empty
	lua := newLuaSched(t, rdb, l, forget)
	lua.a.Limit.K = k
	lua.op(t0, "hb", "0", "0", "0", "1") // register r1

	sessions := []string{"a", "b", "c", "d", sched.PublicSession}
	var calls []*diffCall
	byID := map[string]*diffCall{}
	now := t0
	collect := func(r Reply) {
		t.Helper()
		for _, g := range r.Grants {
			c := byID[g.ID]
			if c == nil {
				t.Fatalf("script granted unknown call %s", g.ID)
			}
			if c.luaAt != 0 {
				t.Fatalf("script granted %s twice", g.ID)
			}
			c.luaAt, c.luaSeq = g.At, g.Seq
		}
	}
	check := func(step int, what string) {
		t.Helper()
		for _, c := range calls {
			g, ok := c.res.Grant()
			if ok != (c.luaAt != 0) {
				t.Fatalf("step %d (%s): call %s of %s: sched granted=%v (at %v), script granted=%v (at %v)",
					step, what, c.id, c.session, ok, g.At.Sub(t0), c.luaAt != 0, Time(c.luaAt).Sub(t0))
			}
			if ok && (g.At.UnixMicro() != c.luaAt || g.Seq != c.luaSeq) {
				t.Fatalf("step %d (%s): call %s of %s: sched grant at %v seq %d, script at %v seq %d",
					step, what, c.id, c.session, g.At.Sub(t0), g.Seq, Time(c.luaAt).Sub(t0), c.luaSeq)
			}
		}
	}
	for step := 0; step < 300; step++ {
		switch k := rng.IntN(10); {
		case k < 6: // a call arrives
			now = now.Add(time.Duration(rng.IntN(16)) * l.Per / 32)
			s := sessions[rng.IntN(len(sessions))]
			cost := float64(1+rng.IntN(24)) / 8
			switch rng.IntN(40) {
			case 0:
				cost = l.Units + 1 // oversized: K with the host's headroom
			case 1:
				cost = 2*l.Units + 2 // oversized for K too
			}
			front := rng.IntN(12) == 0
			id := fmt.Sprintf("c%d", step)
			res, err := ref.ReserveAt(now, sched.Request{Session: s, Cost: cost, Front: front})
			if err != nil {
				t.Fatal(err)
			}
			c := &diffCall{id: id, session: s, res: res}
			calls = append(calls, c)
			byID[id] = c
			collect(lua.enqueue(now, s, id, cost, front))
			check(step, "enqueue "+s)
		case k < 8: // a waiting call is cancelled
			var waiting []*diffCall
			for _, c := range calls {
				if _, ok := c.res.Grant(); !ok && c.luaAt == 0 && !c.cancelled() {
					waiting = append(waiting, c)
				}
			}
			if len(waiting) == 0 {
				continue
			}
			c := waiting[rng.IntN(len(waiting))]
			now = now.Add(time.Duration(rng.IntN(4)) * l.Per / 64)
			if !c.res.CancelAt(now) {
				t.Fatalf("step %d: sched refused to cancel a waiting call", step)
			}
			c.id = "x" + c.id // cancelled: never granted by either
			r := lua.op(now, "cancel", c.session, c.id[1:], "0", "0")
			if r.Cancel != "removed" {
				t.Fatalf("step %d: script answered %q to cancelling a waiting call", step, r.Cancel)
			}
			collect(r)
			check(step, "cancel")
		default: // time passes
			now = now.Add(time.Duration(rng.IntN(20)) * l.Per / 40)
			next := ref.AdvanceAt(now)
			r := lua.op(now, "adv")
			collect(r)
			check(step, "advance")
			if want := US(next); r.Next != want {
				t.Fatalf("step %d: next grant: sched %v, script %v", step, next.Sub(t0), Time(r.Next).Sub(t0))
			}
		}
	}
	// Drain: everything still waiting is granted the same way.
	for i := 0; i < 2000; i++ {
		next := ref.AdvanceAt(now)
		r := lua.op(now, "adv")
		collect(r)
		check(-1, "drain")
		if next.IsZero() {
			break
		}
		now = next
	}
	granted := 0
	for _, c := range calls {
		if c.luaAt != 0 {
			granted++
		}
	}
	if granted < len(calls)/2 {
		t.Fatalf("only %d of %d calls granted: the scenario tests little", granted, len(calls))
	}
}

func (c *diffCall) cancelled() bool { return c.id[0] == 'x' }

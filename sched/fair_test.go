package sched_test

import (
	"fmt"
	"testing"

	"github.com/besluitbron/besluitbron/sched"
	"pgregory.net/rapid"
)

// FairQueue's tests. The admission's own tests (host/internal/runtime/
// admission) check the same behaviours through its slots; these check the
// queue itself, and hold it to a reference written as the package doc
// states the rules.

// TestFairQueueSharesFollowWeights: sessions of weights 1, 1/2 and 1/3
// that always keep items waiting get pops in proportion 6 : 3 : 2, within
// start-time fair queueing's bound of one item each.
func TestFairQueueSharesFollowWeights(t *testing.T) {
	weights := map[string]float64{"new": 1, "used60": 0.5, "used120": 1.0 / 3}
	q := sched.NewFairQueue[int](func(s string) float64 { return weights[s] })
	for s := range weights {
		for i := range 4 {
			q.Push(s, i, 1)
		}
	}
	got := map[string]int{}
	const pops = 1100
	for range pops {
		s, item, ok := q.Pop()
		if !ok {
			t.Fatal("nothing to pop while every session waits")
		}
		got[s]++
		q.Push(s, item, 1) // it keeps waiting
	}
	for s, want := range map[string]float64{"new": 600, "used60": 300, "used120": 200} {
		if d := float64(got[s]) - want; d < -2 || d > 2 {
			t.Errorf("%s got %d of %d pops, want %v ± 2", s, got[s], pops, want)
		}
	}
}

// TestFairQueueNewcomerFirst: one session floods and two of its items are
// in use; a newcomer's item is popped next, ahead of the flood's waiting
// items, because the owner has not restarted virtual time.
func TestFairQueueNewcomerFirst(t *testing.T) {
	q := sched.NewFairQueue[int](nil)
	for i := range 6 {
		q.Push("flood", i, 1)
	}
	for range 2 {
		if s, _, _ := q.Pop(); s != "flood" {
			t.Fatalf("popped %q, want flood", s)
		}
	}
	q.Push("newcomer", 0, 1)
	if s, _, _ := q.Pop(); s != "newcomer" {
		t.Fatalf("popped %q, want the newcomer", s)
	}
	if q.Len() != 4 {
		t.Fatalf("Len %d, want 4", q.Len())
	}
}

// TestFairQueueOrderWithinSession: a session's items come out in the
// order they were pushed, whatever is removed between them.
func TestFairQueueOrderWithinSession(t *testing.T) {
	q := sched.NewFairQueue[int](nil)
	for i := range 5 {
		q.Push("s", i, 1)
	}
	if !q.Remove("s", 2) {
		t.Fatal("Remove of a waiting item reported false")
	}
	if q.Remove("s", 2) || q.Remove("other", 0) {
		t.Fatal("Remove of an item that does not wait reported true")
	}
	var got []int
	for {
		_, item, ok := q.Pop()
		if !ok {
			break
		}
		got = append(got, item)
	}
	if fmt.Sprint(got) != "[0 1 3 4]" {
		t.Fatalf("popped %v, want [0 1 3 4]", got)
	}
}

// TestFairQueueServe: an item served on arrival moves its session's tag
// as a pushed and popped one does, and nothing is served past items that
// wait.
func TestFairQueueServe(t *testing.T) {
	q := sched.NewFairQueue[int](nil)
	if !q.Serve("flood", 1) || !q.Serve("flood", 1) {
		t.Fatal("Serve refused with nothing waiting")
	}
	q.Push("flood", 0, 1)
	if q.Serve("other", 1) {
		t.Fatal("Serve went past a waiting item")
	}
	q.Push("newcomer", 0, 1)
	if s, _, _ := q.Pop(); s != "newcomer" {
		t.Fatalf("popped %q, want the newcomer: flood was served twice", s)
	}
}

// TestFairQueueRestart: after a restart a session that was served and a
// newcomer are level again (the first to wait goes first); a restart
// while items wait does nothing.
func TestFairQueueRestart(t *testing.T) {
	q := sched.NewFairQueue[int](nil)
	q.Push("a", 0, 1)
	q.Pop()
	q.Push("a", 1, 1)
	q.Restart() // a waits: no restart
	q.Push("b", 0, 1)
	if s, _, _ := q.Pop(); s != "b" {
		t.Fatalf("popped %q, want b: a was served in this busy period", s)
	}
	q.Pop()
	q.Restart()
	q.Push("a", 2, 1)
	q.Push("b", 1, 1)
	if s, _, _ := q.Pop(); s != "a" {
		t.Fatalf("after the restart popped %q, want a, level with b and waiting first", s)
	}
}

// refFair is start-time fair queueing as the package doc states it,
// scanning every waiting session: the oracle of
// TestFairQueueMatchesReference.
type refFair struct {
	weight  func(string) float64
	vt      float64
	epoch   int
	joins   int
	s       map[string]*refFairSession
	waiting []*refFairSession
}

type refFairSession struct {
	id                     string
	items                  []int
	costs                  []float64
	start, finish, lastFin float64
	epoch, joined          int
}

func (r *refFair) join(s *refFairSession) {
	s.finish = s.start + s.costs[0]/r.weight(s.id)
	s.joined = r.joins
	r.joins++
	r.waiting = append(r.waiting, s)
}

func (r *refFair) leave(s *refFairSession) {
	for i, x := range r.waiting {
		if x == s {
			r.waiting = append(r.waiting[:i], r.waiting[i+1:]...)
			return
		}
	}
}

func (r *refFair) push(id string, item int, cost float64) {
	s := r.s[id]
	if s == nil {
		s = &refFairSession{id: id}
		r.s[id] = s
	}
	s.items, s.costs = append(s.items, item), append(s.costs, cost)
	if len(s.items) == 1 {
		if s.epoch != r.epoch {
			s.lastFin, s.epoch = 0, r.epoch
		}
		s.start = max(r.vt, s.lastFin)
		r.join(s)
	}
}

func (r *refFair) pop() (string, int, bool) {
	var b *refFairSession
	for _, s := range r.waiting {
		if b == nil || s.start < b.start || s.start == b.start && (s.finish < b.finish || s.finish == b.finish && s.joined < b.joined) {
			b = s
		}
	}
	if b == nil {
		return "", 0, false
	}
	item := b.items[0]
	b.items, b.costs = b.items[1:], b.costs[1:]
	r.vt = max(r.vt, b.start)
	b.lastFin = b.finish
	r.leave(b)
	if len(b.items) > 0 {
		b.start = max(r.vt, b.lastFin)
		r.join(b)
	}
	return b.id, item, true
}

func (r *refFair) remove(id string, item int) bool {
	s := r.s[id]
	if s == nil {
		return false
	}
	for i, x := range s.items {
		if x == item {
			s.items = append(s.items[:i:i], s.items[i+1:]...)
			s.costs = append(s.costs[:i:i], s.costs[i+1:]...)
			switch {
			case len(s.items) == 0:
				r.leave(s)
			case i == 0:
				s.finish = s.start + s.costs[0]/r.weight(s.id)
			}
			return true
		}
	}
	return false
}

func (r *refFair) restart() {
	if len(r.waiting) == 0 {
		r.epoch++
		r.vt = 0
	}
}

// TestFairQueueMatchesReference: under random pushes, pops, removals,
// forgets, serves and restarts, with weights that fall as sessions are served,
// FairQueue pops exactly what the reference pops.
func TestFairQueueMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		served := map[string]int{}
		weight := func(s string) float64 { return 8 / (8 + float64(served[s])) }
		q := sched.NewFairQueue[int](weight)
		r := &refFair{weight: weight, s: map[string]*refFairSession{}}
		sessions := []string{"a", "b", "c", "d", "e"}
		costs := []float64{1, 0.125, 0.5, 2, 3}
		var waiting []struct {
			s    string
			item int
		}
		for i := range rapid.IntRange(1, 200).Draw(t, "ops") {
			switch op := rapid.IntRange(0, 10).Draw(t, "op"); {
			case op < 4:
				s := rapid.SampledFrom(sessions).Draw(t, "session")
				c := rapid.SampledFrom(costs).Draw(t, "cost")
				q.Push(s, i, c)
				r.push(s, i, c)
				waiting = append(waiting, struct {
					s    string
					item int
				}{s, i})
			case op < 7:
				s1, i1, ok1 := q.Pop()
				s2, i2, ok2 := r.pop()
				if s1 != s2 || i1 != i2 || ok1 != ok2 {
					t.Fatalf("op %d: popped %q %d %v, the reference %q %d %v", i, s1, i1, ok1, s2, i2, ok2)
				}
				if ok1 {
					served[s1]++
				}
			case op < 8 && len(waiting) > 0:
				w := waiting[rapid.IntRange(0, len(waiting)-1).Draw(t, "which")]
				if a, b := q.Remove(w.s, w.item), r.remove(w.s, w.item); a != b {
					t.Fatalf("op %d: Remove %v, the reference %v", i, a, b)
				}
			case op < 9:
				q.Forget(rapid.SampledFrom(sessions).Draw(t, "forget"))
			case op < 10:
				// Serve is Push and at once Pop, when nothing waits.
				s := rapid.SampledFrom(sessions).Draw(t, "serve")
				c := rapid.SampledFrom(costs).Draw(t, "cost")
				idle := len(r.waiting) == 0
				if got := q.Serve(s, c); got != idle {
					t.Fatalf("op %d: Serve %v with %d sessions waiting", i, got, len(r.waiting))
				}
				if idle {
					r.push(s, -1, c)
					if got, _, _ := r.pop(); got != s {
						t.Fatalf("op %d: the reference popped %q, want %q", i, got, s)
					}
					served[s]++
				}
			default:
				q.Restart()
				r.restart()
			}
			n := 0
			for _, s := range r.s {
				n += len(s.items)
			}
			if q.Len() != n {
				t.Fatalf("op %d: Len %d, the reference holds %d", i, q.Len(), n)
			}
		}
	})
}

// TestFairQueueOrderIsThePops: Order names the waiting items in the
// order Pop then takes them, for any pushes, pops and removes before it
// (weights fixed), and changes nothing: the pops after it are those a
// queue never asked gives.
func TestFairQueueOrderIsThePops(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		weights := map[string]float64{"a": 1, "b": 0.5, "c": 0.25, "d": 0.8}
		names := []string{"a", "b", "c", "d"}
		build := func() *sched.FairQueue[int] {
			return sched.NewFairQueue[int](func(s string) float64 { return weights[s] })
		}
		q, twin := build(), build()
		type item struct {
			s string
			n int
		}
		var waiting []item
		ops := rapid.SliceOfN(rapid.IntRange(0, 9), 1, 60).Draw(t, "ops")
		for k, op := range ops {
			switch {
			case op < 6:
				s := names[op%len(names)]
				cost := float64(1 + op%3)
				q.Push(s, k, cost)
				twin.Push(s, k, cost)
				waiting = append(waiting, item{s, k})
			case op < 8:
				q.Pop()
				twin.Pop()
			case len(waiting) > 0:
				w := waiting[k%len(waiting)]
				q.Remove(w.s, w.n)
				twin.Remove(w.s, w.n)
			}
		}
		var order []item
		q.Order(func(s string, n int) bool { order = append(order, item{s, n}); return true })
		if len(order) != q.Len() {
			t.Fatalf("Order named %d items, %d wait", len(order), q.Len())
		}
		for i, want := range order {
			s, n, ok := q.Pop()
			if !ok || s != want.s || n != want.n {
				t.Fatalf("pop %d took %s/%d, Order said %s/%d", i+1, s, n, want.s, want.n)
			}
			if s2, n2, _ := twin.Pop(); s2 != s || n2 != n {
				t.Fatalf("pop %d: the queue Order read took %s/%d, its twin %s/%d", i+1, s, n, s2, n2)
			}
		}
	})
}

package sched

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// ten is the limit of the step tables: 10 units per 10 s, one unit a second.
var ten = Limit{Units: 10, Per: 10 * time.Second}

// step is one row of a core step table: at instant t0+at the ops run, then
// the core is advanced to that instant. granted lists the calls granted by
// the row, in grant order; next is the instant of the next possible grant
// as an offset from t0 (none: nothing waits).
type step struct {
	at      time.Duration
	ops     string // ";"-separated: "ask NAME SESSION COST", "front NAME SESSION COST", "cancel NAME", "pause OFFSET", "observe REMAINING RESET"
	granted string
	next    time.Duration
}

const none = -1

type coreRig struct {
	t        *testing.T
	s        *Scheduler
	calls    map[string]*call
	reported map[*call]bool
}

func newCoreRig(t *testing.T, l Limit) *coreRig {
	return &coreRig{t: t, s: newTestableScheduler(l, 0, nil), calls: map[string]*call{}, reported: map[*call]bool{}}
}

func (r *coreRig) run(steps []step) {
	r.t.Helper()
	for i, st := range steps {
		at := t0.Add(st.at)
		for op := range strings.SplitSeq(st.ops, ";") {
			f := strings.Fields(op)
			if len(f) == 0 {
				continue
			}
			switch f[0] {
			case "ask", "front":
				cost, _ := strconv.ParseFloat(f[3], 64)
				res, err := r.s.ReserveAt(at, Request{Session: f[2], Cost: cost, Front: f[0] == "front"})
				if err != nil {
					r.t.Fatalf("step %d: %v", i, err)
				}
				r.calls[f[1]] = res.c
			case "cancel":
				(&Reservation{s: r.s, c: r.calls[f[1]]}).CancelAt(at)
			case "pause":
				d, _ := time.ParseDuration(f[1])
				r.s.PauseUntil(t0.Add(d))
			case "observe":
				rem, _ := strconv.ParseFloat(f[1], 64)
				reset, _ := time.ParseDuration(f[2])
				r.s.Observe(rem, reset, at)
			default:
				r.t.Fatalf("step %d: unknown op %q", i, op)
			}
		}
		next := r.s.AdvanceAt(at)
		var got []*call
		for _, c := range r.calls {
			if c.state == stateGranted && !r.reported[c] {
				r.reported[c] = true
				got = append(got, c)
			}
		}
		slices.SortFunc(got, func(a, b *call) int { return int(a.grant.Seq) - int(b.grant.Seq) })
		var names []string
		for _, c := range got {
			for n, x := range r.calls {
				if x == c {
					names = append(names, n)
				}
			}
		}
		if g := strings.Join(names, " "); g != st.granted {
			r.t.Errorf("step %d (t0+%v, %q): granted %q, want %q", i, st.at, st.ops, g, st.granted)
		}
		wantNext := time.Time{}
		if st.next != none {
			wantNext = t0.Add(st.next)
		}
		if !next.Equal(wantNext) {
			r.t.Errorf("step %d (t0+%v): next %v, want %v", i, st.at, off(next), off(wantNext))
		}
	}
}

func off(t time.Time) string {
	if t.IsZero() {
		return "none"
	}
	return "t0+" + t.Sub(t0).String()
}

// asks returns "ask NAME1 s c; ask NAME2 s c; …" for n calls.
func asks(prefix, session string, from, n int, cost float64) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "ask %s%d %s %v;", prefix, i, session, cost)
	}
	return b.String()
}

const s = time.Second

func TestCoreSteps(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"newcomer goes before a deep queue", []step{
			{0, asks("a", "A", 1, 12, 1), "a1 a2 a3 a4 a5 a6 a7 a8 a9 a10", s},
			{s / 2, "ask b1 B 1", "", s},
			{s, "", "b1", 2 * s},
			{2 * s, "", "a11", 3 * s},
			{3 * s, "", "a12", none},
		}},
		{"share by usage: A used 10 (weight 1/2), B new (weight 1)", []step{
			{0, asks("a", "A", 1, 10, 1), "a1 a2 a3 a4 a5 a6 a7 a8 a9 a10", none},
			{0, asks("a", "A", 11, 4, 1) + asks("b", "B", 1, 4, 1), "", s},
			{1 * s, "", "b1", 2 * s},
			{2 * s, "", "a11", 3 * s},
			{3 * s, "", "b2", 4 * s},
			{4 * s, "", "a12", 5 * s},
			{5 * s, "", "b3", 6 * s},
			{6 * s, "", "b4", 7 * s},
			{7 * s, "", "a13", 8 * s},
			{8 * s, "", "a14", none},
		}},
		{"cancel leaves at once, costs nothing, holds nobody up", []step{
			{0, "ask a1 A 10; ask b1 B 4; ask b2 B 1", "a1", 4 * s},
			{s, "cancel b1", "b2", none},
			{2 * s, "ask b3 B 1", "b3", none},
		}},
		{"front goes to the head of its own session only", []step{
			{0, "ask a1 A 10; ask a2 A 1; ask a3 A 1", "a1", s},
			{s / 2, "front a4 A 2", "", 2 * s},
			{2 * s, "", "a4", 3 * s},
			{3 * s, "", "a2", 4 * s},
			{4 * s, "", "a3", none},
		}},
		{"pause and observe", []step{
			{0, "ask a1 A 1; pause 5s; ask a2 A 1", "a1", 5 * s},
			{5 * s, "", "a2", none},
			// The bucket holds 9; the platform says 2 remain: lower to 2.
			{5 * s, "observe 2 -1s; ask a3 A 3", "", 6 * s},
			// 2 ≤ remaining < 3 and 2 ≤ tokens < 3 from an 8 s reset agree
			// with the bucket's 2.5: nothing changes.
			{5*s + s/2, "observe 2 8s", "", 6 * s},
			// 1 ≤ tokens < 2 is all a 9 s reset allows; the bucket's 2.5
			// is too high and drops to 1.
			{5*s + s/2, "observe -1 9s", "", 7*s + s/2},
			{7*s + s/2, "", "a3", none},
		}},
		{"oversized call waits for a full bucket and leaves a debt", []step{
			{0, "ask a1 A 4; ask b1 B 25", "a1", 4 * s},
			// c1 fits and b1 still gets its full bucket in time: c1 goes.
			{2 * s, "ask c1 C 1", "c1", 5 * s},
			{5 * s, "", "b1", none},
			// The bucket is at -15: a unit is there 16 s later.
			{6 * s, "ask d1 D 1", "", 21 * s},
			{21 * s, "", "d1", none},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newCoreRig(t, ten).run(tt.steps)
		})
	}
}

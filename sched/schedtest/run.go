package schedtest

import (
	"container/heap"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

// Epoch is the virtual instant at which every scenario starts.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Record is one call as the harness saw it.
type Record struct {
	Session string
	Group   string
	Cost    float64
	Asked   time.Time
	At      time.Time // zero if never granted
	Seq     uint64
}

// Share is one session's measured share in the scenario's window.
type Share struct {
	Session    string
	Used       float64 // units used when the window opened
	Units      float64 // units granted in the window
	Share      float64 // Units / all Fair sessions' units in the window
	Oracle     float64 // FairShares' share
	Backlogged float64 // fraction of the window the session had a call waiting
}

// Dist summarises waits.
type Dist struct {
	N             int
	P50, P99, Max time.Duration
}

// Result is what Run measured.
type Result struct {
	Scenario string
	Queue    string
	Records  []Record `json:"-"`

	Newcomer      Dist
	Shares        []Share
	ShareDev      float64 // max |Share − Oracle|
	Utilisation   float64 // units charged / (C + C·Duration/W), the most the platform accepts
	MaxWindow     float64 // most units charged in any window of length W
	MaxGap        time.Duration
	MaxGapSession string
	Refused       int // grants the Platform model refused (guarantee 1)
	Unserved      int // calls still waiting at the end
	Calls         int
	Units         float64       // units granted: each call's whole cost
	Charged       float64       // units charged to the platform's bucket: min(cost, C) each
	Ops           int           // Reserve and Advance calls
	Wall          time.Duration // real time spent in them
	Violations    []string
}

// Fair reports whether the run met every expectation.
func (r *Result) Fair() bool { return len(r.Violations) == 0 }

type thread struct {
	session, group string
	g              *Group
	left           *int // calls left for the session; nil: unlimited
	next           time.Time
	seq            int
}

type threadHeap []*thread

func (h threadHeap) Len() int { return len(h) }
func (h threadHeap) Less(i, j int) bool {
	return h[i].next.Before(h[j].next) || h[i].next.Equal(h[j].next) && h[i].seq < h[j].seq
}
func (h threadHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *threadHeap) Push(x any)   { *h = append(*h, x.(*thread)) }
func (h *threadHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// sessions expands the groups into sessions and their threads.
func (sc Scenario) threads() []*thread {
	var ts []*thread
	for gi := range sc.Groups {
		g := &sc.Groups[gi]
		n := max(1, g.Count)
		for i := range n {
			name := g.Name
			if g.Count > 1 {
				name = fmt.Sprintf("%s-%d", g.Name, i+1)
			}
			if g.Public {
				name = sched.PublicSession
			}
			var left *int
			if g.Calls > 0 {
				l := g.Calls
				left = &l
			}
			for range max(1, g.Threads) {
				ts = append(ts, &thread{
					session: name, group: g.Name, g: g, left: left,
					next: Epoch.Add(g.Arrive + time.Duration(i)*g.Every),
				})
			}
		}
	}
	return ts
}

// Run plays sc against q in virtual time and measures it. name labels q.
func Run(sc Scenario, name string, q Queue) *Result {
	end := Epoch.Add(sc.Duration)
	h := &threadHeap{}
	for i, t := range sc.threads() {
		t.seq = i
		heap.Push(h, t)
	}
	type pending struct {
		tk  Ticket
		th  *thread
		rec int
	}
	var out []pending
	var recs []Record
	res := &Result{Scenario: sc.Name, Queue: name}
	timed := func(f func()) {
		start := time.Now()
		f()
		res.Wall += time.Since(start)
		res.Ops++
	}
	now := Epoch
	for {
		for h.Len() > 0 && !(*h)[0].next.After(now) {
			th := heap.Pop(h).(*thread)
			if th.left != nil {
				if *th.left == 0 {
					continue
				}
				*th.left--
			}
			var tk Ticket
			timed(func() { tk = q.Reserve(now, th.session, th.g.Cost) })
			recs = append(recs, Record{Session: th.session, Group: th.group, Cost: th.g.Cost, Asked: now})
			out = append(out, pending{tk, th, len(recs) - 1})
		}
		var next time.Time
		timed(func() { next = q.Advance(now) })
		out = slices.DeleteFunc(out, func(p pending) bool {
			at, seq, ok := p.tk.Granted()
			if !ok {
				return false
			}
			recs[p.rec].At, recs[p.rec].Seq = at, seq
			p.th.next = at.Add(p.th.g.Think)
			if p.th.next.Before(end) {
				heap.Push(h, p.th)
			}
			return true
		})
		if h.Len() > 0 && (next.IsZero() || (*h)[0].next.Before(next)) {
			next = (*h)[0].next
		}
		if next.IsZero() || !next.Before(end) {
			break
		}
		now = next
	}
	res.Records = recs
	measure(sc, res, end)
	return res
}

func measure(sc Scenario, res *Result, end time.Time) {
	recs := res.Records
	l := sc.Limit
	forget := sc.Forget
	if forget == 0 {
		forget = sched.DefaultForget
	}

	// Guarantee 1: replay the grants, in grant order, to the platform.
	var granted []Record
	for _, r := range recs {
		if r.At.IsZero() {
			res.Unserved++
			continue
		}
		granted = append(granted, r)
		res.Calls++
		res.Units += r.Cost
		res.Charged += Charge(l, r.Cost)
	}
	slices.SortFunc(granted, func(a, b Record) int { return int(a.Seq) - int(b.Seq) })
	p := NewPlatform(l)
	p.refill(Epoch)
	for _, r := range granted {
		if !p.Send(r.At, r.Cost) {
			res.Refused++
		}
	}
	res.Utilisation = res.Charged / (l.Units + l.Units*float64(sc.Duration)/float64(l.Per))
	for i, j, sum := 0, 0, 0.0; j < len(granted); j++ {
		sum += Charge(l, granted[j].Cost)
		for granted[j].At.Sub(granted[i].At) >= l.Per {
			sum -= Charge(l, granted[i].Cost)
			i++
		}
		res.MaxWindow = max(res.MaxWindow, sum)
	}

	// Waits per session, as a sweep over asks and grants.
	type ev struct {
		at    time.Time
		delta int
		cost  float64
	}
	bySession := map[string][]ev{}
	var order []string
	var newcomer []time.Duration
	for _, r := range recs {
		if _, ok := bySession[r.Session]; !ok {
			order = append(order, r.Session)
		}
		bySession[r.Session] = append(bySession[r.Session], ev{r.Asked, +1, 0})
		if !r.At.IsZero() {
			bySession[r.Session] = append(bySession[r.Session], ev{r.At, -1, r.Cost})
		}
		if sc.Newcomers != "" && r.Group == sc.Newcomers {
			w := end.Sub(r.Asked)
			if !r.At.IsZero() {
				w = r.At.Sub(r.Asked)
			}
			newcomer = append(newcomer, w)
		}
	}
	res.Newcomer = dist(newcomer)
	from, to := Epoch.Add(sc.From), Epoch.Add(sc.To)
	fair := map[string]bool{}
	for _, g := range sc.Fair {
		fair[g] = true
	}
	group := map[string]string{}
	for _, r := range recs {
		group[r.Session] = r.Group
	}
	var shares []Share
	var public []bool
	for _, s := range order {
		evs := bySession[s]
		slices.SortStableFunc(evs, func(a, b ev) int { return a.at.Compare(b.at) })
		n, since, last := 0, time.Time{}, time.Time{}
		used, usedAtFrom, inWindow, backlogged := 0.0, -1.0, 0.0, time.Duration(0)
		prev := Epoch
		for _, e := range evs {
			if n > 0 {
				backlogged += overlap(prev, e.at, from, to)
			}
			if usedAtFrom < 0 && !e.at.Before(from) {
				usedAtFrom = forgotten(used, n, last, from, forget)
			}
			prev = e.at
			if e.delta > 0 {
				if n == 0 {
					since = e.at
					used = forgotten(used, n, last, e.at, forget)
				}
				n++
				last = e.at
				continue
			}
			n--
			if gap := e.at.Sub(since); gap > res.MaxGap {
				res.MaxGap, res.MaxGapSession = gap, s
			}
			since, last = e.at, e.at
			if s != sched.PublicSession {
				used += e.cost
			}
			if !e.at.Before(from) && e.at.Before(to) {
				inWindow += e.cost
			}
		}
		if n > 0 {
			backlogged += overlap(prev, end, from, to)
			if gap := end.Sub(since); gap > res.MaxGap {
				res.MaxGap, res.MaxGapSession = gap, s
			}
		}
		if usedAtFrom < 0 {
			usedAtFrom = forgotten(used, n, last, from, forget)
		}
		if fair[group[s]] {
			shares = append(shares, Share{
				Session: s, Used: usedAtFrom, Units: inWindow,
				Backlogged: float64(backlogged) / float64(to.Sub(from)),
			})
			public = append(public, s == sched.PublicSession)
		}
	}
	if len(shares) > 0 {
		total := 0.0
		used := make([]float64, len(shares))
		for i, s := range shares {
			total += s.Units
			used[i] = s.Used
		}
		want := FairShares(l.Units, used, public, total)
		for i := range shares {
			shares[i].Share = shares[i].Units / total
			shares[i].Oracle = want[i] / total
			res.ShareDev = max(res.ShareDev, math.Abs(shares[i].Share-shares[i].Oracle))
		}
	}
	res.Shares = shares
	res.Violations = violations(sc, res)
}

// Charge is what a call costing cost takes from the bucket of a platform
// with limit l: the cost, but no more than the whole quota (an oversized
// call uses up the entire quota; see package sched).
func Charge(l sched.Limit, cost float64) float64 { return min(cost, l.Units) }

// forgotten applies the Forget rule: usage is dropped once a session has had
// nothing waiting for forget since its last call.
func forgotten(used float64, waiting int, last, at time.Time, forget time.Duration) float64 {
	if waiting == 0 && !last.IsZero() && at.Sub(last) >= forget {
		return 0
	}
	return used
}

func overlap(a, b, from, to time.Time) time.Duration {
	if a.Before(from) {
		a = from
	}
	if b.After(to) {
		b = to
	}
	if b.After(a) {
		return b.Sub(a)
	}
	return 0
}

func dist(ds []time.Duration) Dist {
	if len(ds) == 0 {
		return Dist{}
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	rank := func(p float64) time.Duration {
		return ds[max(0, int(math.Ceil(p*float64(len(ds))))-1)]
	}
	return Dist{N: len(ds), P50: rank(0.5), P99: rank(0.99), Max: ds[len(ds)-1]}
}

func violations(sc Scenario, r *Result) []string {
	var v []string
	if r.Refused > 0 {
		v = append(v, fmt.Sprintf("the platform refused %d grants: over the limit", r.Refused))
	}
	e := sc.Expect
	if e.NewcomerMax > 0 && r.Newcomer.Max > e.NewcomerMax {
		v = append(v, fmt.Sprintf("a newcomer waited %v > %v", r.Newcomer.Max, e.NewcomerMax))
	}
	if e.MaxGap > 0 && r.MaxGap > e.MaxGap {
		v = append(v, fmt.Sprintf("%s waited %v without a grant > %v", r.MaxGapSession, r.MaxGap, e.MaxGap))
	}
	if e.Served != "" {
		n := 0
		for _, rec := range r.Records {
			if rec.Group == e.Served && rec.At.IsZero() {
				n++
			}
		}
		if n > 0 {
			v = append(v, fmt.Sprintf("%d calls of %s never served", n, e.Served))
		}
	}
	var off []string
	for _, s := range r.Shares {
		if s.Backlogged < 0.99 {
			v = append(v, fmt.Sprintf("%s waited only %.0f%% of the window: share check void", s.Session, 100*s.Backlogged))
		}
		if math.Abs(s.Share-s.Oracle) > e.ShareMargin {
			off = append(off, fmt.Sprintf("%s %.3f (oracle %.3f)", s.Session, s.Share, s.Oracle))
		}
	}
	if len(off) > 0 {
		if len(off) > 3 {
			off = append(off[:3], fmt.Sprintf("and %d more", len(off)-3))
		}
		v = append(v, fmt.Sprintf("shares off by more than %.3f: %s", e.ShareMargin, strings.Join(off, ", ")))
	}
	return v
}

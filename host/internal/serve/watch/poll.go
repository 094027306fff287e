package watch

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/crosssearch"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// group is one search and every watch that follows it: what it has seen,
// when it was polled and what its polls cost.
type group struct {
	q       Query
	watches map[string]bool // watch ids
	// LastPoll and PrevPoll are the two latest polls' starts; LastOK the
	// latest where a platform answered; Polls counts them.
	lastPoll, prevPoll, lastOK time.Time
	polls                      int
	lastErr                    string
	// claimed is when a replica of a cluster took the group's next poll
	// (it polls it now); no replica polls it again until that poll's
	// result is kept, or claimHold after the claim when it never was.
	claimed time.Time
	// turn is the group's place in the round robin: given at creation
	// and again at every poll, from one counter, so groups polled at
	// one instant keep the order they were polled in.
	turn uint64
	// cost is the units the latest poll spent per platform; touched the
	// platforms it searched (nil before the first poll).
	cost    map[string]float64
	touched []string
	entries []Entry // newest first
	seen    map[string]bool
	order   []string // seen keys, oldest first
}

func newGroup(q Query) *group {
	return &group{q: q, watches: map[string]bool{}, cost: map[string]float64{}, seen: map[string]bool{}}
}

// Entry is one result a group found, as the cross-search shows it, with
// the time it was first seen.
type Entry struct {
	crosssearch.Item
	Platform  string    `json:"platform"`
	FirstSeen time.Time `json:"first_seen"`
	// Baseline marks a result found at the group's first poll: listed,
	// new to nobody.
	Baseline bool `json:"baseline,omitempty"`
}

// ledger is one platform's spend by the polls over the last window of its
// limit.
type ledger struct {
	spends []spend
	total  float64 // units in all, since the start
}

type spend struct {
	at    time.Time
	units float64
}

// inWindow is the units spent in (now-per, now], dropping older spends.
func (l *ledger) inWindow(now time.Time, per time.Duration) float64 {
	cut := now.Add(-per)
	i := 0
	for i < len(l.spends) && !l.spends[i].at.After(cut) {
		i++
	}
	l.spends = l.spends[i:]
	sum := 0.0
	for _, s := range l.spends {
		sum += s.units
	}
	return sum
}

// room says whether est more units fit in the platform's share now, and
// if not, when they will (the instant enough of the window's spends have
// left it). A poll dearer than the whole share goes only when the window
// has been empty for as many windows as it is shares dear, so the rate
// stays within the share.
func (l *ledger) room(now time.Time, lim Limit, share, est float64) (bool, time.Time) {
	budget := share * lim.Units
	spent := l.inWindow(now, lim.Per)
	if spent+est <= budget+1e-9 {
		return true, time.Time{}
	}
	if est > budget {
		if len(l.spends) == 0 {
			return true, time.Time{}
		}
		last := l.spends[len(l.spends)-1].at
		wait := time.Duration(float64(lim.Per) * est / budget)
		if !now.Before(last.Add(wait)) {
			return true, time.Time{}
		}
		return false, last.Add(wait)
	}
	left := spent
	for _, s := range l.spends {
		left -= s.units
		if left+est <= budget+1e-9 {
			return false, s.at.Add(lim.Per)
		}
	}
	return false, now.Add(lim.Per)
}

// wake runs the poll loop if it is not running.
func (m *Manager) wake() {
	m.mu.Lock()
	if m.running || m.closed {
		m.mu.Unlock()
		return
	}
	m.running = true
	m.loops.Add(1)
	m.mu.Unlock()
	go m.loop()
}

// loop polls the groups whose turn it is, one at a time, then sets the
// timer for the next turn.
func (m *Manager) loop() {
	defer m.loops.Done()
	for {
		// In a cluster: another replica's new searches first, and only the
		// replica holding the lease polls; the others look again before
		// it would lapse.
		m.current()
		lead := m.leads()
		m.mu.Lock()
		if m.closed {
			m.running = false
			m.mu.Unlock()
			return
		}
		now := m.now()
		if !lead {
			m.running = false
			m.arm(now.Add(m.o.Lease / 2))
			m.mu.Unlock()
			return
		}
		var g *group
		var next time.Time
		if m.o.Shared == nil {
			g, next = m.pick(now)
		} else {
			m.mu.Unlock()
			g, next = m.claim(now)
			m.mu.Lock()
			if m.closed {
				m.running = false
				m.mu.Unlock()
				return
			}
		}
		if g == nil {
			m.running = false
			if m.o.Shared != nil && (next.IsZero() || next.After(now.Add(m.o.Lease/3))) {
				next = now.Add(m.o.Lease / 3) // renew the lease
			}
			m.arm(next)
			m.mu.Unlock()
			return
		}
		m.polls++
		m.turns++
		g.turn = m.turns
		q := g.q
		m.mu.Unlock()
		m.poll(q)
	}
}

// arm sets the timer for at (zero: none needed); m.mu is held.
func (m *Manager) arm(at time.Time) {
	if m.timer != nil {
		m.timer.Stop()
		m.timer = nil
	}
	m.wakeAt = at
	if at.IsZero() {
		return
	}
	d := max(at.Sub(m.now()), 0)
	m.timer = m.o.Clock.AfterFunc(d, func() {
		m.mu.Lock()
		if m.running || m.closed {
			m.mu.Unlock()
			return
		}
		m.running = true // before the goroutine, so Idle is never true in between
		m.loops.Add(1)
		m.mu.Unlock()
		go m.loop()
	})
}

// pick returns the group to poll now, or nil and when to look again.
// Groups go oldest poll first (never polled before any); a group not due
// yet (polled within MinInterval) waits; a group whose platforms lack
// room waits, and no younger group may take room on those platforms
// before it. m.mu is held.
func (m *Manager) pick(now time.Time) (*group, time.Time) {
	gs := make([]*group, 0, len(m.groups))
	for _, g := range m.groups {
		gs = append(gs, g)
	}
	slices.SortFunc(gs, func(a, b *group) int {
		if az, bz := a.lastPoll.IsZero(), b.lastPoll.IsZero(); az != bz {
			if az {
				return -1 // never polled: its baseline first
			}
			return 1
		}
		return cmp.Compare(a.turn, b.turn)
	})
	var next time.Time
	later := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	blocked := map[string]bool{}
	for _, g := range gs {
		if !g.claimed.IsZero() {
			// A replica polls it now (or did, and stopped before keeping
			// the result: then the claim lapses).
			if until := g.claimed.Add(claimHold); now.Before(until) {
				later(until)
				continue
			}
		}
		if !g.lastPoll.IsZero() {
			if due := g.lastPoll.Add(m.o.MinInterval); now.Before(due) {
				// Sorted by last poll: every later group is due later still.
				later(due)
				break
			}
		}
		ok := true
		for _, p := range m.platformsOf(g) {
			if blocked[p] {
				ok = false
				continue
			}
			lim := m.o.Limit(p)
			if !lim.Ok || lim.Units <= 0 || lim.Per <= 0 {
				continue
			}
			l := m.ledgerOf(p)
			fits, at := l.room(now, lim, m.o.Share, m.estimate(g, p))
			if !fits {
				ok = false
				blocked[p] = true
				later(at)
			}
		}
		if ok {
			return g, time.Time{}
		}
	}
	return nil, next
}

// platformsOf are the platforms a group's poll reaches: those its last
// poll searched, else those it names, else the search's defaults.
func (m *Manager) platformsOf(g *group) []string {
	switch {
	case g.touched != nil:
		return g.touched
	case len(g.q.Platforms) > 0:
		return g.q.Platforms
	}
	return m.o.Defaults
}

// estimate is what g's next poll will cost platform p: its last poll's
// cost there, else the last cost any poll measured there, else 1 unit.
func (m *Manager) estimate(g *group, p string) float64 {
	if c := g.cost[p]; c > 0 {
		return c
	}
	if c := m.typical[p]; c > 0 {
		return c
	}
	return 1
}

func (m *Manager) ledgerOf(p string) *ledger {
	l := m.ledger[p]
	if l == nil {
		l = &ledger{}
		m.ledger[p] = l
	}
	return l
}

// poll runs one search of q as the public session and takes in what it
// found.
func (m *Manager) poll(q Query) {
	args := struct {
		Query
		Limit int `json:"limit"`
	}{q, pollLimit}
	raw, _ := json.Marshal(args)
	start := m.now()
	ctx := m.ctx
	if m.o.Shared != nil {
		// The claim lapses after claimHold: the poll must be over by then.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, claimHold)
		defer cancel()
	}
	ans := m.o.Search(ctx, callinfo.Public(), raw)
	var res crosssearch.Result
	decoded := ans.Err == nil && json.Unmarshal(ans.JSON(), &res) == nil
	var uris []string
	err := m.change(func() error {
		uris = nil
		g := m.groups[q.key()]
		if g == nil {
			// Deleted while it ran: its cost still counts.
			g = newGroup(q)
		}
		if m.o.Shared != nil {
			// The turn given at the pick, in the state read since.
			m.turns++
			g.turn = m.turns
		}
		g.prevPoll, g.lastPoll, g.claimed = g.lastPoll, start, time.Time{}
		g.polls++
		var fresh []string
		if !decoded {
			msg := "the search answered nothing"
			if ans.Err != nil {
				msg = ans.Err.Error()
			}
			g.lastErr = clip(msg, 500)
			// The cost is known only in all: it counts on every platform the
			// poll may have reached.
			if u := ans.Summary.Units; u > 0 {
				for _, p := range m.platformsOf(g) {
					m.ledgerOf(p).spends = append(m.ledgerOf(p).spends, spend{start, u})
					m.ledgerOf(p).total += u
				}
			}
		} else {
			fresh = m.takeIn(g, res, start)
		}
		if len(fresh) > 0 {
			for id := range g.watches {
				uris = append(uris, URIPrefix+id)
			}
		}
		return nil
	})
	if err != nil {
		m.log.Warn("watches: a poll's results were not kept", "search", q.Query, "error", err)
		return
	}
	slices.Sort(uris)
	for _, u := range uris {
		switch {
		case m.o.Shared != nil:
			// Every replica tells its own subscribers, this one too.
			m.announce(msgUpdated + u)
		case m.o.Notify != nil:
			m.o.Notify(u)
		}
	}
}

// takeIn records a poll's answer in g: what each platform cost, and the
// results not seen before (returned by key). m.mu is held.
func (m *Manager) takeIn(g *group, res crosssearch.Result, at time.Time) []string {
	baseline := g.polls == 1 && len(g.entries) == 0 && len(g.seen) == 0
	g.lastErr = ""
	if len(res.Answered) > 0 {
		g.lastOK = at
	} else if len(res.Failed) > 0 {
		g.lastErr = "no platform answered (" + strings.Join(res.Failed, ", ") + ")"
	}
	touched := []string{}
	var fresh []string
	var added []Entry
	for _, sec := range res.Sections {
		if sec.Status == crosssearch.StatusSkipped && sec.Units == 0 {
			continue
		}
		touched = append(touched, sec.Platform)
		if sec.Units > 0 {
			l := m.ledgerOf(sec.Platform)
			l.spends = append(l.spends, spend{at, sec.Units})
			l.total += sec.Units
			g.cost[sec.Platform] = sec.Units
			m.typical[sec.Platform] = sec.Units
		}
		for _, it := range sec.Results {
			k := sec.Platform + "\x00" + it.ID
			if g.seen[k] {
				continue
			}
			g.see(k)
			for _, c := range it.AlsoOn {
				g.see(c.Platform + "\x00" + c.ID)
			}
			added = append(added, Entry{Item: it, Platform: sec.Platform, FirstSeen: at, Baseline: baseline})
			if !baseline {
				fresh = append(fresh, k)
			}
		}
	}
	g.touched = touched
	// Newest first: this poll's finds, by their own date, before the
	// older finds.
	slices.SortStableFunc(added, func(a, b Entry) int { return strings.Compare(b.Date, a.Date) })
	g.entries = append(added, g.entries...)
	if len(g.entries) > maxEntries {
		g.entries = g.entries[:maxEntries]
	}
	return fresh
}

// see remembers a result key, forgetting the oldest past maxSeen.
func (g *group) see(k string) {
	if g.seen[k] {
		return
	}
	g.seen[k] = true
	g.order = append(g.order, k)
	if len(g.order) > maxSeen {
		delete(g.seen, g.order[0])
		g.order = g.order[1:]
	}
}

// Idle reports whether no poll runs (tests in virtual time wait for it
// after moving the clock).
func (m *Manager) Idle() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.running
}

// Polls counts the polls started since New.
func (m *Manager) Polls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.polls
}

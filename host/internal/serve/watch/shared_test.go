package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/host/internal/serve/crosssearch"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/cluster"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// replicas is a cluster of watch Managers on one Redis (miniredis), one
// fake clock and one fake platform, each with the cluster's real
// WatchStore.
type replicas struct {
	t   *testing.T
	mr  *miniredis.Miniredis
	clk *schedtest.Clock
	fs  *fakeSearch
	ms  []*Manager
	mu  sync.Mutex
	got map[int][]string // notified URIs per replica
}

func newReplicas(t *testing.T, n int, edit func(*Options)) *replicas {
	t.Helper()
	rs := &replicas{t: t, mr: miniredis.RunT(t), clk: schedtest.NewClock(epoch), got: map[int][]string{}}
	rs.fs = &fakeSearch{clk: rs.clk, cost: 1, docs: map[string][]crosssearch.Item{}}
	for i := range n {
		rs.start(i, edit)
	}
	return rs
}

// start builds replica i (again, after a stop) and starts its polls.
func (rs *replicas) start(i int, edit func(*Options)) {
	t := rs.t
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := cluster.New(context.Background(), cluster.Options{
		Client:       redis.NewClient(&redis.Options{Addr: rs.mr.Addr()}),
		ReplicaID:    fmt.Sprintf("r%d", i+1),
		Clock:        rs.clk,
		ExplicitTime: true,
		Logger:       quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	o := Options{
		Search: rs.fs.search, Platforms: []string{"obv", "tk"}, Defaults: []string{"obv"},
		Limit: func(p string) Limit {
			if p == "obv" {
				return Limit{Units: 60, Per: time.Minute, Ok: true}
			}
			return Limit{}
		},
		Share: 0.1, MinInterval: 15 * time.Minute, MaxPerOwner: 2000, MaxTotal: 5000,
		Shared: c.Watches(), Lease: 30 * time.Second, Clock: rs.clk, Logger: quiet,
		Notify: func(uri string) {
			rs.mu.Lock()
			rs.got[i] = append(rs.got[i], uri)
			rs.mu.Unlock()
		},
	}
	if edit != nil {
		edit(&o)
	}
	m, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	for len(rs.ms) <= i {
		rs.ms = append(rs.ms, nil)
	}
	rs.ms[i] = m
	m.Start()
	rs.idle()
}

// idle waits (real time, never the fake clock) until no replica polls.
func (rs *replicas) idle() {
	rs.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		busy := false
		for _, m := range rs.ms {
			if m != nil && !m.Idle() {
				busy = true
			}
		}
		if !busy {
			return
		}
		if time.Now().After(deadline) {
			rs.t.Fatal("a replica's poll loop did not go idle within 30 s")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// until waits (real time) for cond, which a message between replicas
// makes true, failing with what after 30 s.
func (rs *replicas) until(what string, cond func() bool) {
	rs.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			rs.t.Fatalf("after 30 s: %s", what)
		}
		time.Sleep(100 * time.Microsecond)
	}
	rs.idle()
}

func (rs *replicas) advance(total, step time.Duration) {
	rs.t.Helper()
	for d := time.Duration(0); d < total; d += step {
		rs.clk.Advance(step)
		rs.idle()
	}
}

func (rs *replicas) notified(i int) []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.got[i])
}

// TestWatchSharedAcrossReplicas: two replicas on one Redis keep one set
// of watches. A watch made through one is read, fed and deleted through
// the other; its search is polled once per interval for the whole
// cluster (each replica polling its own copy would double it); a new
// result is told to the subscribers of both replicas; when the polling
// replica stops, the other takes the polls over within the lease. It
// fails if either replica keeps watches of its own, if both poll, or if
// the polls stop with the first replica.
func TestWatchSharedAcrossReplicas(t *testing.T) {
	rs := newReplicas(t, 2, nil)
	a, b := rs.ms[0], rs.ms[1]
	rs.fs.add("stikstof", crosssearch.Item{ID: "x", Title: "X"})
	w, err := b.Create("client:redactie", Query{Query: "stikstof", Platforms: []string{"obv"}})
	if err != nil {
		t.Fatal(err)
	}
	// The polling replica (a, the first to start) hears of it and takes
	// its baseline.
	rs.until("the polling replica took the new watch's baseline", func() bool { return len(rs.fs.polls()) == 1 })
	if got, err := a.Get("client:redactie", w.ID, ""); err != nil || got.Secret != w.Secret {
		t.Fatalf("the other replica: %v %+v", err, got)
	}
	if got, ok := a.BySecret(w.Secret); !ok || got.ID != w.ID {
		t.Fatal("the feed's secret does not open the watch on the other replica")
	}
	if _, err := a.Get("client:other", w.ID, ""); err == nil {
		t.Fatal("another client reached the watch through the other replica")
	}

	rs.advance(2*time.Hour, time.Minute)
	if n := len(rs.fs.polls()); n < 8 || n > 9 {
		t.Fatalf("%d polls of one search in 2 hours at a 15-minute interval with two replicas; want 8 or 9 (one poller)", n)
	}

	rs.fs.add("stikstof", crosssearch.Item{ID: "y", Title: "Y"})
	rs.advance(15*time.Minute, time.Minute)
	for i := range 2 {
		rs.until(fmt.Sprintf("replica %d told of the new result", i+1), func() bool { return slices.Contains(rs.notified(i), w.URI()) })
	}
	for i, m := range []*Manager{a, b} {
		text, err := m.Read("client:redactie", w.URI())
		if err != nil || !strings.Contains(text, `"new_count":1`) || !strings.Contains(text, `"id":"y"`) {
			t.Fatalf("replica %d reads %v %s", i+1, err, text)
		}
	}

	// The polling replica stops; the other takes over at once (it resigned).
	before := len(rs.fs.polls())
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	rs.ms[0] = nil
	rs.advance(time.Hour, time.Minute)
	if n := len(rs.fs.polls()) - before; n < 3 || n > 5 {
		t.Fatalf("%d polls in the hour after the polling replica stopped; want 4 (the other took over)", n)
	}

	if _, err := b.Delete("client:redactie", w.ID, ""); err != nil {
		t.Fatal(err)
	}
	rs.start(0, nil)
	if _, err := rs.ms[0].Get("client:redactie", w.ID, ""); err == nil {
		t.Fatal("a watch deleted through one replica is still there through another")
	}
}

// TestWatchShareHoldsAcrossReplicas: 300 watches over 30 searches, made
// through three replicas, with a share of 6 units a minute of obv's 60:
// the whole cluster's polls stay within 6 in every minute, and every
// search is polled. Each replica pacing only itself would allow 18.
func TestWatchShareHoldsAcrossReplicas(t *testing.T) {
	rs := newReplicas(t, 3, func(o *Options) { o.MinInterval = time.Minute })
	for i := range 300 {
		if _, err := rs.ms[i%3].Create(fmt.Sprintf("client:%d", i%10), Query{Query: fmt.Sprintf("onderwerp %d", i%30)}); err != nil {
			t.Fatal(err)
		}
	}
	rs.idle()
	rs.advance(30*time.Minute, 5*time.Second)
	polls := rs.fs.polls()
	per := map[string]int{}
	for i, p := range polls {
		per[p.query]++
		n := 0
		for _, q := range polls[:i+1] {
			if q.at.After(p.at.Add(-time.Minute)) {
				n++
			}
		}
		if n > 6 {
			t.Fatalf("%d units within the minute up to %s across the replicas: over the share of 6", n, p.at.Sub(epoch))
		}
	}
	if len(per) != 30 {
		t.Fatalf("%d of 30 searches polled", len(per))
	}
	t.Logf("3 replicas, 300 watches, 30 searches, 30 virtual minutes: %d polls, at most 6 a minute", len(polls))
}

// TestWatchSlowPollIsNotPolledAgain: the polling replica's search hangs
// past its lease; the other replica takes the lease over, but the search
// being polled is not polled a second time (its claim is in the shared
// state) until the first poll's result is kept, and the next poll comes
// an interval after the slow one began. It fails if the lease alone decides, as
// the replica that takes over reads the search as due.
func TestWatchSlowPollIsNotPolledAgain(t *testing.T) {
	var mu sync.Mutex
	var hold chan struct{}       // when set, the next search waits on it
	entered := make(chan int, 1) // which replica's search waits
	n := 0
	rs := newReplicas(t, 2, func(o *Options) {
		i, search := n, o.Search
		n++
		o.Search = func(ctx context.Context, info *callinfo.Info, raw json.RawMessage) invoke.Answer {
			mu.Lock()
			h := hold
			hold = nil
			mu.Unlock()
			if h != nil {
				entered <- i
				<-h
			}
			return search(ctx, info, raw)
		}
	})
	rs.fs.add("stikstof", crosssearch.Item{ID: "x", Title: "X"})
	w, err := rs.ms[1].Create("client:redactie", Query{Query: "stikstof"})
	if err != nil {
		t.Fatal(err)
	}
	rs.until("the baseline", func() bool { return len(rs.fs.polls()) == 1 })

	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) }) // before the replicas close
	mu.Lock()
	hold = release
	mu.Unlock()
	rs.clk.Advance(15 * time.Minute)
	slow := <-entered
	other := rs.ms[1-slow]
	// Well past the slow replica's lease (within the claim's hold): the
	// other takes the lease over and looks.
	for range 2 {
		rs.clk.Advance(45 * time.Second)
		deadline := time.Now().Add(30 * time.Second)
		for !other.Idle() {
			if time.Now().After(deadline) {
				t.Fatal("the other replica's poll loop did not go idle")
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	// The slow search has not reached the platform yet; only the baseline has.
	if got := len(rs.fs.polls()); got != 1 {
		t.Fatalf("%d searches reached the platform while the first replica's poll hung; want 1 (the baseline): the other replica polled the same search again", got)
	}
	once.Do(func() { close(release) })
	rs.until("the slow poll kept", func() bool { return len(rs.fs.polls()) == 2 })
	rs.advance(13*time.Minute, time.Minute) // 29:30 after the baseline
	if got := len(rs.fs.polls()); got != 2 {
		t.Fatalf("%d polls within the interval after the slow poll began; want 2", got)
	}
	rs.advance(time.Minute, time.Minute)
	if got := len(rs.fs.polls()); got != 3 {
		t.Fatalf("%d polls an interval after the slow poll began; want 3", got)
	}
	if text, err := other.Read("client:redactie", w.URI()); err != nil || !strings.Contains(text, `"checks":3`) {
		t.Fatalf("the watch after the slow poll, through the other replica: %v %s", err, text)
	}
}

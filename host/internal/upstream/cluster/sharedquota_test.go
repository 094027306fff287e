package cluster

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/quota"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedlua"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// testReplica is one replica with one limited service, on the real clock
// and Redis's.
type testReplica struct {
	c *Cluster
	l *SharedQuota
}

func newTestReplica(t testing.TB, addr, id string, limit sched.Limit, o Options, rec *grantLog) *testReplica {
	t.Helper()
	o.Client = redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 2 * time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
	o.ReplicaID = id
	if o.Logger == nil {
		o.Logger = quiet
	}
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	local, err := quota.New("obv", "OpenBesluitvorming", "search", limit, &sched.Options{Clock: o.Clock})
	if err != nil {
		t.Fatal(err)
	}
	l := c.SharedQuota(local)
	if rec != nil {
		l.onGrant = rec.add
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		o.Client.Close()
	})
	return &testReplica{c: c, l: l}
}

// grantLog records the shared grants of every replica.
type grantLog struct {
	mu sync.Mutex
	gs []loggedGrant
}

type loggedGrant struct {
	schedlua.Grant
	session string
	cost    float64
}

func (g *grantLog) add(r schedlua.Grant, session string, cost float64) {
	g.mu.Lock()
	g.gs = append(g.gs, loggedGrant{r, session, cost})
	g.mu.Unlock()
}

func (g *grantLog) sorted() []loggedGrant {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := slices.Clone(g.gs)
	slices.SortFunc(out, func(a, b loggedGrant) int { return int(a.Seq) - int(b.Seq) })
	return out
}

// TestReplicasNeverExceedTheLimit floods one service from three replicas
// and replays every grant, at the instant Redis made it, through an exact
// model of the platform's own bucket.
func TestReplicasNeverExceedTheLimit(t *testing.T) {
	mr := miniredis.RunT(t)
	limit := sched.Limit{Units: 20, Per: 200 * time.Millisecond} // 10 ms a unit
	var rec grantLog
	var reps []*testReplica
	for i := range 3 {
		reps = append(reps, newTestReplica(t, mr.Addr(), fmt.Sprintf("r%d", i+1), limit, Options{}, &rec))
	}
	var wg sync.WaitGroup
	for i, r := range reps {
		for j := range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				info := &callinfo.Info{Session: fmt.Sprintf("s%d-%d", i, j%3)}
				for k := range 4 {
					if _, err := r.l.Wait(context.Background(), info, float64(1+(i+j+k)%3), false); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	gs := rec.sorted()
	if len(gs) != 3*6*4 {
		t.Fatalf("%d grants, want %d", len(gs), 3*6*4)
	}
	p := schedtest.NewPlatform(limit)
	for i, g := range gs {
		if g.Seq != gs[0].Seq+uint64(i) {
			t.Fatalf("grant sequence has a gap or a repeat at %d: %d", i, g.Seq)
		}
		if i > 0 && g.At < gs[i-1].At {
			t.Fatalf("grant %d at %d before grant %d at %d", g.Seq, g.At, gs[i-1].Seq, gs[i-1].At)
		}
		if !p.Send(schedlua.Time(g.At), g.cost) {
			t.Fatalf("grant %d (cost %v at %v) exceeds the platform's bucket (%.3f units)", g.Seq, g.cost, schedlua.Time(g.At), p.Tokens())
		}
	}
}

// TestNewcomerOnAnotherReplicaGoesNext: a session on replica 1 keeps a deep
// queue; a new session on replica 3 asks once and is served next, before
// the queued calls of the session that used the platform.
func TestNewcomerOnAnotherReplicaGoesNext(t *testing.T) {
	mr := miniredis.RunT(t)
	limit := sched.Limit{Units: 10, Per: 500 * time.Millisecond} // 50 ms a unit
	var rec grantLog
	r1 := newTestReplica(t, mr.Addr(), "r1", limit, Options{}, &rec)
	r3 := newTestReplica(t, mr.Addr(), "r3", limit, Options{}, &rec)
	flood := &callinfo.Info{Session: "flood"}
	queued := make(chan struct{}, 64)
	flood.OnQueued = func(int, time.Duration) {
		select {
		case queued <- struct{}{}:
		default:
		}
	}
	var wg sync.WaitGroup
	// 40 calls: 10 go at once, 30 queue for 1.5 s, so the newcomer finds
	// a queue however late a busy machine lets it ask.
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := r1.l.Wait(context.Background(), flood, 1, false); err != nil {
				t.Error(err)
			}
		}()
	}
	<-queued // the flood waits in Redis
	if _, err := r3.l.Wait(context.Background(), &callinfo.Info{Session: "newcomer"}, 1, false); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	gs := rec.sorted()
	i := slices.IndexFunc(gs, func(g loggedGrant) bool { return g.session == "newcomer" })
	// The newcomer arrived while flood calls waited; at most the one flood
	// call already holding the bucket's refill goes before it.
	later := 0
	for _, g := range gs[i+1:] {
		if g.session == "flood" {
			later++
		}
	}
	if later == 0 {
		t.Fatal("the flood had nothing queued when the newcomer arrived: the test proves nothing")
	}
	// Counted from the newcomer's arrival in Redis (its grant's instant
	// less its wait, both Redis's), not from when the test let it ask: on
	// a busy machine several flood calls are granted before its request
	// gets there, and those it did not wait behind.
	arrived := gs[i].At - gs[i].Queued
	waitedBefore := 0
	for _, g := range gs[:i] {
		if g.session == "flood" && g.Queued > 0 && g.At > arrived {
			waitedBefore++
		}
	}
	if waitedBefore > 1 {
		t.Fatalf("%d queued flood calls were granted after the newcomer arrived and before it; want at most 1 (grants %+v)", waitedBefore, gs)
	}
}

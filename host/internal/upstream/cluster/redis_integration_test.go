package cluster

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/sched"
)

// startRedis starts a private redis-server for the test (see package
// redistest).
func startRedis(t testing.TB) *redistest.Server { return redistest.Start(t) }

// simPlatform is the platform simulator's OpenBesluitvorming bucket,
// counting the requests it would refuse with 429.
type simPlatform struct {
	mu      sync.Mutex
	b       *platformsim.Bucket
	refused int
	sent    int
}

func newSimPlatform(l sched.Limit) *simPlatform {
	return &simPlatform{b: platformsim.NewBucket(l.Units, l.Units/l.Per.Seconds())}
}

func (p *simPlatform) send(cost float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sent++
	if !p.b.Take(time.Now(), cost).Allowed {
		p.refused++
	}
}

// TestThreeReplicasOnRedis: three replicas against one redis-server and
// the simulator's bucket. A session on replica 1 saturates the platform;
// a newcomer on replica 3 asks one search and is served next; the
// simulator refuses nothing over the whole run.
func TestThreeReplicasOnRedis(t *testing.T) {
	rs := startRedis(t)
	limit := sched.Limit{Units: 60, Per: 6 * time.Second} // OpenBesluitvorming's shape, ten times faster
	p := newSimPlatform(limit)
	var rec grantLog
	var reps []*testReplica
	for i := range 3 {
		reps = append(reps, newTestReplica(t, rs.Addr, fmt.Sprintf("replica-%d", i+1), limit, Options{}, &rec))
	}
	flood := &callinfo.Info{Session: "flood"}
	queued := make(chan struct{}, 1)
	flood.OnQueued = func(int, time.Duration) {
		select {
		case queued <- struct{}{}:
		default:
		}
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := reps[0].l.Wait(context.Background(), flood, 2, false); err != nil {
				t.Error(err)
				return
			}
			p.send(2)
		}()
	}
	<-queued
	start := time.Now()
	if _, err := reps[2].l.Wait(context.Background(), &callinfo.Info{Session: "newcomer"}, 2, false); err != nil {
		t.Fatal(err)
	}
	newcomerWait := time.Since(start)
	p.send(2)
	wg.Wait()
	gs := rec.sorted()
	i := slices.IndexFunc(gs, func(g loggedGrant) bool { return g.session == "newcomer" })
	before := 0
	for _, g := range gs[:i] {
		if g.session == "flood" && g.Queued > 0 {
			before++
		}
	}
	if before > 1 {
		t.Fatalf("%d queued flood calls went before the newcomer on another replica; want at most 1", before)
	}
	if p.refused != 0 {
		t.Fatalf("the simulator refused %d of %d requests with 429", p.refused, p.sent)
	}
	// The bound: the refill of the newcomer's 2 units (200 ms here) plus
	// the flood call already holding the refill, plus round trips. Logged,
	// not asserted: wall-clock figures vary by machine.
	t.Logf("newcomer served after %v (refill of its cost: %v); %d requests, no 429", newcomerWait, 2*limit.Per/60, p.sent)
}

// TestRedisKilledMidRun: three replicas keep sending while redis-server
// is killed and restarted empty. The simulator never refuses a request,
// every call is served, and each replica ends in the shared state.
func TestRedisKilledMidRun(t *testing.T) {
	rs := startRedis(t)
	limit := sched.Limit{Units: 20, Per: 2 * time.Second}
	p := newSimPlatform(limit)
	var reps []*testReplica
	for i := range 3 {
		reps = append(reps, newTestReplica(t, rs.Addr, fmt.Sprintf("replica-%d", i+1), limit, Options{Lease: 600 * time.Millisecond}, nil))
	}
	for _, r := range reps {
		r.l.heartbeat()
		backdate(r.c) // old enough to take a share when Redis goes
	}
	for _, r := range reps {
		r.l.heartbeat() // every replica has seen all three
	}
	var served, failed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, r := range reps {
		for j := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				info := &callinfo.Info{Session: fmt.Sprintf("s%d-%d", i, j)}
				for {
					select {
					case <-stop:
						return
					default:
					}
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					_, err := r.l.Wait(ctx, info, 1, false)
					cancel()
					if err != nil {
						failed.Add(1)
						t.Errorf("replica %d: %v", i+1, err)
						return
					}
					p.send(1)
					served.Add(1)
				}
			}()
		}
	}
	waitServed := func(n int64) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); served.Load() < n; {
			if time.Now().After(deadline) {
				t.Fatalf("only %d calls served, want %d", served.Load(), n)
			}
			time.Sleep(20 * time.Millisecond) // watching progress of real-time traffic
		}
	}
	waitServed(30)
	rs.Kill()
	for _, r := range reps {
		waitMode(t, r.l, Fallback)
	}
	mark := served.Load()
	waitServed(mark + 10) // service continues on the shares
	rs.Restart()
	for _, r := range reps {
		waitMode(t, r.l, Shared)
	}
	mark = served.Load()
	waitServed(mark + 15)
	close(stop)
	wg.Wait()
	if p.refused != 0 {
		t.Fatalf("the simulator refused %d of %d requests with 429", p.refused, p.sent)
	}
	t.Logf("%d calls served across a Redis kill and restart, no 429", served.Load())
}

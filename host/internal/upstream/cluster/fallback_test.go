package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// waitMode blocks until l is in mode m (no sleeping: each mode change
// closes the channel it waits on).
func waitMode(t *testing.T, l *SharedQuota, m Mode) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		l.mu.Lock()
		cur, ch := l.mode, l.changed
		l.mu.Unlock()
		if cur == m {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("still %v, want %v", cur, m)
		}
	}
}

// backdate makes a replica old enough to take a fallback share.
func backdate(c *Cluster) {
	c.mu.Lock()
	c.registered = c.registered.Add(-time.Hour)
	c.mu.Unlock()
}

func TestFallbackShareAndReturn(t *testing.T) {
	mr := miniredis.RunT(t)
	addr := mr.Addr()
	limit := sched.Limit{Units: 10, Per: 500 * time.Millisecond}
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	r1 := newTestReplica(t, addr, "r1", limit, Options{Lease: 600 * time.Millisecond, Metrics: m}, nil)
	r2 := newTestReplica(t, addr, "r2", limit, Options{Lease: 10 * time.Minute}, nil) // young all test long
	r1.l.heartbeat()                                                                  // r1 sees both replicas
	if st := r1.c.Status(); st.LiveReplicas != 2 {
		t.Fatalf("live replicas %d, want 2", st.LiveReplicas)
	}
	backdate(r1.c)
	info := &callinfo.Info{Session: "s"}
	if _, err := r1.l.Wait(context.Background(), info, 1, false); err != nil {
		t.Fatal(err)
	}
	mr.Close() // Redis goes away
	if _, err := r1.l.Wait(context.Background(), info, 1, false); err != nil {
		t.Fatalf("in fallback: %v", err)
	}
	granted := time.Now() // at or after the grant
	st := r1.l.Status()
	if st.Mode != "fallback" || st.ShareReplicas != 2 || st.Fallbacks != 1 || st.LastError == "" {
		t.Fatalf("status %+v, want fallback on a share of 1/2 with the error", st)
	}
	local := r1.l.Local().Scheduler().Stats()
	if want := r1.l.full.Units / 2; local.Limit.Units != want {
		t.Fatalf("local share %v units, want %v", local.Limit.Units, want)
	}
	// The share starts empty when the fallback begins, so its first unit
	// is granted no sooner than one unit's refill later. Measured from
	// the fallback's start, not as the call's own wait: on a busy machine
	// the call may reach the scheduler after the unit has refilled, and
	// then rightly waits no more.
	refill := time.Duration(float64(local.Limit.Per) / local.Limit.Units)
	if local.Calls != 1 || granted.Sub(st.Since) < refill {
		t.Fatalf("local limiter: %d calls, granted %v after the fallback began; want 1 call granted no sooner than one unit's refill (%v): the share starts empty", local.Calls, granted.Sub(st.Since), refill)
	}
	if got := gauge(m, descMode); got != float64(Fallback) {
		t.Fatalf("besluitbron_cluster_mode = %v, want %d", got, Fallback)
	}
	// r2 has not noticed yet and joined less than a lease ago: no share.
	_, err := r2.l.Wait(context.Background(), info, 1, false)
	var fe *connector.FetchError
	if !errors.As(err, &fe) || fe.Kind != connector.FetchUnavailable {
		t.Fatalf("a young replica in fallback: %v, want a clear unavailable error; status %+v registered %v ago", err, r2.l.Status(), time.Since(r2.c.registered))
	}
	// Redis returns (with its data); the next heartbeat hands the share
	// back.
	if err := mr.Restart(); err != nil {
		t.Fatal(err)
	}
	waitMode(t, r1.l, Shared)
	if _, err := r1.l.Wait(context.Background(), info, 1, false); err != nil {
		t.Fatalf("back in the shared state: %v", err)
	}
	if got := r1.l.Local().Scheduler().Stats().Calls; got != 1 {
		t.Fatalf("the local limiter granted %d calls; after the return it must not grant any more", got)
	}
}

// gauge reads one value of the collector.
func gauge(m *Metrics, d *prometheus.Desc) float64 {
	all := make(chan prometheus.Metric, 64)
	m.Collect(all)
	close(all)
	for x := range all {
		if x.Desc() == d {
			var out dto.Metric
			x.Write(&out)
			return out.GetGauge().GetValue()
		}
	}
	return -1
}

func TestCancelledWaitLeavesRedisAndCostsNothing(t *testing.T) {
	mr := miniredis.RunT(t)
	limit := sched.Limit{Units: 10, Per: time.Second}
	var rec grantLog
	r1 := newTestReplica(t, mr.Addr(), "r1", limit, Options{}, &rec)
	// The bucket starts empty: the call waits about a second.
	ctx, cancel := context.WithCancel(context.Background())
	queued := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		_, err := r1.l.Wait(ctx, &callinfo.Info{Session: "a", OnQueued: func(int, time.Duration) {
			select {
			case queued <- struct{}{}:
			default:
			}
		}}, 5, false)
		done <- err
	}()
	<-queued
	cancel()
	var fe *connector.FetchError
	if err := <-done; !errors.As(err, &fe) || fe.Kind != connector.FetchCanceled {
		t.Fatalf("cancelled wait: %v", err)
	}
	if n, _ := r1.c.rdb.LLen(context.Background(), r1.l.prefix+"q:a").Result(); n != 0 {
		t.Fatalf("%d calls left in Redis after the cancel", n)
	}
	if n, _ := r1.c.rdb.ZCard(context.Background(), r1.l.prefix+"wo").Result(); n != 0 {
		t.Fatalf("%d sessions still waiting", n)
	}
	if len(rec.sorted()) != 0 {
		t.Fatal("the cancelled call was granted")
	}
}

func TestDeadlineTooShortFailsAtOnce(t *testing.T) {
	mr := miniredis.RunT(t)
	limit := sched.Limit{Units: 60, Per: time.Minute}
	r1 := newTestReplica(t, mr.Addr(), "r1", limit, Options{}, nil)
	// The bucket starts empty: 10 units take 10 s; the deadline is 2 s.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := r1.l.Wait(ctx, &callinfo.Info{Session: "a"}, 10, false)
	var fe *connector.FetchError
	if !errors.As(err, &fe) || fe.Kind != connector.FetchQueueTimeout {
		t.Fatalf("got %v, want a queue timeout with the expected wait", err)
	}
	if ctx.Err() != nil {
		t.Fatal("the wait was refused only at its deadline, not at once")
	}
	if n, _ := r1.c.rdb.LLen(context.Background(), r1.l.prefix+"q:a").Result(); n != 0 {
		t.Fatalf("%d calls left in Redis after the refusal", n)
	}
}

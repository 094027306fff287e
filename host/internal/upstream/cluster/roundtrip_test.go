package cluster

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/quota"
	"github.com/besluitbron/besluitbron/sched"
)

// wire records every command a client sends and every pipeline it
// flushes: what reaches Redis, one entry per round trip.
type wire struct {
	mu   sync.Mutex
	sent []string
}

func (w *wire) DialHook(next redis.DialHook) redis.DialHook { return next }

func (w *wire) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		name := cmd.Name()
		if a := cmd.Args(); (name == "evalsha" || name == "eval") && len(a) > 6 {
			name += " " + fmt.Sprint(a[6]) // the script's op, after the keys
		}
		w.mu.Lock()
		w.sent = append(w.sent, name)
		w.mu.Unlock()
		return next(ctx, cmd)
	}
}

func (w *wire) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		w.mu.Lock()
		w.sent = append(w.sent, fmt.Sprintf("pipeline of %d", len(cmds)))
		w.mu.Unlock()
		return next(ctx, cmds)
	}
}

func (w *wire) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.sent
	w.sent = nil
	return s
}

// TestGrantWithRoomIsOneRoundTrip: a call that finds room in the shared
// bucket costs exactly one request to Redis (one run of the scheduler
// script) and nothing else, for counted sessions, watched calls and the
// public session alike.
func TestGrantWithRoomIsOneRoundTrip(t *testing.T) {
	mr := miniredis.RunT(t)
	var w wire
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr(), MaxRetries: -1})
	rdb.AddHook(&w)
	defer rdb.Close()
	// The subscription for grants handed over by other replicas has its
	// own connection; no heartbeat falls in the test (a lease of an hour).
	c, err := New(context.Background(), Options{Client: rdb, ReplicaID: "r1", Lease: time.Hour, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	local, err := quota.New("obv", "OpenBesluitvorming", "search", sched.Limit{Units: 1e6, Per: time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := c.SharedQuota(local)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	// A bucket Redis does not know starts empty: the first call waits for
	// one unit, a microsecond at this limit, and every later call finds
	// room, since a round trip takes longer than a unit's refill.
	if _, err := l.Wait(ctx, &callinfo.Info{Session: "warm"}, 1, false); err != nil {
		t.Fatal(err)
	}
	w.take()
	for i := range 20 {
		info := &callinfo.Info{Session: fmt.Sprintf("s%d", i%4), OnQueued: func(int, time.Duration) {}}
		if i%5 == 4 {
			info = &callinfo.Info{Public: true}
		}
		if _, err := l.Wait(ctx, info, 1, false); err != nil {
			t.Fatal(err)
		}
		if sent := w.take(); len(sent) != 1 || sent[0] != "evalsha enq" {
			t.Fatalf("granted call %d sent %q to Redis, want one evalsha of op enq", i, sent)
		}
	}
}

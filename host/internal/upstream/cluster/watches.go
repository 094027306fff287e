package cluster

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The watches' keys: the state, its version, the polling lease and the
// channel every replica hears. They carry the one hash tag of every key
// here, so a Redis Cluster keeps them in one slot.
const (
	keyWatchState  = keyRoot + "watch:state"
	keyWatchVer    = keyRoot + "watch:ver"
	keyWatchLead   = keyRoot + "watch:lead"
	keyWatchEvents = keyRoot + "watch:events"
)

// watchStoreScript writes the state only if its version is still the one
// the writer read, and returns the new version (-1: another replica wrote
// first).
var watchStoreScript = redis.NewScript(`
local v = tonumber(redis.call('GET', KEYS[2]) or '0')
if v ~= tonumber(ARGV[2]) then return -1 end
redis.call('SET', KEYS[1], ARGV[1])
return redis.call('INCR', KEYS[2])
`)

// watchLeadScript takes or renews the polling lease for ARGV[1] until
// ARGV[3] (µs) if nobody else holds it at ARGV[2] (µs; 0: Redis's
// clock), and says whether ARGV[1] holds it.
var watchLeadScript = redis.NewScript(`
local now = tonumber(ARGV[2])
local until_ = tonumber(ARGV[3])
if now == 0 then
	local tm = redis.call('TIME')
	now = tonumber(tm[1]) * 1000000 + tonumber(tm[2])
	until_ = now + tonumber(ARGV[4])
end
local cur = redis.call('GET', KEYS[1])
if cur then
	local who, exp = string.match(cur, '^(.*)|(%d+)$')
	if who ~= ARGV[1] and exp and tonumber(exp) > now then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. string.format('%d', until_))
return 1
`)

// watchResignScript gives the lease up if ARGV[1] holds it.
var watchResignScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur and string.sub(cur, 1, #ARGV[1] + 1) == ARGV[1] .. '|' then redis.call('DEL', KEYS[1]) end
return 1
`)

// WatchStore keeps the watches of every replica in Redis (package
// serve/watch's Shared): one state with a version that a write must
// match, a lease that lets one replica at a time poll, and a channel on
// which a replica tells the others what changed. Build it with
// [Cluster.Watches].
type WatchStore struct {
	c *Cluster
}

// Watches is the cluster's store of the watches.
func (c *Cluster) Watches() *WatchStore { return &WatchStore{c: c} }

// Version is the version of the kept state (0: none kept).
func (s *WatchStore) Version(ctx context.Context) (int64, error) {
	ctx, cancel := s.c.scriptCtx(ctx)
	defer cancel()
	v, err := s.c.rdb.Get(ctx, keyWatchVer).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return v, err
}

// Load returns the kept state (nil when none) and its version, read
// together.
func (s *WatchStore) Load(ctx context.Context) ([]byte, int64, error) {
	ctx, cancel := s.c.scriptCtx(ctx)
	defer cancel()
	vs, err := s.c.rdb.MGet(ctx, keyWatchState, keyWatchVer).Result()
	if err != nil {
		return nil, 0, err
	}
	var state []byte
	if str, ok := vs[0].(string); ok {
		state = []byte(str)
	}
	var ver int64
	if str, ok := vs[1].(string); ok {
		if ver, err = strconv.ParseInt(str, 10, 64); err != nil {
			return nil, 0, fmt.Errorf("the watches' version in Redis (%s) is %q, not a number", keyWatchVer, str)
		}
	}
	return state, ver, nil
}

// Store writes state if the kept version is still version, and returns
// the new version; ok is false when another replica wrote first.
func (s *WatchStore) Store(ctx context.Context, state []byte, version int64) (int64, bool, error) {
	ctx, cancel := s.c.scriptCtx(ctx)
	defer cancel()
	v, err := watchStoreScript.Run(ctx, s.c.rdb, []string{keyWatchState, keyWatchVer}, state, version).Int64()
	if err != nil {
		return 0, false, err
	}
	if v < 0 {
		return 0, false, nil
	}
	return v, true, nil
}

// Lead takes or renews the polling lease until now+lease and says whether
// this replica holds it. With ExplicitTime off, Redis's clock decides
// (the one clock every replica shares) and now is not used.
func (s *WatchStore) Lead(ctx context.Context, now time.Time, lease time.Duration) (bool, error) {
	ctx, cancel := s.c.scriptCtx(ctx)
	defer cancel()
	var at, until int64
	if s.c.o.ExplicitTime {
		at, until = now.UnixMicro(), now.Add(lease).UnixMicro()
	}
	n, err := watchLeadScript.Run(ctx, s.c.rdb, []string{keyWatchLead}, s.c.o.ReplicaID, at, until, lease.Microseconds()).Int()
	return n == 1, err
}

// Resign gives the lease up, so that another replica polls at once.
func (s *WatchStore) Resign(ctx context.Context) error {
	ctx, cancel := s.c.scriptCtx(ctx)
	defer cancel()
	return watchResignScript.Run(ctx, s.c.rdb, []string{keyWatchLead}, s.c.o.ReplicaID).Err()
}

// Announce tells every replica (this one too) msg.
func (s *WatchStore) Announce(ctx context.Context, msg string) error {
	ctx, cancel := s.c.scriptCtx(ctx)
	defer cancel()
	return s.c.rdb.Publish(ctx, keyWatchEvents, msg).Err()
}

// Listen calls f with every message announced from now on, in order, on
// one goroutine, until stop is called.
func (s *WatchStore) Listen(f func(msg string)) (stop func(), err error) {
	ctx, cancel := s.c.scriptCtx(context.Background())
	ps := s.c.rdb.Subscribe(context.Background(), keyWatchEvents)
	_, err = ps.Receive(ctx)
	cancel()
	if err != nil {
		ps.Close()
		return nil, fmt.Errorf("subscribing to the watches' channel: %w", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m := range ps.Channel() {
			f(m.Payload)
		}
	}()
	return func() {
		ps.Close()
		<-done
	}, nil
}

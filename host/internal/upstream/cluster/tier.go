package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// MaxTierValue is the largest response the tier stores: a full text
// bigger than this is asked of the platform again by a replica that
// lacks it rather than moved through Redis.
const MaxTierValue = 16 << 20

// tierFormat is the first byte of a value; a value of another format is
// ignored.
const tierFormat = 1

// tierPause is how long the tier is skipped after a Redis error, so that
// an unreachable Redis does not add a timeout to every call.
const tierPause = 5 * time.Second

// TierOptions configure a [Tier].
type TierOptions struct {
	// Platform is the connector id (key and metric label).
	Platform string
	// TTL maps each class the tier keeps to its time to live (the
	// platform's configured TTL for it). Other classes pass through.
	TTL map[string]time.Duration
	// Version and ModuleSHA256 stamp every value, as in the first tier.
	Version, ModuleSHA256 string
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Tier is the second cache level in Redis behind a platform's own cache
// (the first tier, per replica). For the classes it keeps, a miss in the
// first tier looks in Redis before it asks the platform, and what the
// platform answers is stored in both, so that a new or restarted replica
// starts warm. Values carry the same version stamp as the first tier: a
// value written by another build or another connector module is
// discarded when asked for. Redis errors never fail a call: the tier is
// skipped for a few seconds and the platform is asked.
//
// Tier implements fetch.Cache; it is safe for concurrent use.
type Tier struct {
	c     *Cluster
	next  fetch.Cache
	o     TierOptions
	stamp uint64
	log   *slog.Logger

	mu        sync.Mutex
	downUntil time.Time
}

// Tier returns the second tier for a platform, behind next (its own
// cache). It returns next unchanged when next is nil or no class is kept.
func (c *Cluster) Tier(next fetch.Cache, o TierOptions) fetch.Cache {
	if next == nil || len(o.TTL) == 0 {
		return next
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Tier{c: c, next: next, o: o, stamp: cache.Stamp(o.Version, o.ModuleSHA256), log: c.log}
}

func (t *Tier) key(class, key string) string {
	h := sha256.Sum256([]byte(key))
	return keyRoot + "tier:" + t.o.Platform + ":" + class + ":" + hex.EncodeToString(h[:])
}

func (t *Tier) count(outcome string) {
	if m := t.c.o.Metrics; m != nil {
		m.tier.WithLabelValues(t.o.Platform, outcome).Inc()
	}
}

func (t *Tier) usable() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.o.Now().Before(t.downUntil)
}

func (t *Tier) failed(op string, err error) {
	t.count("error")
	t.mu.Lock()
	first := !t.o.Now().Before(t.downUntil)
	t.downUntil = t.o.Now().Add(tierPause)
	t.mu.Unlock()
	if first {
		t.log.Warn("full-text tier in Redis unusable; skipped for a few seconds", "connector", t.o.Platform, "op", op, "error", err)
	}
}

// Do implements fetch.Cache.
func (t *Tier) Do(ctx context.Context, class, key string, fill func(context.Context) (connector.FetchResponse, bool, error)) (connector.FetchResponse, string, error) {
	ttl, keep := t.o.TTL[class]
	if !keep || ttl <= 0 {
		return t.next.Do(ctx, class, key, fill)
	}
	var fromTier atomic.Bool
	second := func(fctx context.Context) (connector.FetchResponse, bool, error) {
		if resp, ok := t.get(fctx, class, key, ttl); ok {
			fromTier.Store(true)
			return resp, true, nil
		}
		resp, cacheable, err := fill(fctx)
		if err == nil && cacheable && resp.Status >= 200 && resp.Status < 300 && complete(resp) {
			t.put(fctx, class, key, resp, ttl)
		}
		return resp, cacheable, err
	}
	resp, outcome, err := t.next.Do(ctx, class, key, second)
	if fromTier.Load() && outcome == callinfo.Miss {
		// Answered by another replica's earlier call: the platform was
		// not asked.
		outcome = callinfo.Hit
	}
	return resp, outcome, err
}

func (t *Tier) get(ctx context.Context, class, key string, ttl time.Duration) (connector.FetchResponse, bool) {
	if !t.usable() {
		return connector.FetchResponse{}, false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 500*time.Millisecond)
	defer cancel()
	k := t.key(class, key)
	v, err := t.c.rdb.Get(ctx, k).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		t.count("miss")
		return connector.FetchResponse{}, false
	case err != nil:
		t.failed("get", err)
		return connector.FetchResponse{}, false
	}
	stamp, written, resp, err := decodeTier(v)
	now := t.o.Now()
	switch {
	case err != nil:
		t.c.rdb.Del(ctx, k)
		t.count("miss")
		return connector.FetchResponse{}, false
	case stamp != t.stamp:
		t.c.rdb.Del(ctx, k)
		t.count("version_discard")
		return connector.FetchResponse{}, false
	case !now.Before(written.Add(ttl)):
		// Expired by this replica's TTL (a shortened TTL applies at once).
		t.count("miss")
		return connector.FetchResponse{}, false
	}
	t.count("hit")
	return resp, true
}

func (t *Tier) put(ctx context.Context, class, key string, resp connector.FetchResponse, ttl time.Duration) {
	if !t.usable() {
		return
	}
	v, err := encodeTier(t.stamp, t.o.Now(), resp)
	if err != nil || len(v) > MaxTierValue {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	if err := t.c.rdb.Set(ctx, t.key(class, key), v, ttl).Err(); err != nil {
		t.failed("set", err)
		return
	}
	t.count("stored")
}

// complete reports whether a body has the length its Content-Length
// announced (a HEAD answer has none).
func complete(r connector.FetchResponse) bool {
	for k, v := range r.Header {
		if strings.EqualFold(k, "Content-Length") {
			n, err := strconv.ParseInt(v, 10, 64)
			return err != nil || len(r.Body) == 0 || n == int64(len(r.Body))
		}
	}
	return true
}

// A value: format byte, stamp, write time (Unix ns), status, length of
// the headers' JSON, the JSON, the body.
func encodeTier(stamp uint64, written time.Time, r connector.FetchResponse) ([]byte, error) {
	h, err := json.Marshal(r.Header)
	if err != nil {
		return nil, err
	}
	v := make([]byte, 0, 1+8+8+2+4+len(h)+len(r.Body))
	v = append(v, tierFormat)
	v = binary.BigEndian.AppendUint64(v, stamp)
	v = binary.BigEndian.AppendUint64(v, uint64(written.UnixNano()))
	v = binary.BigEndian.AppendUint16(v, uint16(r.Status))
	v = binary.BigEndian.AppendUint32(v, uint32(len(h)))
	v = append(v, h...)
	return append(v, r.Body...), nil
}

func decodeTier(v []byte) (stamp uint64, written time.Time, r connector.FetchResponse, err error) {
	if len(v) < 23 || v[0] != tierFormat {
		return 0, time.Time{}, r, fmt.Errorf("not a tier value")
	}
	stamp = binary.BigEndian.Uint64(v[1:])
	written = time.Unix(0, int64(binary.BigEndian.Uint64(v[9:])))
	r.Status = int(binary.BigEndian.Uint16(v[17:]))
	n := int(binary.BigEndian.Uint32(v[19:]))
	if n > len(v)-23 {
		return 0, time.Time{}, r, fmt.Errorf("damaged tier value")
	}
	if err := json.Unmarshal(v[23:23+n], &r.Header); err != nil {
		return 0, time.Time{}, r, err
	}
	r.Body = append([]byte(nil), v[23+n:]...)
	return stamp, written, r, nil
}

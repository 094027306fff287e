package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// tierReplica is one replica's cache for a platform: its own fastcache
// (first tier) and the shared tier in Redis.
func tierReplica(t *testing.T, addr, version string, now func() time.Time, m *Metrics) fetch.Cache {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { rdb.Close() })
	c, err := New(context.Background(), Options{Client: rdb, ReplicaID: "r", Logger: quiet, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	ttl := map[string]time.Duration{connector.ClassDocument: time.Hour, "search": 10 * time.Minute}
	s, err := cache.Open(cache.Options{Platform: "obv", MaxBytes: cache.MinBytes, TTL: ttl, Version: version, ModuleSHA256: "abc", Now: now, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return c.Tier(s, TierOptions{Platform: "obv", TTL: map[string]time.Duration{connector.ClassDocument: time.Hour}, Version: version, ModuleSHA256: "abc", Now: now})
}

// platform counts the fills that reach it.
type countingFill struct{ n int }

func (f *countingFill) fill(body string) func(context.Context) (connector.FetchResponse, bool, error) {
	return func(context.Context) (connector.FetchResponse, bool, error) {
		f.n++
		return connector.FetchResponse{Status: 200, Header: map[string]string{"Content-Type": "text/plain"}, Body: []byte(body)}, true, nil
	}
}

func TestTierWarmsANewReplica(t *testing.T) {
	mr := miniredis.RunT(t)
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now }
	m := NewMetrics(prometheus.NewRegistry())
	var plat countingFill
	ctx := context.Background()
	a := tierReplica(t, mr.Addr(), "1.0", clock, m)
	resp, outcome, err := a.Do(ctx, connector.ClassDocument, "doc-1", plat.fill("full text"))
	if err != nil || outcome != callinfo.Miss || string(resp.Body) != "full text" || plat.n != 1 {
		t.Fatalf("first fetch: %q %s %v, platform asked %d times", resp.Body, outcome, err, plat.n)
	}
	// A new replica (empty first tier) finds it in Redis: the platform is
	// not asked again, and the call reports a hit.
	b := tierReplica(t, mr.Addr(), "1.0", clock, m)
	resp, outcome, err = b.Do(ctx, connector.ClassDocument, "doc-1", plat.fill("other"))
	if err != nil || outcome != callinfo.Hit || string(resp.Body) != "full text" || resp.Header["Content-Type"] != "text/plain" || plat.n != 1 {
		t.Fatalf("new replica: %q %s %v, platform asked %d times", resp.Body, outcome, err, plat.n)
	}
	// Now in b's first tier too: Redis is not read again.
	mr.Close()
	if _, outcome, _ := b.Do(ctx, connector.ClassDocument, "doc-1", plat.fill("other")); outcome != callinfo.Hit || plat.n != 1 {
		t.Fatalf("first tier after the copy: %s, platform asked %d times", outcome, plat.n)
	}
	// Other classes never reach the tier.
	if err := mr.Restart(); err != nil {
		t.Fatal(err)
	}
	a.Do(ctx, "search", "q", plat.fill("results"))
	if keys := mr.Keys(); len(keys) != 1 {
		t.Fatalf("Redis holds %v; want only the full text", keys)
	}
}

func TestTierVersionsAndExpiry(t *testing.T) {
	mr := miniredis.RunT(t)
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now }
	var plat countingFill
	ctx := context.Background()
	old := tierReplica(t, mr.Addr(), "1.0", clock, nil)
	old.Do(ctx, connector.ClassDocument, "doc", plat.fill("v1"))
	// Another build: the value is discarded, the platform asked.
	upgraded := tierReplica(t, mr.Addr(), "2.0", clock, nil)
	resp, outcome, _ := upgraded.Do(ctx, connector.ClassDocument, "doc", plat.fill("v2"))
	if outcome != callinfo.Miss || string(resp.Body) != "v2" || plat.n != 2 {
		t.Fatalf("other version: %q %s, platform asked %d times", resp.Body, outcome, plat.n)
	}
	// Past its TTL (by this replica's clock) a value is not served.
	now = now.Add(2 * time.Hour)
	late := tierReplica(t, mr.Addr(), "2.0", clock, nil)
	if _, outcome, _ := late.Do(ctx, connector.ClassDocument, "doc", plat.fill("v3")); outcome != callinfo.Miss || plat.n != 3 {
		t.Fatalf("expired: %s, platform asked %d times", outcome, plat.n)
	}
}

func TestTierRedisDownNeverFailsACall(t *testing.T) {
	mr := miniredis.RunT(t)
	var plat countingFill
	m := NewMetrics(prometheus.NewRegistry())
	c := tierReplica(t, mr.Addr(), "1.0", time.Now, m)
	mr.Close()
	resp, outcome, err := c.Do(context.Background(), connector.ClassDocument, "doc", plat.fill("text"))
	if err != nil || string(resp.Body) != "text" || outcome != callinfo.Miss || plat.n != 1 {
		t.Fatalf("Redis down: %q %s %v", resp.Body, outcome, err)
	}
	var out dto.Metric
	m.tier.WithLabelValues("obv", "error").Write(&out)
	if out.GetCounter().GetValue() == 0 {
		t.Fatal("no tier error counted")
	}
}

func TestTierValueRoundTrip(t *testing.T) {
	at := time.Unix(1_700_000_000, 123)
	in := connector.FetchResponse{Status: 203, Header: map[string]string{"A": "b"}, Body: []byte("body\x00bytes")}
	v, err := encodeTier(42, at, in)
	if err != nil {
		t.Fatal(err)
	}
	stamp, written, out, err := decodeTier(v)
	if err != nil || stamp != 42 || !written.Equal(at) || out.Status != 203 || out.Header["A"] != "b" || string(out.Body) != "body\x00bytes" {
		t.Fatalf("round trip: %v %d %v %+v", err, stamp, written, out)
	}
	for _, bad := range [][]byte{nil, {2}, v[:20], append([]byte{1}, make([]byte, 30)...)} {
		if _, _, _, err := decodeTier(bad); err == nil {
			t.Fatalf("decoded %q", bad)
		}
	}
}

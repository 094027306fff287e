package cache

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/VictoriaMetrics/fastcache"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// rawFull is a fastcache of 256 MiB filled to about 90 % with 10 KB
// values, the same shape as BenchmarkSave256MB's.
func rawFull(b *testing.B) *fastcache.Cache {
	c := fastcache.New(256 << 20)
	b.Cleanup(c.Reset)
	v := make([]byte, 10_000)
	for i := range v {
		v[i] = byte('a' + i%26)
	}
	var st fastcache.Stats
	for i := 0; st.BytesSize < 256<<20*9/10; i++ {
		for j := range 1000 {
			v[0] = byte(j)
			c.Set(fmt.Appendf(nil, "doc-%d-%d", i, j), v)
		}
		st.Reset()
		c.UpdateStats(&st)
	}
	return c
}

// BenchmarkRawSave256MB is fastcache's SaveToFileConcurrent alone, the
// floor of BenchmarkSave256MB (which adds checksums, fsync and rename).
func BenchmarkRawSave256MB(b *testing.B) {
	c := rawFull(b)
	dir := filepath.Join(b.TempDir(), "data")
	for b.Loop() {
		if err := c.SaveToFileConcurrent(dir, runtime.GOMAXPROCS(0)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRawLoad256MB is fastcache's LoadFromFileMaxBytes alone.
func BenchmarkRawLoad256MB(b *testing.B) {
	c := rawFull(b)
	dir := filepath.Join(b.TempDir(), "data")
	if err := c.SaveToFileConcurrent(dir, runtime.GOMAXPROCS(0)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		l, err := fastcache.LoadFromFileMaxBytes(dir, 256<<20)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		l.Reset()
		b.StartTimer()
	}
}

// BenchmarkHitOverhead interleaves a hit through Store.Do with fastcache's
// own Get of the same stored value, in one run, and reports the ratio:
// what the store's checks, decoding and counters add to a lookup.
func BenchmarkHitOverhead(b *testing.B) {
	s, err := Open(Options{Platform: "obv", MaxBytes: 64 << 20, TTL: map[string]time.Duration{"search": time.Hour}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	resp := connector.FetchResponse{Status: 200, Header: map[string]string{"Content-Type": "application/json", "Etag": `"x"`, "Date": "Sat, 01 Mar 2025 12:00:00 GMT"}, Body: make([]byte, 3000)}
	fill := func(context.Context) (connector.FetchResponse, bool, error) { return resp, true, nil }
	ctx := context.Background()
	s.Do(ctx, "search", "k", fill)
	k := storeKey("search", "k")
	var hit, raw time.Duration
	n := 0
	for b.Loop() {
		t0 := time.Now()
		if _, o, _ := s.Do(ctx, "search", "k", fill); o != "hit" {
			b.Fatal(o)
		}
		t1 := time.Now()
		if len(s.c.Get(nil, k)) == 0 {
			b.Fatal("raw miss")
		}
		raw += time.Since(t1)
		hit += t1.Sub(t0)
		n++
	}
	b.ReportMetric(float64(hit.Nanoseconds())/float64(n), "hit-ns")
	b.ReportMetric(float64(raw.Nanoseconds())/float64(n), "raw-ns")
	b.ReportMetric(float64(hit)/float64(raw), "hit/raw")
}

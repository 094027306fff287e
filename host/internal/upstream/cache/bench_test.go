package cache_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/VictoriaMetrics/fastcache"

	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// A typical search answer: a few KB of JSON and the headers a platform
// sends.
var benchResp = connector.FetchResponse{
	Status: 200,
	Header: map[string]string{"Content-Type": "application/json; charset=utf-8", "Date": "Sat, 01 Mar 2025 12:00:00 GMT", "Etag": `"abc123"`},
	Body:   []byte(strings.Repeat(`{"id":"document:notubiz:gemeente:soest:12345","title":"Raadsvoorstel"},`, 40)),
}

const benchKey = "search GET https://openbesluitvorming.nl/api/search?limit=24&offset=0&organization=soest&query=begroting 8c1f0e3b7d2a4f6e9b0c1d2e3f4a5b6c"

func benchStore(b *testing.B, mb int, dir string) *cache.Store {
	s, err := cache.Open(cache.Options{Platform: "obv", MaxBytes: mb << 20, TTL: testTTL, Version: "1.0.0", ModuleSHA256: "aaaa", Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func okFill(context.Context) (connector.FetchResponse, bool, error) { return benchResp, true, nil }

// BenchmarkHit is a fetch answered from the cache: lookup, version and
// expiry check, decoding of status, headers and body.
func BenchmarkHit(b *testing.B) {
	s := benchStore(b, 64, "")
	ctx := context.Background()
	s.Do(ctx, "search", benchKey, okFill)
	b.ReportAllocs()
	for b.Loop() {
		if _, o, _ := s.Do(ctx, "search", benchKey, okFill); o != "hit" {
			b.Fatal(o)
		}
	}
}

// BenchmarkHitRaw is fastcache's own Get of the same bytes: the floor
// BenchmarkHit is measured against.
func BenchmarkHitRaw(b *testing.B) {
	c := fastcache.New(64 << 20)
	defer c.Reset()
	v := make([]byte, 29+len(benchResp.Body)+120)
	c.Set([]byte(benchKey), v)
	b.ReportAllocs()
	for b.Loop() {
		if got := c.Get(nil, []byte(benchKey)); len(got) != len(v) {
			b.Fatal(len(got))
		}
	}
}

// BenchmarkHitLarge is a hit on a 300 KB full text (SetBig/GetBig).
func BenchmarkHitLarge(b *testing.B) {
	s := benchStore(b, 256, "")
	big := connector.FetchResponse{Status: 200, Body: []byte(strings.Repeat("tekst ", 50_000))}
	ctx := context.Background()
	s.Do(ctx, "document", "doc", func(context.Context) (connector.FetchResponse, bool, error) { return big, true, nil })
	b.SetBytes(int64(len(big.Body)))
	for b.Loop() {
		if _, o, _ := s.Do(ctx, "document", "doc", nil); o != "hit" {
			b.Fatal(o)
		}
	}
}

// BenchmarkMiss is the cache's cost around a fill that answers at once:
// lookup, the shared flight, encoding and storing. Each iteration is a
// new key.
func BenchmarkMiss(b *testing.B) {
	s := benchStore(b, 256, "")
	ctx := context.Background()
	keys := make([]string, 1<<16)
	for i := range keys {
		keys[i] = fmt.Sprint(benchKey, i)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(keys) {
			b.StopTimer()
			s.Close()
			s = benchStore(b, 256, "")
			i = 0
			b.StartTimer()
		}
		if _, o, _ := s.Do(ctx, "search", keys[i], okFill); o != "miss" {
			b.Fatal(o)
		}
		i++
	}
}

// fillTo writes entries of about 10 KB until the cache holds about mb.
func fillTo(b *testing.B, s *cache.Store, mb int) {
	rng := rand.New(rand.NewPCG(1, 1))
	body := make([]byte, 10_000)
	for i := range body {
		body[i] = "abcdefghijklmnopqrstuvwxyz <>{}\""[rng.IntN(32)]
	}
	ctx := context.Background()
	for i := 0; s.Stats().MemoryBytes < uint64(mb)<<20*9/10; i++ {
		for j := range 1000 {
			key := fmt.Sprint("doc-", i, "-", j)
			s.Do(ctx, "document", key, func(context.Context) (connector.FetchResponse, bool, error) {
				body[0] = byte(j)
				return connector.FetchResponse{Status: 200, Body: body}, true, nil
			})
		}
	}
}

// BenchmarkSave256MB saves a full 256 MiB cache (SaveToFileConcurrent,
// checksums, fsync, rename).
func BenchmarkSave256MB(b *testing.B) {
	s := benchStore(b, 256, b.TempDir())
	fillTo(b, s, 256)
	b.ResetTimer()
	for b.Loop() {
		if err := s.Save(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.Stats().Entries), "entries")
}

// BenchmarkLoad256MB opens a saved 256 MiB cache (checksums and
// LoadFromFileMaxBytes).
func BenchmarkLoad256MB(b *testing.B) {
	dir := b.TempDir()
	s := benchStore(b, 256, dir)
	fillTo(b, s, 256)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	var entries uint64
	for b.Loop() {
		s, err := cache.Open(cache.Options{Platform: "obv", MaxBytes: 256 << 20, TTL: testTTL, Version: "1.0.0", ModuleSHA256: "aaaa", Dir: dir, Now: time.Now})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		entries = s.Stats().Entries
		s.Close()
		b.StartTimer()
	}
	if entries == 0 {
		b.Fatal("nothing loaded")
	}
	b.ReportMetric(float64(entries), "entries")
}

package cache_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// TestResizedCacheKeepsItsEntries: an admin who changes cache_mb keeps the
// platform's saved cache. Grown, every entry (the large ones too) is
// served from it after the restart; shrunk to the minimum, entries that
// fit are, also after a start that only read it. It used to start empty
// ("a resized cache starts empty").
func TestResizedCacheKeepsItsEntries(t *testing.T) {
	e := persisted(t) // 64 MiB
	e.fill(20)
	e.reopen(func(o *cache.Options) { o.MaxBytes = 128 << 20 })
	e.allHits(20)
	if st := e.s.Stats(); st.CapacityBytes != 128<<20 {
		t.Errorf("capacity %d after growing", st.CapacityBytes)
	}
	if strings.Contains(e.log.String(), "starts with an empty cache") || !strings.Contains(e.log.String(), "cache_mb changed") {
		t.Errorf("growing: the log does not say the cache moved:\n%s", e.log.String())
	}

	// Shrunk: small entries only, since a large value's pieces may not
	// fit the smaller cache's buckets (fitsBig), and where they do they
	// overwrite the small entries that share their bucket.
	s := persisted(t)
	for c := range testTTL {
		for i := range 200 {
			s.expect(c, fmt.Sprint("k", i), &upstream{body: fmt.Sprint(c, i)}, callinfo.Miss, 1)
		}
	}
	// Grown first, with only a hit before the restart: its checkpoint
	// must save the cache at its new size, not the counters beside the
	// old snapshot.
	s.reopen(func(o *cache.Options) { o.MaxBytes = 128 << 20 })
	s.expect("search", "k1", &upstream{body: "refetched"}, callinfo.Hit, 0)
	s.reopen(func(o *cache.Options) { o.MaxBytes = cache.MinBytes })
	for c := range testTTL {
		for i := range 200 {
			if got := s.expect(c, fmt.Sprint("k", i), &upstream{body: "refetched"}, callinfo.Hit, 0); got != fmt.Sprint(c, i) {
				t.Fatalf("%s k%d after shrinking: %q", c, i, got)
			}
		}
	}
}

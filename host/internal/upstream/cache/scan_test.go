package cache_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// Scan reads fastcache's saved files and counts per class exactly what was
// stored: entries, bytes, expired and other-version entries. If a
// fastcache upgrade changes its file layout this test fails.
func TestScanCountsPerClass(t *testing.T) {
	e := persisted(t)
	var bytes [2]uint64
	for i := range 30 {
		body := fmt.Sprint("search result ", i)
		e.expect("search", fmt.Sprint("s", i), &upstream{body: body}, callinfo.Miss, 1)
	}
	for i := range 5 {
		body := strings.Repeat(fmt.Sprint(i), 150<<10) // large: SetBig
		e.expect("document", fmt.Sprint("d", i), &upstream{body: body}, callinfo.Miss, 1)
	}
	st := e.s.Stats()
	bytes[0], bytes[1] = st.Classes["search"].StoredBytes, st.Classes["document"].StoredBytes
	e.clock.Advance(time.Hour) // every search expires
	e.reopen(func(o *cache.Options) { o.Version = "next" })
	e.expect("document", "d0", &upstream{body: "new"}, callinfo.Miss, 1) // replaced by the new build
	if err := e.s.Save(); err != nil {
		t.Fatal(err)
	}
	m, err := cache.ReadSaved(e.o.Dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := cache.Scan(m, cache.Stamp("next", "aaaa"), e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	newDoc := e.counters("document").StoredBytes - bytes[1]
	want := map[string]cache.ClassContent{
		"search":   {Entries: 30, Bytes: bytes[0], Expired: 30, OtherVersion: 30},
		"document": {Entries: 5, Bytes: bytes[1]/5*4 + newDoc, OtherVersion: 4},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("scan (-want +got):\n%s", d)
	}
}

func TestScanRefusesDamage(t *testing.T) {
	e := persisted(t)
	e.fill(3)
	e.s.Save()
	m, _ := cache.ReadSaved(e.o.Dir)
	damages[0].do(t, m.Dir)
	if _, err := cache.Scan(m, 0, e.clock.Now()); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("scan of a damaged snapshot: %v", err)
	}
}

package cache_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// pagesOf is a text of n pages of at most size bytes each (as
// sdk.TextPageSize cuts them), page i ending with "einde pagina i".
func pagesOf(n, size int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strings.Repeat("Café één überlegt ", (size-20)/22) + fmt.Sprintf("einde pagina %d", i+1)
	}
	return out
}

// put keeps pages under key in a call carrying info, returning the info.
func (e *env) put(key string, info *callinfo.Info, head string, pages []string) *callinfo.Info {
	e.t.Helper()
	if info == nil {
		info = &callinfo.Info{Session: "s1"}
	}
	e.s.PutText(callinfo.With(context.Background(), info), connector.ClassDocument, key, []byte(head), pages)
	return info
}

// page reads page n of key in a fresh call.
func (e *env) page(key string, n int) (connector.TextPage, bool, callinfo.Summary) {
	e.t.Helper()
	info := &callinfo.Info{Session: "s1"}
	p, ok := e.s.TextPage(callinfo.With(context.Background(), info), connector.ClassDocument, key, n)
	return p, ok, info.Summary()
}

func TestKeptTextPages(t *testing.T) {
	e := newEnv(t, nil)
	pages := pagesOf(60, 20000)
	e.put("https://x/doc", nil, `{"title":"Besluit"}`, pages)
	for _, n := range []int{1, 40, 60} {
		p, ok, sum := e.page("https://x/doc", n)
		if !ok || p.Text != pages[n-1] || p.Pages != 60 || p.Page != n || string(p.Head) != `{"title":"Besluit"}` {
			t.Fatalf("page %d: ok=%v page=%d/%d head=%s text ends %q", n, ok, p.Page, p.Pages, p.Head, p.Text[max(0, len(p.Text)-20):])
		}
		if sum.Cache != callinfo.Hit || sum.ValidUntil.IsZero() {
			t.Errorf("page %d: the call's summary says %q, valid until %v; want a hit that a kept result may build on", n, sum.Cache, sum.ValidUntil)
		}
	}
	// Past the last page: found, no text, the count says why.
	if p, ok, _ := e.page("https://x/doc", 61); !ok || p.Text != "" || p.Pages != 60 {
		t.Errorf("page 61: ok=%v pages=%d text %q", ok, p.Pages, p.Text)
	}
	if _, ok, _ := e.page("https://x/other", 1); ok {
		t.Error("a text never kept was found")
	}
	c := e.counters(connector.ClassDocument)
	if c.TextsKept != 1 || c.TextPages != 4 {
		t.Errorf("counters: %d texts kept, %d pages served; want 1 and 4", c.TextsKept, c.TextPages)
	}
}

// A text larger than fastcache's 64 KiB item limit and than any single
// value the cache may hold (an eighth of it) is still kept: as pages.
func TestKeptTextLargerThanAnyValue(t *testing.T) {
	e := newEnv(t, nil) // 32 MiB: no single value over 4 MiB
	pages := pagesOf(300, 20000)
	e.put("big", nil, "", pages)
	for n := 1; n <= 300; n++ {
		p, ok, _ := e.page("big", n)
		if !ok || p.Text != pages[n-1] {
			t.Fatalf("page %d of a 6 MB text: ok=%v", n, ok)
		}
	}
	// Over a quarter of the cache: refused, counted.
	e.put("huge", nil, "", pagesOf(500, 20000))
	if _, ok, _ := e.page("huge", 1); ok {
		t.Error("a 10 MB text was kept in a 32 MiB cache")
	}
	if c := e.counters(connector.ClassDocument); c.Oversize != 1 {
		t.Errorf("oversize refusals %d, want 1", c.Oversize)
	}
}

// A text lives no longer than the cached answers it came from, nor than
// its class's TTL.
func TestKeptTextExpiresWithItsSources(t *testing.T) {
	e := newEnv(t, nil)
	info := &callinfo.Info{Session: "s1"}
	info.Until(e.clock.Now().Add(time.Hour)) // a source answer expiring in an hour
	e.put("doc", info, "", pagesOf(3, 100))
	e.clock.Advance(59 * time.Minute)
	if _, ok, _ := e.page("doc", 2); !ok {
		t.Fatal("text gone before its source")
	}
	e.clock.Advance(2 * time.Minute)
	if _, ok, _ := e.page("doc", 2); ok {
		t.Fatal("text outlived the answer it was extracted from")
	}
	e.put("doc2", nil, "", pagesOf(3, 100))
	e.clock.Advance(testTTL[connector.ClassDocument] + time.Second)
	if _, ok, _ := e.page("doc2", 1); ok {
		t.Fatal("text outlived its class's TTL")
	}
}

// A call that used a stale or failed answer keeps nothing: its text may be
// a fallback.
func TestDegradedCallKeepsNoText(t *testing.T) {
	e := newEnv(t, nil)
	info := &callinfo.Info{Session: "s1"}
	info.Degrade()
	e.put("doc", info, "", pagesOf(2, 100))
	if _, ok, _ := e.page("doc", 1); ok {
		t.Fatal("a degraded call's text was kept")
	}
}

// A text kept by another build is discarded on read; a failed result
// forgets the text its call kept; a cleared cache holds none.
func TestKeptTextVersionFailureAndClear(t *testing.T) {
	e := newEnv(t, func(o *cache.Options) { o.Dir = t.TempDir() })
	e.put("doc", nil, "", pagesOf(2, 100))
	e.reopen(nil)
	if _, ok, _ := e.page("doc", 2); !ok {
		t.Fatal("a kept text did not survive a restart")
	}
	e.reopen(func(o *cache.Options) { o.ModuleSHA256 = "bbbb" })
	if _, ok, _ := e.page("doc", 2); ok {
		t.Fatal("another build's text was served")
	}
	if c := e.counters(connector.ClassDocument); c.VersionDiscards != 1 {
		t.Errorf("version discards %d, want 1", c.VersionDiscards)
	}
	info := e.put("doc", nil, "", pagesOf(2, 100))
	info.Failed()
	if _, ok, _ := e.page("doc", 1); ok {
		t.Fatal("a failed call's text was kept")
	}
}

// A text whose page was evicted is not served in part: that page is not
// found, so the connector extracts again; the other pages still are.
func TestKeptTextWithAMissingPage(t *testing.T) {
	e := newEnv(t, nil)
	e.put("doc", nil, "", pagesOf(3, 20000))
	e.s.DropTextPage(connector.ClassDocument, "doc", 2)
	if _, ok, _ := e.page("doc", 2); ok {
		t.Fatal("an evicted page was served")
	}
	if _, ok, _ := e.page("doc", 3); !ok {
		t.Fatal("a page that is still there was not served")
	}
	e.put("doc", nil, "", pagesOf(3, 20000))
	if p, ok, _ := e.page("doc", 2); !ok || !strings.HasSuffix(p.Text, "einde pagina 2") {
		t.Fatal("the text kept again does not serve the page")
	}
}

// At the default cache size (64 MiB) the text of a 20 MB document, 15 MB
// and 750 pages, is kept whole: every page comes back, none lost to a
// bucket's ring.
func TestKeptTextOfATwentyMegabyteDocument(t *testing.T) {
	e := newEnv(t, func(o *cache.Options) { o.MaxBytes = 64 << 20 })
	pages := pagesOf(750, 20000)
	e.put("https://x/20mb.pdf", nil, `{"pdf_pages":1200}`, pages)
	for n := 1; n <= len(pages); n++ {
		if p, ok, _ := e.page("https://x/20mb.pdf", n); !ok || p.Text != pages[n-1] {
			t.Fatalf("page %d of 750: ok=%v", n, ok)
		}
	}
}

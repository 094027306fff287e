package cache

import (
	"context"
	"strconv"

	"github.com/cespare/xxhash/v2"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Kept texts. A connector that extracts a document's text (sdk.PagedText)
// hands it to the host cut into pages; the store keeps it as one head
// entry (the connector's head JSON and the page count) and one entry per
// page, each an ordinary entry of the text's class: stamped with the
// build, written at the same instant, expiring together. A page is about
// 20 KB, far below fastcache's 64 KiB item limit, so a text far larger
// than any single value the cache could hold is still kept, and reading
// page 40 reads two small entries instead of fetching, decoding and
// extracting the whole document again.
//
// Placement. fastcache puts an entry in bucket xxhash(key) % 512, each
// bucket a ring of 64 KiB chunks that overwrites its oldest entries when
// it wraps; at the default sizes a bucket holds a handful of 20 KB pages.
// Hundreds of pages thrown into buckets by chance would overrun some ring
// and lose a page, so each page's key carries a salt chosen among a few
// candidates to land in a bucket the text has not yet filled (the salts
// travel in the head entry). A text that cannot be spread so is refused
// and counted as oversize, never kept in part.
//
// Text keys cannot meet fetch keys: a fetch key is "<class> <METHOD> <url>
// <digest>", a text key starts with a NUL.

// textPrefix starts every text key.
const textPrefix = "\x00text\x00"

// pagesHeader is the head entry's header holding the page count.
const pagesHeader = "Pages"

func textHeadKey(class, key string) []byte { return storeKey(class, textPrefix+key) }

func textPageKey(class, key string, n int, salt byte) []byte {
	return storeKey(class, textPrefix+key+"\x00"+strconv.Itoa(n)+"\x00"+strconv.Itoa(int(salt)))
}

// maxSalt is how many buckets a page may choose from.
const maxSalt = 64

// spread chooses a salt for each page so that no bucket receives more of
// the text's entries than its ring keeps whatever its write position:
// (chunks per bucket × entries per chunk) − 2, the two lost to a
// partly filled first chunk and the wrap. It returns nil when the text
// cannot be spread.
func spread(class, key string, pages []string, maxBytes int) []byte {
	perBucket := ((maxBytes+fcBuckets-1)/fcBuckets + fcChunk - 1) / fcChunk
	largest := 0
	for i, p := range pages {
		if n := 4 + len(textPageKey(class, key, i+1, maxSalt)) + headerLen + len(p); n > largest {
			largest = n
		}
	}
	if largest > fcChunk {
		return nil
	}
	slots := perBucket*(fcChunk/largest) - 2
	if slots < 1 {
		return nil
	}
	var load [fcBuckets]int
	salts := make([]byte, len(pages))
	for i := range pages {
		placed := false
		for salt := byte(0); salt < maxSalt; salt++ {
			b := xxhash.Sum64(textPageKey(class, key, i+1, salt)) % fcBuckets
			if load[b] < slots {
				load[b]++
				salts[i], placed = salt, true
				break
			}
		}
		if !placed {
			return nil
		}
	}
	return salts
}

// TextPage returns page n of the text kept under (class, key), when a
// complete one of this build is fresh. A page past the last is ok, with
// no text. A hit counts for the call as a cached answer valid as long as
// the text.
func (s *Store) TextPage(ctx context.Context, class, key string, n int) (connector.TextPage, bool) {
	cl := s.classes[class]
	if cl == nil || cl.ttl <= 0 || s.off.Load() {
		return connector.TextPage{}, false
	}
	now := s.o.Now()
	hk := textHeadKey(class, key)
	v, st := s.lookup(cl, hk, now)
	switch st {
	case fresh:
	case otherVersion:
		s.c.Del(hk)
		s.changes.Add(1)
		cl.discards.add(1)
		return connector.TextPage{}, false
	default:
		return connector.TextPage{}, false
	}
	head, err := decodeEntry(v)
	pages, perr := strconv.Atoi(head.resp.Header[pagesHeader])
	if err != nil || perr != nil || pages < 1 || len(head.resp.Body) < pages {
		s.c.Del(hk)
		return connector.TextPage{}, false
	}
	salts, headJSON := head.resp.Body[:pages], head.resp.Body[pages:]
	out := connector.TextPage{Page: n, Pages: pages}
	if len(headJSON) > 0 {
		out.Head = append([]byte(nil), headJSON...)
	}
	if n >= 1 && n <= pages {
		pv, pst := s.lookup(cl, textPageKey(class, key, n, salts[n-1]), now)
		if pst != fresh {
			return connector.TextPage{}, false // the page was evicted: extract again
		}
		pe, err := decodeEntry(pv)
		if err != nil || !pe.written.Equal(head.written) {
			return connector.TextPage{}, false // a page of another extraction
		}
		out.Text = string(pe.resp.Body)
	}
	info := callinfo.From(ctx)
	info.AddFetch(callinfo.Hit, 0, 0)
	info.Until(head.validUntil(cl.ttl))
	info.UsedClass(cl.name)
	cl.hits.add(1)
	cl.textPages.add(1)
	return out, true
}

// PutText keeps an extracted text under (class, key), for the class's
// time to live but never past the earliest expiry of the cached answers
// the call used. It keeps nothing when the call used a stale or failed
// answer (the text may be a fallback), when the class is not cached, or
// when the text exceeds a quarter of the platform's cache (counted as
// oversize). If the call's result then fails, the text is forgotten.
func (s *Store) PutText(ctx context.Context, class, key string, head []byte, pages []string) {
	cl := s.classes[class]
	if cl == nil || cl.ttl <= 0 || s.off.Load() || len(pages) == 0 {
		return
	}
	info := callinfo.From(ctx)
	if info.Degraded() {
		s.o.Logger.Debug("text not kept: the call used a stale or failed answer", "connector", s.o.Platform, "class", cl.name)
		return
	}
	now := s.o.Now()
	expires := now.Add(cl.ttl)
	if h := info.Horizon(); !h.IsZero() && h.Before(expires) {
		expires = h
	}
	if !now.Before(expires) {
		return
	}
	size := headerLen + len(head)
	for _, p := range pages {
		size += headerLen + len(p)
	}
	if size > s.o.MaxBytes/4 {
		cl.oversize.add(1)
		s.o.Logger.Debug("text too large for the cache", "connector", s.o.Platform, "class", cl.name, "bytes", size)
		return
	}
	salts := spread(class, key, pages, s.o.MaxBytes)
	if salts == nil {
		cl.oversize.add(1)
		s.o.Logger.Debug("text cannot be spread over the cache's buckets", "connector", s.o.Platform, "class", cl.name, "bytes", size, "pages", len(pages))
		return
	}
	at := func(body []byte, hdr map[string]string) *entry {
		return &entry{stamp: s.stamp, written: now, expires: expires, resp: connector.FetchResponse{Status: 200, Header: hdr, Body: body}}
	}
	for i, p := range pages {
		if !s.write(cl, textPageKey(class, key, i+1, salts[i]), at([]byte(p), nil)) {
			return // no head: the pages written are never read
		}
	}
	hk := textHeadKey(class, key)
	if !s.write(cl, hk, at(append(salts, head...), map[string]string{pagesHeader: strconv.Itoa(len(pages))})) {
		return
	}
	s.changes.Add(1)
	cl.stored.add(1)
	cl.textsKept.add(1)
	info.OnFailure(func() { s.forget(cl, hk) })
}

var _ fetch.TextCache = (*Store)(nil)

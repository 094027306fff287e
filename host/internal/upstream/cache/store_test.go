package cache_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Each class keeps its entries for its own TTL, judged by the injected
// clock only: a step table over virtual instants.
func TestTTLPerClassInVirtualTime(t *testing.T) {
	e := newEnv(t, nil)
	u := map[string]*upstream{}
	for c := range testTTL {
		u[c] = &upstream{body: c}
	}
	type step struct {
		advance time.Duration
		class   string
		want    string
		calls   int64
	}
	steps := []step{
		{0, "search", callinfo.Miss, 1},
		{0, "list", callinfo.Miss, 1},
		{0, "document", callinfo.Miss, 1},
		{10*time.Minute - time.Nanosecond, "search", callinfo.Hit, 1},
		{time.Nanosecond, "search", callinfo.Miss, 2}, // exactly 10 min: expired
		{0, "search", callinfo.Hit, 2},
		{28*24*time.Hour - 10*time.Minute - time.Second, "document", callinfo.Hit, 1},
		{0, "list", callinfo.Hit, 1},
		{time.Second, "document", callinfo.Miss, 2},
		{2*24*time.Hour - time.Second, "list", callinfo.Hit, 1},
		{time.Second, "list", callinfo.Miss, 2},
	}
	for i, s := range steps {
		e.clock.Advance(s.advance)
		body, got, err, _ := e.do(s.class, "k", u[s.class])
		if err != nil || got != s.want || u[s.class].calls.Load() != s.calls || body != s.class {
			t.Fatalf("step %d (%s after +%v): %q, %d calls, body %q, err %v; want %q, %d calls", i, s.class, s.advance, got, u[s.class].calls.Load(), body, err, s.want, s.calls)
		}
	}
}

// The admin's TTL applies to entries written under a longer one; a class
// with TTL 0, an unknown class and "none" are not cached.
func TestTTLOverridesAndUncachedClasses(t *testing.T) {
	e := newEnv(t, func(o *cache.Options) { o.Dir = t.TempDir() })
	u := &upstream{body: "x"}
	e.expect("document", "d", u, callinfo.Miss, 1)
	e.clock.Advance(2 * time.Hour)
	e.reopen(func(o *cache.Options) {
		o.TTL = map[string]time.Duration{"document": time.Hour, "search": 0}
	})
	e.expect("document", "d", u, callinfo.Miss, 2) // written 2 h ago, TTL now 1 h
	e.expect("document", "d", u, callinfo.Hit, 2)
	for _, class := range []string{"search", "list", connector.ClassNone} {
		e.expect(class, "s", u, callinfo.Bypass, u.calls.Load()+1)
		e.expect(class, "s", u, callinfo.Bypass, u.calls.Load()+1)
	}
}

// Keys are whole: class, and the gate's key (method, URL, body digest).
func TestKeysSeparateClassesAndRequests(t *testing.T) {
	e := newEnv(t, nil)
	a, b, c := &upstream{body: "a"}, &upstream{body: "b"}, &upstream{body: "c"}
	e.expect("search", "GET https://x/?q=1", a, callinfo.Miss, 1)
	e.expect("list", "GET https://x/?q=1", b, callinfo.Miss, 1)
	e.expect("search", "GET https://x/?q=2", c, callinfo.Miss, 1)
	for _, x := range []struct {
		class, key, want string
		u                *upstream
	}{{"search", "GET https://x/?q=1", "a", a}, {"list", "GET https://x/?q=1", "b", b}, {"search", "GET https://x/?q=2", "c", c}} {
		if got := e.expect(x.class, x.key, x.u, callinfo.Hit, 1); got != x.want {
			t.Errorf("%s %s: %q, want %q", x.class, x.key, got, x.want)
		}
	}
	long := "GET https://x/?q=" + strings.Repeat("z", 2000)
	e.expect("search", long, a, callinfo.Miss, 2)
	e.expect("search", long, a, callinfo.Hit, 2)
	e.expect("search", long+"y", a, callinfo.Miss, 3)
}

// Status, headers and body come back as stored.
func TestHitReturnsTheWholeResponse(t *testing.T) {
	e := newEnv(t, nil)
	u := &upstream{status: 203, body: `{"a":1}`, header: map[string]string{"Content-Type": "application/json", "Link": "<x>; rel=next", "Content-Length": "7"}}
	e.expect("search", "k", u, callinfo.Miss, 1)
	resp, outcome, err := e.s.Do(t.Context(), "search", "k", u.fill)
	want := connector.FetchResponse{Status: 203, Header: u.header, Body: []byte(`{"a":1}`)}
	if outcome != callinfo.Hit || err != nil {
		t.Fatalf("%s %v", outcome, err)
	}
	if d := cmp.Diff(want, resp); d != "" {
		t.Error(d)
	}
}

// Errors, 429s, 5xx, non-cacheable and truncated responses are never
// stored.
func TestFailuresAreNeverCached(t *testing.T) {
	no := false
	for _, u := range []*upstream{
		{status: 500, body: "oops"},
		{status: 503},
		{status: 429},
		{status: 404, body: "gone"},
		{status: 304},
		{err: &connector.FetchError{Kind: connector.FetchUnavailable, Message: "connection refused"}},
		{err: &connector.FetchError{Kind: connector.FetchQueueTimeout, Message: "later"}},
		{err: errors.New("boom")},
		{body: "ok", cacheable: &no},
		{body: "trunc", header: map[string]string{"content-length": "100"}},
	} {
		e := newEnv(t, nil)
		e.expect("search", "k", u, callinfo.Miss, 1)
		e.expect("search", "k", u, callinfo.Miss, 2)
		if c := e.counters("search"); c.Stored != 0 || e.s.Stats().Entries != 0 {
			t.Errorf("%+v: stored %+v", u, c)
		}
	}
}

// fetchError is what the fill returned, passed through on a miss.
func TestMissReturnsFillErrorAndResponse(t *testing.T) {
	e := newEnv(t, nil)
	fe := &connector.FetchError{Kind: connector.FetchRefused, Message: "no"}
	_, outcome, err, _ := e.do("search", "k", &upstream{err: fe})
	if outcome != callinfo.Miss || !errors.Is(err, fe) {
		t.Errorf("%s %v", outcome, err)
	}
	body, _, err, _ := e.do("search", "k2", &upstream{status: 502, body: "bad gateway"})
	if err != nil || body != "bad gateway" {
		t.Errorf("%q %v", body, err)
	}
}

// An expired entry of this version is served when the platform fails, with
// a note saying how old it is; not when the caller or the host's policy
// failed.
func TestStaleIfError(t *testing.T) {
	fail := []*upstream{
		{status: 500},
		{status: 503},
		{err: &connector.FetchError{Kind: connector.FetchUnavailable, Message: "dial tcp: connection refused"}},
		{err: &connector.FetchError{Kind: connector.FetchUnavailable, Message: "did not answer within 30s"}},
	}
	for _, f := range fail {
		e := newEnv(t, nil)
		e.expect("search", "k", &upstream{body: "old"}, callinfo.Miss, 1)
		e.clock.Advance(3*time.Hour + 5*time.Minute)
		body, outcome, err, notes := e.do("search", "k", f)
		if outcome != callinfo.Stale || err != nil || body != "old" {
			t.Fatalf("%+v: %q %q %v", f, outcome, body, err)
		}
		if len(notes) != 1 || !strings.Contains(notes[0], "OpenBesluitvorming") || !strings.Contains(notes[0], "3 h 5 min old") {
			t.Errorf("%+v: notes %q", f, notes)
		}
		if c := e.counters("search"); c.Stale != 1 || c.Misses != 1 {
			t.Errorf("%+v: counters %+v", f, c)
		}
		// The stale entry is still there for the next failure, and a
		// success replaces it.
		e.expect("search", "k", f, callinfo.Stale, 2)
		if got := e.expect("search", "k", &upstream{body: "new"}, callinfo.Miss, 1); got != "new" {
			t.Errorf("after recovery: %q", got)
		}
	}
	for _, f := range []*upstream{
		{status: 429},
		{status: 404},
		{err: &connector.FetchError{Kind: connector.FetchRefused, Message: "host not allowed"}},
		{err: &connector.FetchError{Kind: connector.FetchQueueTimeout, Message: "later"}},
		{err: &connector.FetchError{Kind: connector.FetchCanceled, Message: "gone"}},
	} {
		e := newEnv(t, nil)
		e.expect("search", "k", &upstream{body: "old"}, callinfo.Miss, 1)
		e.clock.Advance(time.Hour)
		if _, outcome, _, notes := e.do("search", "k", f); outcome != callinfo.Miss || len(notes) != 0 {
			t.Errorf("%+v: %q %q, want a plain miss", f, outcome, notes)
		}
	}
}

// A fresh failure without an expired entry is just a miss.
func TestNoStaleWithoutEntry(t *testing.T) {
	e := newEnv(t, nil)
	if _, outcome, _, _ := e.do("search", "k", &upstream{status: 503}); outcome != callinfo.Miss {
		t.Errorf("%q", outcome)
	}
}

// Values of 64 KiB and more go through SetBig and come back whole; a
// value over 1/8 of the cache, or one whose pieces would overwrite each
// other in fastcache's buckets, is refused and counted.
func TestBigValuesAndOversize(t *testing.T) {
	e := newEnv(t, func(o *cache.Options) { o.MaxBytes = 64 << 20 })
	for _, n := range []int{65536 - 4 - 100, 65536 - 40, 65536, 300 << 10} {
		body := strings.Repeat("ab", n/2) + "!"
		u := &upstream{body: body}
		key := fmt.Sprint("doc", n)
		e.expect("document", key, u, callinfo.Miss, 1)
		if got := e.expect("document", key, u, callinfo.Hit, 1); got != body {
			t.Fatalf("%d bytes: got %d bytes back", n, len(got))
		}
	}
	for i, body := range []string{
		strings.Repeat("x", 8<<20), // over 1/8 of 64 MiB
		strings.Repeat("y", 6<<20), // 96 pieces in 512 buckets of two chunks: some bucket gets three
	} {
		u := &upstream{body: body}
		e.expect("document", fmt.Sprint("huge", i), u, callinfo.Miss, 1)
		e.expect("document", fmt.Sprint("huge", i), u, callinfo.Miss, 2)
	}
	if c := e.counters("document"); c.Oversize != 4 || c.Stored != 4 {
		t.Errorf("oversize refusals %d, stored %d; want 4 and 4", c.Oversize, c.Stored)
	}
}

func TestOpenRefusesBadOptions(t *testing.T) {
	for _, o := range []cache.Options{
		{MaxBytes: cache.MinBytes},
		{Platform: "obv", MaxBytes: cache.MinBytes - 1},
		{Platform: "obv", MaxBytes: cache.MinBytes, TTL: map[string]time.Duration{"search": -time.Second}},
	} {
		if s, err := cache.Open(o); err == nil {
			s.Close()
			t.Errorf("%+v: no error", o)
		}
	}
}

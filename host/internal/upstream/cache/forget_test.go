package cache_test

import (
	"context"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// TestFailedCallForgetsWhatItStored: a 200 the connector could not use (a
// malformed body) must not be served again for the class's TTL; an answer
// an earlier call stored and this one only read is kept.
func TestFailedCallForgetsWhatItStored(t *testing.T) {
	e := newEnv(t, nil)
	bad := &upstream{body: "{not json"}
	info := &callinfo.Info{Session: "s1"}
	if _, out, err := e.s.Do(callinfo.With(context.Background(), info), "search", "k", bad.fill); out != callinfo.Miss || err != nil {
		t.Fatalf("%q %v", out, err)
	}
	info.Failed() // the connector's result was an error
	e.expect("search", "k", bad, callinfo.Miss, 2)

	good := &upstream{body: "{}"}
	e.expect("search", "g", good, callinfo.Miss, 1)
	reader := &callinfo.Info{Session: "s2"}
	if _, out, _ := e.s.Do(callinfo.With(context.Background(), reader), "search", "g", good.fill); out != callinfo.Hit {
		t.Fatalf("%q", out)
	}
	reader.Failed()
	e.expect("search", "g", good, callinfo.Hit, 1)
}

// TestValidityReported: hits and stored misses tell the call how long its
// result stays valid; uncached answers make it volatile.
func TestValidityReported(t *testing.T) {
	e := newEnv(t, nil)
	u := &upstream{body: "{}"}
	info := &callinfo.Info{Session: "s1"}
	ctx := callinfo.With(context.Background(), info)
	e.s.Do(ctx, "search", "k", u.fill)
	info.AddFetch(callinfo.Miss, 0, 0)
	if got, want := info.Summary().ValidUntil, e.clock.Now().Add(testTTL["search"]); !got.Equal(want) {
		t.Errorf("valid until %v, want %v", got, want)
	}
	e.clock.Advance(time.Minute)
	hit := &callinfo.Info{Session: "s2"}
	e.s.Do(callinfo.With(context.Background(), hit), "search", "k", u.fill)
	hit.AddFetch(callinfo.Hit, 0, 0)
	if got, want := hit.Summary().ValidUntil, e.clock.Now().Add(testTTL["search"]-time.Minute); !got.Equal(want) {
		t.Errorf("a hit is valid until its entry expires: %v, want %v", got, want)
	}
	bad := &upstream{status: 503}
	vol := &callinfo.Info{Session: "s3"}
	e.s.Do(callinfo.With(context.Background(), vol), "search", "other", bad.fill)
	vol.AddFetch(callinfo.Miss, 0, 0)
	if !vol.Summary().ValidUntil.IsZero() {
		t.Error("a result built on a failed answer must not be kept")
	}
}

package cache_test

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/internal/syncbuf"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// syncBuffer collects log lines written while the test reads them.
type syncBuffer = syncbuf.Buffer

var testTTL = map[string]time.Duration{
	connector.ClassList:     30 * 24 * time.Hour,
	connector.ClassSearch:   10 * time.Minute,
	connector.ClassDocument: 28 * 24 * time.Hour,
}

// env is one store under test with its clock and log.
type env struct {
	t     *testing.T
	clock *fakeClock
	log   *syncBuffer
	o     cache.Options
	s     *cache.Store
}

// newEnv opens a store; edit adjusts the defaults.
func newEnv(t *testing.T, edit func(*cache.Options)) *env {
	t.Helper()
	e := &env{t: t, clock: newClock(), log: &syncBuffer{}}
	e.o = cache.Options{
		Platform: "obv", Title: "OpenBesluitvorming", MaxBytes: cache.MinBytes,
		TTL: testTTL, Version: "1.0.0", ModuleSHA256: "aaaa",
		Now: e.clock.Now, Logger: slog.New(slog.NewTextHandler(e.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if edit != nil {
		edit(&e.o)
	}
	e.s = e.open()
	return e
}

func (e *env) open() *cache.Store {
	e.t.Helper()
	s, err := cache.Open(e.o)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { s.Close() })
	return s
}

// reopen closes the store (saving it) and opens it again, as a restart.
func (e *env) reopen(edit func(*cache.Options)) {
	e.t.Helper()
	if err := e.s.Close(); err != nil {
		e.t.Fatal(err)
	}
	if edit != nil {
		edit(&e.o)
	}
	e.s = e.open()
}

// upstream is a fake platform behind a fill.
type upstream struct {
	calls  atomic.Int64
	status int
	body   string
	header map[string]string
	err    error
	// cacheable overrides the gate's 2xx rule when set.
	cacheable *bool
}

func (u *upstream) fill(ctx context.Context) (connector.FetchResponse, bool, error) {
	u.calls.Add(1)
	if u.err != nil {
		return connector.FetchResponse{}, false, u.err
	}
	st := u.status
	if st == 0 {
		st = 200
	}
	ok := st >= 200 && st < 300
	if u.cacheable != nil {
		ok = *u.cacheable
	}
	return connector.FetchResponse{Status: st, Header: u.header, Body: []byte(u.body)}, ok, nil
}

// do runs one fetch and returns body, outcome, error and the call's notes.
func (e *env) do(class, key string, u *upstream) (string, string, error, []string) {
	e.t.Helper()
	info := &callinfo.Info{Session: "s1"}
	resp, outcome, err := e.s.Do(callinfo.With(context.Background(), info), class, key, u.fill)
	return string(resp.Body), outcome, err, info.Summary().Notes
}

// expect runs one fetch and checks its outcome and the upstream calls so far.
func (e *env) expect(class, key string, u *upstream, outcome string, calls int64) string {
	e.t.Helper()
	body, got, err, _ := e.do(class, key, u)
	if got != outcome || u.calls.Load() != calls {
		e.t.Fatalf("%s %s: outcome %q with %d upstream calls (err %v), want %q with %d", class, key, got, u.calls.Load(), err, outcome, calls)
	}
	return body
}

func (e *env) counters(class string) cache.Counters {
	return e.s.Stats().Classes[class]
}

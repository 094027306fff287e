package cache_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// gated is a fill that blocks until released and counts its calls; it
// records whether its context was cancelled.
type gated struct {
	calls     atomic.Int64
	release   chan struct{}
	cancelled atomic.Bool
	body      string
}

func newGated(body string) *gated { return &gated{release: make(chan struct{}), body: body} }

func (g *gated) fill(ctx context.Context) (connector.FetchResponse, bool, error) {
	g.calls.Add(1)
	select {
	case <-g.release:
		return connector.FetchResponse{Status: 200, Body: []byte(g.body)}, true, nil
	case <-ctx.Done():
		g.cancelled.Store(true)
		return connector.FetchResponse{}, false, &connector.FetchError{Kind: connector.FetchCanceled, Message: ctx.Err().Error()}
	}
}

// 50 concurrent identical misses make one upstream request; all get the
// answer, 49 are counted as coalesced, and the next call is a hit.
func TestCoalescing50Calls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, nil)
		g := newGated("shared")
		var wg sync.WaitGroup
		bodies := make([]string, 50)
		outcomes := make([]string, 50)
		for i := range 50 {
			wg.Go(func() {
				resp, o, err := e.s.Do(t.Context(), "search", "k", g.fill)
				if err != nil {
					t.Error(err)
				}
				bodies[i], outcomes[i] = string(resp.Body), o
			})
		}
		synctest.Wait() // all 50 wait for the one fill
		if n := e.s.Stats().Waiting; n != 50 {
			t.Errorf("Stats().Waiting = %d, want 50", n)
		}
		close(g.release)
		wg.Wait()
		if n := g.calls.Load(); n != 1 {
			t.Fatalf("%d upstream requests, want 1", n)
		}
		for i := range 50 {
			if bodies[i] != "shared" || outcomes[i] != callinfo.Miss {
				t.Fatalf("caller %d: %q %q", i, bodies[i], outcomes[i])
			}
		}
		if n := e.s.Stats().Waiting; n != 0 {
			t.Errorf("Stats().Waiting = %d after, want 0", n)
		}
		if c := e.counters("search"); c.Coalesced != 49 || c.Misses != 50 || c.Stored != 1 {
			t.Errorf("counters %+v", c)
		}
		if resp, o, _ := e.s.Do(t.Context(), "search", "k", g.fill); o != callinfo.Hit || string(resp.Body) != "shared" {
			t.Errorf("after: %q %q", o, resp.Body)
		}
	})
}

// Each caller owns its response: mutating one does not touch another's.
func TestSharedResponsesAreCopies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, nil)
		g := newGated("abc")
		var wg sync.WaitGroup
		resps := make([]connector.FetchResponse, 3)
		for i := range resps {
			wg.Go(func() { resps[i], _, _ = e.s.Do(t.Context(), "search", "k", g.fill) })
		}
		synctest.Wait()
		close(g.release)
		wg.Wait()
		resps[0].Body[0] = 'X'
		if string(resps[1].Body) != "abc" || string(resps[2].Body) != "abc" {
			t.Errorf("bodies alias: %q %q", resps[1].Body, resps[2].Body)
		}
	})
}

// The caller whose fill runs goes away: only its own wait ends; the fill
// carries on and the other caller gets the answer.
func TestOneCancellationDoesNotCancelTheSharedFill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, nil)
		g := newGated("answer")
		ctxA, cancelA := context.WithCancel(t.Context())
		errA := make(chan error, 1)
		go func() {
			_, _, err := e.s.Do(ctxA, "search", "k", g.fill)
			errA <- err
		}()
		synctest.Wait() // A leads the fill
		resB := make(chan string, 1)
		go func() {
			resp, _, _ := e.s.Do(t.Context(), "search", "k", newGated("never").fill)
			resB <- string(resp.Body)
		}()
		synctest.Wait()
		cancelA()
		var fe *connector.FetchError
		if err := <-errA; !errors.As(err, &fe) || fe.Kind != connector.FetchCanceled {
			t.Fatalf("A: %v, want a canceled fetch error", err)
		}
		synctest.Wait()
		if g.cancelled.Load() {
			t.Fatal("the shared fill was cancelled with A")
		}
		close(g.release)
		if b := <-resB; b != "answer" {
			t.Errorf("B got %q", b)
		}
		if n := g.calls.Load(); n != 1 {
			t.Errorf("%d fills", n)
		}
	})
}

// When every waiter has gone, the fill is cancelled and forgotten: the
// next caller starts its own.
func TestFillCancelledWhenNobodyWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, nil)
		g := newGated("x")
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() { e.s.Do(ctx, "search", "k", g.fill) })
		}
		synctest.Wait()
		cancel()
		wg.Wait()
		synctest.Wait()
		if !g.cancelled.Load() {
			t.Fatal("the fill runs on although nobody waits")
		}
		g2 := newGated("fresh")
		close(g2.release)
		resp, o, err := e.s.Do(t.Context(), "search", "k", g2.fill)
		if err != nil || o != callinfo.Miss || string(resp.Body) != "fresh" || g2.calls.Load() != 1 {
			t.Errorf("next caller: %q %q %v (%d fills)", resp.Body, o, err, g2.calls.Load())
		}
	})
}

// The fill keeps the first caller's values and deadline.
func TestFillKeepsValuesAndDeadline(t *testing.T) {
	e := newEnv(t, nil)
	info := &callinfo.Info{Session: "first"}
	ctx, cancel := context.WithTimeout(callinfo.With(t.Context(), info), 1e9)
	defer cancel()
	want, _ := ctx.Deadline()
	e.s.Do(ctx, "search", "k", func(fctx context.Context) (connector.FetchResponse, bool, error) {
		if callinfo.From(fctx) != info {
			t.Error("fill lost the caller's callinfo")
		}
		if dl, ok := fctx.Deadline(); !ok || !dl.Equal(want) {
			t.Errorf("fill deadline %v %v, want %v", dl, ok, want)
		}
		return connector.FetchResponse{Status: 200}, true, nil
	})
}

// A panicking fill is an error for every waiter, never a crash.
func TestPanickingFill(t *testing.T) {
	e := newEnv(t, nil)
	_, _, err := e.s.Do(t.Context(), "search", "k", func(context.Context) (connector.FetchResponse, bool, error) { panic("bad") })
	if err == nil {
		t.Fatal("no error")
	}
}

// Hammer: goroutines × iterations over a few keys with fills that succeed,
// fail or are cancelled. Every answer belongs to its key, and the counters
// add up to the calls made.
func TestHammer(t *testing.T) {
	const P, N = 8, 400
	e := newEnv(t, nil)
	var fills atomic.Int64
	var calls, bypass atomic.Int64
	var wg sync.WaitGroup
	for p := range P {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(p), 7))
			for i := range N {
				key := fmt.Sprint("k", rng.IntN(6))
				class := []string{"search", "list", "document", "none"}[rng.IntN(4)]
				ctx, cancel := context.WithCancel(t.Context())
				if rng.IntN(10) == 0 {
					cancel()
				}
				fail := rng.IntN(5) == 0
				resp, o, err := e.s.Do(ctx, class, key, func(context.Context) (connector.FetchResponse, bool, error) {
					fills.Add(1)
					if fail {
						return connector.FetchResponse{Status: 503}, false, nil
					}
					return connector.FetchResponse{Status: 200, Body: []byte(class + key)}, true, nil
				})
				cancel()
				calls.Add(1)
				if o == callinfo.Bypass {
					bypass.Add(1)
				}
				if err == nil && resp.Status == 200 && string(resp.Body) != class+key {
					t.Errorf("%s %s got %q", class, key, resp.Body)
				}
				if i%100 == 0 {
					e.clock.Advance(11 * 60e9) // expire searches now and then
				}
			}
		})
	}
	wg.Wait()
	var sum uint64
	for _, c := range e.s.Stats().Classes {
		sum += c.Hits + c.Misses + c.Stale
	}
	if sum+uint64(bypass.Load()) != uint64(calls.Load()) {
		t.Errorf("hits+misses+stale %d + bypass %d != calls %d", sum, bypass.Load(), calls.Load())
	}
	if fills.Load() >= calls.Load() {
		t.Errorf("%d fills for %d calls: nothing was cached", fills.Load(), calls.Load())
	}
}

// Hammer: identical requests reach the platform exactly once per key,
// whatever the interleaving of lookups, flights and stores.
func TestHammerOneFillPerKey(t *testing.T) {
	const P, N, keys = 8, 300, 20
	e := newEnv(t, nil)
	var fills [keys]atomic.Int64
	var wg sync.WaitGroup
	for p := range P {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(p), 9))
			for range N {
				i := rng.IntN(keys)
				_, _, err := e.s.Do(t.Context(), "list", fmt.Sprint("k", i), func(context.Context) (connector.FetchResponse, bool, error) {
					fills[i].Add(1)
					return connector.FetchResponse{Status: 200, Body: []byte("v")}, true, nil
				})
				if err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for i := range keys {
		if n := fills[i].Load(); n != 1 {
			t.Errorf("key %d: %d upstream requests, want 1", i, n)
		}
	}
}

// A miss whose entry is filled by another caller between its lookup and
// its flight still makes no second upstream request.
func TestMissFilledMeanwhileIsAHit(t *testing.T) {
	e := newEnv(t, nil)
	var fills atomic.Int64
	fill := func(context.Context) (connector.FetchResponse, bool, error) {
		fills.Add(1)
		return connector.FetchResponse{Status: 200, Body: []byte("v")}, true, nil
	}
	once := true
	e.s.SetAfterLookup(func() {
		if once {
			once = false
			e.s.Do(t.Context(), "list", "k", fill) // the other caller, start to end
		}
	})
	_, outcome, err := e.s.Do(t.Context(), "list", "k", fill)
	if err != nil || outcome != callinfo.Hit || fills.Load() != 1 {
		t.Errorf("outcome %q, %d upstream requests (err %v); want a hit after one request", outcome, fills.Load(), err)
	}
}

// Platforms are separate: a platform whose fill hangs holds up no other,
// and one platform filling its budget evicts nothing of another's.
func TestPlatformsAreIsolated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		slow := newEnv(t, nil)
		fast := newEnv(t, func(o *cache.Options) { o.Platform = "tk" })
		fast.expect("list", "keep", &upstream{body: "kept"}, callinfo.Miss, 1)

		g := newGated("late")
		go slow.s.Do(t.Context(), "search", "k", g.fill)
		synctest.Wait() // slow's platform hangs
		if body := fast.expect("search", "k", &upstream{body: "quick"}, callinfo.Miss, 1); body != "quick" {
			t.Errorf("fast platform: %q", body)
		}
		// Fill the slow platform's cache twice over.
		big := strings.Repeat("x", 40_000)
		for i := range 2 * cache.MinBytes / 40_000 {
			slow.s.Do(t.Context(), "document", fmt.Sprint(i), (&upstream{body: big}).fill)
		}
		fast.expect("list", "keep", &upstream{}, callinfo.Hit, 0)
		close(g.release)
	})
}

// A caller whose context has already ended (a call cancelled while it
// waited for an instance, issue 27) starts no fill: nothing would wait for
// its answer, and the fill would otherwise run detached and could reach
// the platform before anyone noticed.
func TestEndedCallerStartsNoFill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, nil)
		g := newGated("never")
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, _, err := e.s.Do(ctx, "search", "k", g.fill)
		var fe *connector.FetchError
		if !errors.As(err, &fe) || fe.Kind != connector.FetchCanceled {
			t.Errorf("err %v, want a canceled fetch error", err)
		}
		synctest.Wait()
		if n := g.calls.Load(); n != 0 {
			t.Errorf("%d fills started for a caller that had gone, want 0", n)
		}
		if n := e.s.Stats().Waiting; n != 0 {
			t.Errorf("Stats().Waiting = %d, want 0", n)
		}
	})
}

// endingCtx is a context whose end shows in Err before its Done channel
// closes, as the runtime's call context (clientcall) does between its
// parent's end and its own callback: the shape of the instant in which a
// granted fill could otherwise still be written.
type endingCtx struct {
	context.Context
	ended atomic.Bool
}

func (c *endingCtx) Err() error {
	if c.ended.Load() {
		return context.Canceled
	}
	return c.Context.Err()
}

// The fill's context reports the end of its last waiter at once: a check
// made just before the platform is asked (the scheduler's, the fetch
// gate's) sees it before the waiter's goroutine has run. While another
// waiter remains, the fill goes on.
func TestFillEndsWithItsLastWaiterAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, nil)
		fctxs := make(chan context.Context, 1)
		release := make(chan struct{})
		fill := func(ctx context.Context) (connector.FetchResponse, bool, error) {
			fctxs <- ctx
			select {
			case <-release:
			case <-ctx.Done():
			}
			return connector.FetchResponse{Status: 200, Body: []byte("x")}, true, nil
		}
		a := &endingCtx{Context: t.Context()}
		b := &endingCtx{Context: t.Context()}
		go e.s.Do(a, "search", "k", fill)
		fctx := <-fctxs
		go e.s.Do(b, "search", "k", fill)
		synctest.Wait()
		a.ended.Store(true)
		if err := fctx.Err(); err != nil {
			t.Fatalf("the fill ended with its first waiter while another waits: %v", err)
		}
		b.ended.Store(true)
		if err := fctx.Err(); err == nil {
			t.Fatal("every waiter has ended and the fill's context still reports none")
		}
		close(release)
	})
}

// A context derived from the fill once its last waiter has ended (the
// fetch gate's, made for one exchange just before it writes the request)
// starts out ended, although no waiter's goroutine has run to leave: the
// request is never written for nobody.
func TestContextDerivedFromAnAbandonedFillIsDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, nil)
		fctxs := make(chan context.Context, 1)
		release := make(chan struct{})
		a := &endingCtx{Context: t.Context()}
		go e.s.Do(a, "search", "k", func(ctx context.Context) (connector.FetchResponse, bool, error) {
			fctxs <- ctx
			<-release
			return connector.FetchResponse{Status: 200}, true, nil
		})
		fctx := <-fctxs
		a.ended.Store(true)
		ex, cancel := context.WithTimeout(fctx, time.Minute)
		defer cancel()
		select {
		case <-ex.Done():
		default:
			t.Error("a context made from a fill nobody waits for is not done")
		}
		close(release)
	})
}

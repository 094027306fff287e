package cache

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/singleflight"
)

// flightGroup makes one fill per key for all concurrent callers
// (singleflight's DoChan) and counts who still waits for it, so that the
// fill is cancelled only when nobody does.
//
// Invariants, all under mu: a key has a flight in m while some caller is
// between join and leave; a flight's fill runs on that flight's context;
// a flight whose last waiter left is removed and its singleflight call
// forgotten, so the next caller starts afresh. A caller whose context has
// already ended joins nothing: it would start a fill nobody waits for.
type flightGroup struct {
	g  singleflight.Group
	mu sync.Mutex
	m  map[string]*flight
}

type flight struct {
	ctx  *fillCtx
	next int // the next waiter's id
}

// fillCtx is a fill's context: the first caller's values and deadline,
// not its cancellation, ended when no waiter is left.
//
// A waiter that goes away leaves from a callback of its own context
// (context.AfterFunc), not from its goroutine, so the fill ends even
// while that goroutine waits to be scheduled; and Err looks at the
// waiters' contexts as it is asked, so a check just before the platform
// is asked (the scheduler's on arrival, the fetch gate's before it
// writes) sees a fill whose last waiter ended this instant, before any
// callback has run. A cancelled call is then never sent on its behalf
// (issue 27: calls a client gave up on still reached the platform).
type fillCtx struct {
	context.Context // detach(first caller), ended by cancel
	cancel          context.CancelFunc

	mu      sync.Mutex
	waiting map[int]context.Context // the waiters' own contexts, by id
}

// detach keeps ctx's values (the caller's session, for the scheduler) and
// deadline, not its cancellation.
func detach(ctx context.Context) (context.Context, context.CancelFunc) {
	d := context.WithoutCancel(ctx)
	if dl, ok := ctx.Deadline(); ok {
		return context.WithDeadline(d, dl)
	}
	return context.WithCancel(d)
}

func newFillCtx(first context.Context) *fillCtx {
	ctx, cancel := detach(first)
	return &fillCtx{Context: ctx, cancel: cancel, waiting: map[int]context.Context{}}
}

// Err is the fill's error: its own (cancelled, or past the first caller's
// deadline), or context.Canceled when every waiter's context has ended.
func (c *fillCtx) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	abandoned := true
	for _, w := range c.waiting {
		if w.Err() == nil {
			abandoned = false
			break
		}
	}
	c.mu.Unlock()
	if abandoned {
		c.cancel()
		return context.Canceled
	}
	return nil
}

// Done is the fill's done channel, closed first if every waiter has
// ended: a context derived from the fill now (the fetch gate's for one
// exchange, made just before it writes the request) starts out ended, so
// the request is never written for nobody.
func (c *fillCtx) Done() <-chan struct{} {
	c.Err()
	return c.Context.Done()
}

// do returns fn's value for key, calling fn at most once for concurrent
// callers. err is ctx's error when the caller stopped waiting (or had
// stopped before it came), or a description of a panic in fn; fn's own
// failures travel in its value. shared reports whether the value went to
// more than one caller.
func (fg *flightGroup) do(ctx context.Context, key string, fn func(context.Context) any) (v any, shared bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	fg.mu.Lock()
	if fg.m == nil {
		fg.m = map[string]*flight{}
	}
	f := fg.m[key]
	if f == nil {
		f = &flight{ctx: newFillCtx(ctx)}
		fg.m[key] = f
	}
	id := f.next
	f.next++
	f.ctx.mu.Lock()
	f.ctx.waiting[id] = ctx
	f.ctx.mu.Unlock()
	ch := fg.g.DoChan(key, func() (v any, err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("cache: fill panicked: %v", p)
			}
			fg.mu.Lock()
			if fg.m[key] == f {
				delete(fg.m, key) // done: later callers start a new flight
			}
			fg.mu.Unlock()
		}()
		return fn(f.ctx), nil
	})
	fg.mu.Unlock()
	var once sync.Once
	leave := func() { once.Do(func() { fg.leave(key, f, id) }) }
	stop := context.AfterFunc(ctx, leave)
	defer func() {
		stop()
		leave()
	}()
	select {
	case r := <-ch:
		return r.Val, r.Shared, r.Err
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

func (fg *flightGroup) leave(key string, f *flight, id int) {
	fg.mu.Lock()
	defer fg.mu.Unlock()
	f.ctx.mu.Lock()
	delete(f.ctx.waiting, id)
	left := len(f.ctx.waiting)
	f.ctx.mu.Unlock()
	if left > 0 {
		return
	}
	f.ctx.cancel()
	if fg.m[key] == f {
		// Everyone left before the fill finished.
		delete(fg.m, key)
		fg.g.Forget(key)
	}
}

// waiting returns how many callers wait for a fill now.
func (fg *flightGroup) waiting() int {
	fg.mu.Lock()
	defer fg.mu.Unlock()
	n := 0
	for _, f := range fg.m {
		f.ctx.mu.Lock()
		n += len(f.ctx.waiting)
		f.ctx.mu.Unlock()
	}
	return n
}

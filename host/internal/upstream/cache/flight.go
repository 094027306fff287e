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
// forgotten, so the next caller starts afresh.
type flightGroup struct {
	g  singleflight.Group
	mu sync.Mutex
	m  map[string]*flight
}

type flight struct {
	waiters int
	ctx     context.Context
	cancel  context.CancelFunc
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

// do returns fn's value for key, calling fn at most once for concurrent
// callers. err is ctx's error when the caller stopped waiting, or a
// description of a panic in fn; fn's own failures travel in its value.
// shared reports whether the value went to more than one caller.
func (fg *flightGroup) do(ctx context.Context, key string, fn func(context.Context) any) (v any, shared bool, err error) {
	fg.mu.Lock()
	if fg.m == nil {
		fg.m = map[string]*flight{}
	}
	f := fg.m[key]
	if f == nil {
		fctx, cancel := detach(ctx)
		f = &flight{ctx: fctx, cancel: cancel}
		fg.m[key] = f
	}
	f.waiters++
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
	defer fg.leave(key, f)
	select {
	case r := <-ch:
		return r.Val, r.Shared, r.Err
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

func (fg *flightGroup) leave(key string, f *flight) {
	fg.mu.Lock()
	defer fg.mu.Unlock()
	f.waiters--
	if f.waiters > 0 {
		return
	}
	f.cancel()
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
		n += f.waiters
	}
	return n
}

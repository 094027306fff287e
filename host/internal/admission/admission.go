// Package admission shares a connector's instances fairly between
// sessions. A WebAssembly instance is held for the whole tool call,
// including the time the call waits at the platform's limit; without this
// package one session flooding a connector would hold every instance and a
// newcomer's call could not even reach the fair scheduler.
//
// An [Admission] has a number of slots (the connector's pool size) and a cap
// per session. When slots are free, a call enters at once. When they are
// not, the next free slot goes to the waiting session with the fewest calls
// in flight, ties broken by who waited longest; calls of one session enter
// in arrival order.
//
// An Admission is safe for concurrent use.
package admission

import (
	"context"
	"fmt"
	"sync"
)

// Admission is a fair semaphore keyed by session.
type Admission struct {
	mu         sync.Mutex
	free       int
	perSession int
	inflight   map[string]int
	waiting    []*waiter // arrival order
	seq        uint64
}

type waiter struct {
	session string
	ready   chan struct{}
	granted bool
}

// New returns an admission with slots slots, each session holding at most
// perSession of them (at least 1).
func New(slots, perSession int) *Admission {
	if slots < 1 {
		panic("admission: slots < 1")
	}
	perSession = max(1, min(perSession, slots))
	return &Admission{free: slots, perSession: perSession, inflight: map[string]int{}}
}

// Acquire waits for a slot for session and returns the function that gives
// it back. It fails only when ctx ends first.
func (a *Admission) Acquire(ctx context.Context, session string) (release func(), err error) {
	a.mu.Lock()
	w := &waiter{session: session, ready: make(chan struct{})}
	a.waiting = append(a.waiting, w)
	a.dispatch()
	a.mu.Unlock()
	select {
	case <-w.ready:
		return a.releaser(session), nil
	case <-ctx.Done():
		a.mu.Lock()
		defer a.mu.Unlock()
		if w.granted {
			// Granted as we gave up: hand the slot back.
			a.put(session)
			return nil, fmt.Errorf("admission: %w", ctx.Err())
		}
		a.remove(w)
		return nil, fmt.Errorf("admission: waiting for a free instance: %w", ctx.Err())
	}
}

func (a *Admission) releaser(session string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			a.put(session)
		})
	}
}

func (a *Admission) put(session string) {
	a.free++
	if a.inflight[session]--; a.inflight[session] <= 0 {
		delete(a.inflight, session)
	}
	a.dispatch()
}

func (a *Admission) remove(w *waiter) {
	for i, x := range a.waiting {
		if x == w {
			a.waiting = append(a.waiting[:i], a.waiting[i+1:]...)
			return
		}
	}
}

// dispatch grants free slots: each time to the first-arrived waiter of the
// eligible session with the fewest calls in flight.
func (a *Admission) dispatch() {
	for a.free > 0 {
		best := -1
		seen := map[string]bool{}
		for i, w := range a.waiting {
			if seen[w.session] {
				continue // only a session's first waiter is eligible: order within a session
			}
			seen[w.session] = true
			n := a.inflight[w.session]
			if n >= a.perSession {
				continue
			}
			if best < 0 || n < a.inflight[a.waiting[best].session] {
				best = i
			}
		}
		if best < 0 {
			return
		}
		w := a.waiting[best]
		a.waiting = append(a.waiting[:best], a.waiting[best+1:]...)
		a.free--
		a.inflight[w.session]++
		w.granted = true
		close(w.ready)
	}
}

// Stats reports free slots and waiting calls.
func (a *Admission) Stats() (free, waiting int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.free, len(a.waiting)
}

package admission

import (
	"context"
	"fmt"
	"sync"
)

// Weight returns a session's current weight in (0, 1]: 1 for a session
// that used nothing (and for the public session), less as it uses more.
type Weight func(session string) float64

// Admission is a weighted fair semaphore keyed by session.
type Admission struct {
	mu       sync.Mutex
	free     int
	weight   Weight
	inflight map[string]int
	waiting  []*waiter // arrival order
	// Start-time fair queueing over grants made while calls wait: v is
	// the virtual time, tags the sessions' finish tags.
	v    float64
	tags map[string]float64
}

type waiter struct {
	session string
	ready   chan struct{}
	granted bool
}

// New returns an admission with slots slots. weight may be nil (every
// session weighs 1: fewest calls in flight first).
func New(slots int, weight Weight) *Admission {
	if slots < 1 {
		panic("admission: slots < 1")
	}
	return &Admission{free: slots, weight: weight, inflight: map[string]int{}, tags: map[string]float64{}}
}

// Acquire waits for a slot for session and returns the function that gives
// it back. It fails only when ctx ends first, and then holds nothing: a
// call whose context has ended (its client gone, issue 27) gets no slot,
// even one granted in the instant it ended, so it never runs its
// connector and never reaches the platform.
func (a *Admission) Acquire(ctx context.Context, session string) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("admission: %w", err)
	}
	a.mu.Lock()
	if a.free > 0 && len(a.waiting) == 0 {
		// The common case: room, nobody waiting.
		a.grant(session, max(a.v, a.tags[session]))
		a.mu.Unlock()
		return a.releaser(session), nil
	}
	w := &waiter{session: session, ready: make(chan struct{})}
	a.waiting = append(a.waiting, w)
	a.dispatch()
	a.mu.Unlock()
	select {
	case <-w.ready:
		if err := ctx.Err(); err != nil {
			// Granted as the call ended (select picks either when both
			// are ready): the slot goes to the next waiter.
			a.mu.Lock()
			defer a.mu.Unlock()
			a.put(session)
			return nil, fmt.Errorf("admission: %w", err)
		}
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
		if a.tags[session] <= a.v {
			delete(a.tags, session) // it would start at v anyway
		}
	}
	a.dispatch()
	if len(a.waiting) == 0 && len(a.inflight) == 0 {
		// Idle: the fair queue restarts.
		a.v = 0
		clear(a.tags)
	}
}

// grant gives session a slot at start tag start.
func (a *Admission) grant(session string, start float64) {
	a.v = start
	a.tags[session] = start + 1/a.weightOf(session)
	a.free--
	a.inflight[session]++
}

func (a *Admission) remove(w *waiter) {
	for i, x := range a.waiting {
		if x == w {
			a.waiting = append(a.waiting[:i], a.waiting[i+1:]...)
			return
		}
	}
}

// weightOf is a session's weight, at least a tiny positive number.
func (a *Admission) weightOf(session string) float64 {
	if a.weight == nil {
		return 1
	}
	if w := a.weight(session); w > 0 {
		return w
	}
	return 1e-9
}

// dispatch grants free slots: each to the first-arrived waiter of the
// session with the smallest start tag; waiters are in arrival order, so a
// tie goes to the session that has waited longest.
func (a *Admission) dispatch() {
	for a.free > 0 && len(a.waiting) > 0 {
		best, bestStart := -1, 0.0
		seen := map[string]bool{}
		for i, w := range a.waiting {
			if seen[w.session] {
				continue // only a session's first waiter is eligible: order within a session
			}
			seen[w.session] = true
			if start := max(a.v, a.tags[w.session]); best < 0 || start < bestStart {
				best, bestStart = i, start
			}
		}
		w := a.waiting[best]
		a.waiting = append(a.waiting[:best], a.waiting[best+1:]...)
		a.grant(w.session, bestStart)
		w.granted = true
		close(w.ready)
	}
}

// Waiting reports whether a call waits for a slot.
func (a *Admission) Waiting() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.waiting) > 0
}

// Stats reports free slots and waiting calls.
func (a *Admission) Stats() (free, waiting int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.free, len(a.waiting)
}

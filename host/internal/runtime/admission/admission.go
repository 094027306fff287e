package admission

import (
	"context"
	"fmt"
	"sync"

	"github.com/besluitbron/besluitbron/sched"
)

// Weight returns a session's current weight in (0, 1]: 1 for a session
// that used nothing (and for the public session), less as it uses more.
type Weight func(session string) float64

// Admission is a weighted fair semaphore keyed by session: the waiting
// calls queue in a sched.FairQueue, the start-time fair queue the
// scheduler is built on, so that instances go by the scheduler's rules.
type Admission struct {
	mu       sync.Mutex
	free     int
	inflight map[string]int
	q        *sched.FairQueue[*waiter]
	weight   Weight
	// places numbers the waiting calls by the fair queue's order
	// (sched.FairQueue.Order), read when a call asks its place; nil when
	// the queue changed since.
	places map[*waiter]int
}

// waiter is a call waiting for a slot: a blocked Acquire (ready) or an
// AcquireFunc's continuation (then), which waits with no goroutine.
type waiter struct {
	ready   chan struct{}
	granted bool
	then    func(release func(), err error)
	ctx     context.Context // AcquireFunc: the call's
	stop    func() bool     // AcquireFunc: stops the watch on ctx
}

// New returns an admission with slots slots. weight may be nil (every
// session weighs 1: fewest calls in flight first).
func New(slots int, weight Weight) *Admission {
	if slots < 1 {
		panic("admission: slots < 1")
	}
	return &Admission{free: slots, inflight: map[string]int{}, q: sched.NewFairQueue[*waiter](weight), weight: weight}
}

// Weight is session's weight now, the share the fair queue gives it (1
// without a Weight): a traced call reports the weight it waited with.
func (a *Admission) Weight(session string) float64 {
	if a.weight == nil {
		return 1
	}
	return a.weight(session)
}

// Acquire waits for a slot for session and returns the function that gives
// it back. It fails only when ctx ends first, and then holds nothing: a
// call whose context has ended (its client gone, issue 27) gets no slot,
// even one granted in the instant it ended, so it never runs its
// connector and never reaches the platform.
func (a *Admission) Acquire(ctx context.Context, session string) (release func(), err error) {
	return a.AcquireNotify(ctx, session, nil)
}

// AcquireNotify is Acquire that tells onWait (when set), once and before
// it blocks, that the call must wait, and how many calls wait for a slot
// with it: an MCP task says so in its status.
func (a *Admission) AcquireNotify(ctx context.Context, session string, onWait func(waiting int)) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("admission: %w", err)
	}
	a.mu.Lock()
	if a.free > 0 && a.q.Serve(session, 1) {
		// The common case: room, nobody waiting. The grant still moves
		// the session's tag: a session holding instances goes behind a
		// newcomer.
		a.free--
		a.inflight[session]++
		a.mu.Unlock()
		return a.releaser(session), nil
	}
	w := &waiter{ready: make(chan struct{})}
	a.push(session, w)
	a.dispatch()
	waiting, wait := a.q.Len(), !w.granted
	a.mu.Unlock()
	if onWait != nil && wait {
		onWait(waiting)
	}
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
		a.remove(session, w)
		return nil, fmt.Errorf("admission: waiting for a free instance: %w", ctx.Err())
	}
}

// Ticket is a call waiting for a slot, as AcquireFunc hands it to its
// onWait: it can ask its place in the fair order.
type Ticket struct {
	a *Admission
	w *waiter
}

// Place is the call's place among the calls waiting for a slot, in the
// order the fair queue will grant them if nothing changes (1: the next),
// and how many wait; place is 0 once the call waits no more. The places
// are computed when first asked after the queue changed (O(n log n) in
// the waiting calls), not at every change: 10,000 waiting calls move up
// at every grant, and only those asked need to know.
func (t Ticket) Place() (place, waiting int) {
	a := t.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if t.w.granted || a.q.Len() == 0 {
		return 0, a.q.Len()
	}
	if a.places == nil {
		a.places = make(map[*waiter]int, a.q.Len())
		n := 0
		a.q.Order(func(_ string, w *waiter) bool {
			n++
			a.places[w] = n
			return true
		})
	}
	return a.places[t.w], a.q.Len()
}

// Waiting is how many calls wait for a slot now (the call itself
// included while it waits).
func (t Ticket) Waiting() int {
	t.a.mu.Lock()
	defer t.a.mu.Unlock()
	return t.a.q.Len()
}

// AcquireFunc is AcquireNotify for a call that must not hold a goroutine
// while it waits (an MCP task: thousands may wait, and a goroutine's
// stack is most of what one would hold). It returns at once; then runs on
// a goroutine of its own once the call has its slot (release gives it
// back) or once ctx ends first (err set, nothing held), exactly once.
// onWait, when set, is told before AcquireFunc returns that the call
// waits, with its Ticket.
func (a *Admission) AcquireFunc(ctx context.Context, session string, onWait func(Ticket), then func(release func(), err error)) {
	if err := ctx.Err(); err != nil {
		go then(nil, fmt.Errorf("admission: %w", err))
		return
	}
	a.mu.Lock()
	if a.free > 0 && a.q.Serve(session, 1) {
		a.free--
		a.inflight[session]++
		a.mu.Unlock()
		go then(a.releaser(session), nil)
		return
	}
	w := &waiter{then: then, ctx: ctx}
	a.push(session, w)
	// The watch is set before dispatch can grant w, so that a grant
	// always has a watch to stop. context.AfterFunc starts no goroutine
	// until ctx ends (ctx is a cancelCtx for the calls that use this).
	w.stop = context.AfterFunc(ctx, func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		if w.granted {
			return // the grant's goroutine sees the ended context
		}
		a.remove(session, w)
		go then(nil, fmt.Errorf("admission: waiting for a free instance: %w", context.Cause(ctx)))
	})
	a.dispatch()
	wait := !w.granted
	a.mu.Unlock()
	if onWait != nil && wait {
		onWait(Ticket{a, w})
	}
}

// push queues w; the places numbered are stale.
func (a *Admission) push(session string, w *waiter) {
	a.q.Push(session, w, 1)
	a.places = nil
}

// remove takes w, which gave up, out of the queue.
func (a *Admission) remove(session string, w *waiter) {
	a.q.Remove(session, w)
	a.places = nil
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
		a.q.Forget(session)
	}
	a.dispatch()
	if a.q.Len() == 0 && len(a.inflight) == 0 {
		// Idle: the fair queue restarts. Not sooner: a session holding
		// instances keeps its place behind a newcomer until it lets go.
		a.q.Restart()
	}
}

// dispatch grants free slots, each to the call the fair queue puts next.
func (a *Admission) dispatch() {
	for a.free > 0 {
		session, w, ok := a.q.Pop()
		if !ok {
			return
		}
		a.free--
		a.inflight[session]++
		a.places = nil
		w.granted = true
		if w.then != nil {
			go a.start(session, w)
			continue
		}
		close(w.ready)
	}
}

// start runs an AcquireFunc continuation whose call dispatch has given a
// slot. A call whose context ended meanwhile gets no slot, as in Acquire:
// it goes to the next waiter.
func (a *Admission) start(session string, w *waiter) {
	w.stop()
	if err := w.ctx.Err(); err != nil {
		a.mu.Lock()
		a.put(session)
		a.mu.Unlock()
		w.then(nil, fmt.Errorf("admission: %w", context.Cause(w.ctx)))
		return
	}
	w.then(a.releaser(session), nil)
}

// Waiting reports whether a call waits for a slot.
func (a *Admission) Waiting() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.q.Len() > 0
}

// Stats reports free slots and waiting calls.
func (a *Admission) Stats() (free, waiting int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.free, a.q.Len()
}

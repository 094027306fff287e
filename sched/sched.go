package sched

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"
)

// Request is one call to a limited platform.
type Request struct {
	// Session is the MCP session id the call is made for. Each distinct
	// value is a session with its own queue and usage; [PublicSession] is
	// the shared, uncounted one. An empty Session is rejected: a caller
	// without a session must choose one explicitly.
	Session string
	// Cost is what the platform charges for the call, in its units; > 0.
	// A cost above [Limit.Units] is allowed (see the package doc).
	Cost float64
	// Front queues the call before the other waiting calls of its session
	// instead of after them. The host uses it to retry a call that the
	// platform answered with 429.
	Front bool
	// OnQueued, if set, is called by Wait when the call has to wait, and
	// again whenever its expected position (1 = next) or expected wait
	// changes noticeably. It is called on Wait's goroutine, never under a
	// lock, and not after Wait returns. The time-explicit methods ignore it.
	OnQueued func(position int, eta time.Duration)
}

// Grant describes a granted call.
type Grant struct {
	At     time.Time     // the instant the call was granted (and charged)
	Queued time.Duration // how long it waited: At minus its arrival
	Seq    uint64        // 1, 2, 3… in the order the scheduler granted calls
}

// RetryError is returned by [Scheduler.Wait] when the call could not be
// granted before the context's deadline. Wait returns it at once, without
// charging anything; After is the expected delay until the call would have
// been granted.
type RetryError struct {
	After time.Duration
}

// Error implements error.
func (e *RetryError) Error() string {
	return fmt.Sprintf("sched: no room under the platform's limit before the deadline; expected wait %v", e.After.Round(time.Millisecond))
}

// Scheduler shares one limited platform between sessions. See the package
// documentation for the model and its guarantees.
//
// A Scheduler is safe for use by multiple goroutines. Its zero value is not
// usable; create one with [New].
type Scheduler struct {
	mu    sync.Mutex
	q     *core
	clock Clock

	timer    Timer // fires at timerAt to serve blocked Wait calls
	timerAt  time.Time
	timerGen uint64
}

// New returns a Scheduler for a platform with limit l, with a full bucket.
// It panics if l is invalid, opts.Forget is negative or opts.PlatformUnits
// is negative, not finite or too large for l: check [Limit.Validate] first
// for limits that come from configuration.
func New(l Limit, opts *Options) *Scheduler {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	return newTestableScheduler(l, o)
}

func newTestableScheduler(l Limit, o Options) *Scheduler {
	if err := l.Validate(); err != nil {
		panic(err)
	}
	if o.Forget < 0 {
		panic(fmt.Sprintf("sched: Options.Forget must not be negative, got %v", o.Forget))
	}
	if k := o.PlatformUnits; math.IsNaN(k) || math.IsInf(k, 0) || k < 0 {
		panic(fmt.Sprintf("sched: Options.PlatformUnits must be zero or a positive finite number, got %v", k))
	}
	checkPlatformUnits(l, o.PlatformUnits)
	if o.Forget == 0 {
		o.Forget = DefaultForget
	}
	return &Scheduler{q: newCore(l, o.Forget, o.PlatformUnits), clock: o.Clock}
}

// checkPlatformUnits panics if the refill time of k units at l does not
// fit a Duration: an oversized call is charged up to k.
func checkPlatformUnits(l Limit, k float64) {
	if k/l.Units*float64(l.Per) >= float64(maxCharge) {
		panic(fmt.Sprintf("sched: Options.PlatformUnits %v is too large for a limit of %v units per %v", k, l.Units, l.Per))
	}
}

// Wait blocks until the call described by r is granted, and returns the
// grant. The call is charged when it is granted; the caller should send it
// to the platform right away.
//
// # Errors
//
// Wait returns an error, and charges nothing, if r is invalid, if ctx is
// done before the grant (ctx.Err()), or if ctx has a deadline that the
// grant would miss (*[RetryError], returned as soon as that is expected).
func (s *Scheduler) Wait(ctx context.Context, r Request) (Grant, error) {
	if err := ctx.Err(); err != nil {
		return Grant{}, err
	}
	s.mu.Lock()
	dl, _ := ctx.Deadline()
	c, err := s.admitLocked(s.clock.Now(), r, dl)
	if err != nil {
		s.mu.Unlock()
		return Grant{}, err
	}
	if c.state == stateGranted {
		s.mu.Unlock()
		return c.grant, nil
	}
	if c.late {
		err := s.rejectLocked(c)
		s.mu.Unlock()
		return Grant{}, err
	}
	s.mu.Unlock()

	for {
		select {
		case <-c.done:
			return c.grant, nil
		case <-c.notify:
			s.mu.Lock()
			if c.state != stateWaiting {
				s.mu.Unlock()
				continue // granted: c.done is closed
			}
			if c.late {
				err := s.rejectLocked(c)
				s.mu.Unlock()
				return Grant{}, err
			}
			pos, eta := c.pos, c.eta.Sub(s.clock.Now())
			s.mu.Unlock()
			if c.onQueued != nil {
				c.onQueued(pos, max(0, eta))
			}
		case <-ctx.Done():
			s.mu.Lock()
			// A grant that raced with ctx is refunded: it was never used.
			s.q.cancel(s.clock.Now(), c, true)
			s.afterLocked()
			s.mu.Unlock()
			return Grant{}, ctx.Err()
		}
	}
}

// admitLocked is Wait's arrival: it queues r at now for a blocked caller
// whose deadline is dl (zero: none), grants what is due, and plans the
// queue for the watched calls. The call it returns may be granted already,
// or late (its expected grant falls after dl).
func (s *Scheduler) admitLocked(now time.Time, r Request, dl time.Time) (*call, error) {
	c, err := s.q.enqueue(now, r)
	if err != nil {
		return nil, err
	}
	if c.state == stateGranted {
		s.afterLocked()
		return c, nil
	}
	c.blocking = true
	s.q.blocking++
	if !dl.IsZero() || r.OnQueued != nil {
		s.q.watch(c)
		c.onQueued = r.OnQueued
		c.deadline = dl
		c.notify = make(chan struct{}, 1)
	}
	s.afterLocked()
	return c, nil
}

// rejectLocked withdraws c, whose expected grant falls after its deadline.
func (s *Scheduler) rejectLocked(c *call) error {
	now := s.clock.Now()
	after := max(0, c.eta.Sub(now))
	s.q.cancel(now, c, false)
	s.q.stats.cancelled--
	s.q.stats.rejected++
	s.afterLocked()
	return &RetryError{After: after}
}

// afterLocked follows every change: it updates the watched Wait calls and
// (re)arms the timer that serves blocked Wait calls.
func (s *Scheduler) afterLocked() {
	if s.q.watchers > 0 {
		s.watchLocked(s.q.now)
	}
	next := s.q.next
	if s.q.blocking == 0 || next.IsZero() {
		if s.timer != nil {
			s.timer.Stop()
			s.timer = nil
			s.timerGen++
		}
		return
	}
	if s.timer != nil && !next.Before(s.timerAt) {
		return // the armed timer fires first and re-arms
	}
	if s.timer != nil {
		s.timer.Stop()
	}
	s.timerGen++
	gen := s.timerGen
	s.timerAt = next
	s.timer = s.clock.AfterFunc(max(0, next.Sub(s.clock.Now())), func() { s.fire(gen) })
}

func (s *Scheduler) fire(gen uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.timerGen {
		return
	}
	s.timer = nil
	s.q.advance(s.clock.Now())
	s.afterLocked()
}

// watchLocked plans the queue and tells each watched Wait call about a
// noticeable change of its position or expected grant, or that the grant
// is now expected after its deadline.
func (s *Scheduler) watchLocked(now time.Time) {
	s.q.project(now, func(c *call, pos int, eta time.Time) {
		c.pos, c.eta = pos, eta
		late := !c.deadline.IsZero() && eta.After(c.deadline)
		moved := eta.Sub(c.sentEta)
		if moved < 0 {
			moved = -moved
		}
		changed := pos != c.sentPos || moved > max(time.Second, eta.Sub(now)/10)
		if late == c.late && !(changed && c.onQueued != nil) {
			return
		}
		c.late = late
		c.sentPos, c.sentEta = pos, eta
		select {
		case c.notify <- struct{}{}:
		default:
		}
	})
}

// Reservation is a call queued with [Scheduler.ReserveAt]. It is granted
// as the scheduler is brought forward in time by ReserveAt, AdvanceAt or
// CancelAt (or by the clock, while Wait calls are blocked).
type Reservation struct {
	s *Scheduler
	c *call
}

// ReserveAt queues a call at instant t without blocking, grants whatever is
// due at t (possibly this call) and returns the call's Reservation.
// Instants earlier than one the scheduler has already seen count as that
// one.
func (s *Scheduler) ReserveAt(t time.Time, r Request) (*Reservation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.q.enqueue(t, r)
	if err != nil {
		return nil, err
	}
	s.afterLocked()
	return &Reservation{s: s, c: c}, nil
}

// AdvanceAt grants every call that is due at t and returns the earliest
// instant at which the next grant can happen, or the zero Time if no call
// waits. Between two such instants nothing is granted unless calls arrive,
// leave, or platform feedback arrives.
func (s *Scheduler) AdvanceAt(t time.Time) (next time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.q.advance(t)
	s.afterLocked()
	return s.q.next
}

// Grant returns the grant and true if the call has been granted.
func (r *Reservation) Grant() (Grant, bool) {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.c.grant, r.c.state == stateGranted
}

// CancelAt withdraws the call at t if it is still waiting; it costs
// nothing, and calls behind it move up at once. It reports false, and
// changes nothing, if the call was already granted or withdrawn.
func (r *Reservation) CancelAt(t time.Time) bool {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if r.c.state != stateWaiting {
		return false
	}
	r.s.q.cancel(t, r.c, false)
	r.s.afterLocked()
	return true
}

// TokensAt returns the units in the local bucket at t, at most the limit's
// Units. It is below 0 only after an oversized call on a bucket that keeps
// a safety margin ([Options.PlatformUnits] above the Units), and then by
// at most that margin.
func (s *Scheduler) TokensAt(t time.Time) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.q.b.tokens(t)
}

// UsageAt returns the units the session is charged with at t, the "used"
// of its weight; 0 once forgotten and always for [PublicSession].
func (s *Scheduler) UsageAt(t time.Time, session string) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.q.usage(t, session)
}

// WeightAt returns the session's share weight at t, K / (K + used): 1 for
// a session that used nothing and always for [PublicSession]. The host
// orders admission to a connector's instances by it, so that the
// instances follow the shares this scheduler gives.
func (s *Scheduler) WeightAt(t time.Time, session string) float64 {
	if session == PublicSession {
		return 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.q.declared()
	return k / (k + s.q.usage(t, session))
}

// PauseUntil grants nothing before t: the platform answered 429 with a
// Retry-After. Pauses only lengthen.
func (s *Scheduler) PauseUntil(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.q.b.pause(t)
	s.q.advance(s.q.now)
	s.afterLocked()
}

// Observe corrects the local bucket with a platform response's headers:
// remaining is RateLimit-Remaining and resetIn is RateLimit-Reset, the time
// until the platform's bucket is full again (OpenBesluitvorming's meaning),
// both as of now. Pass a negative value for a header that was absent.
//
// The headers are rounded (Remaining down, Reset up to a second), so they
// bound the platform's bucket from below and above ([RateLimitBounds]
// says how). Observe only lowers the local bucket, and only when it holds
// more than the upper bound; then it lowers it to the lower bound. It
// never raises it.
func (s *Scheduler) Observe(remaining float64, resetIn time.Duration, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.q.at(now)
	resetSec := -1.0
	if resetIn >= 0 {
		resetSec = resetIn.Seconds()
	}
	lo, hi := bounds(s.q.limit, remaining, resetSec)
	s.correctLocked(t, lo, hi)
}

// ObserveHeaders is Observe for the header values as the platform sent
// them (http.Header.Get's strings), read by [RateLimitBounds] on the
// scheduler's limit. Without a usable RateLimit-Remaining it does nothing.
func (s *Scheduler) ObserveHeaders(remaining, reset string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lo, hi, ok := RateLimitBounds(s.q.limit, remaining, reset)
	if !ok {
		return
	}
	s.correctLocked(s.q.at(now), lo, hi)
}

// correctLocked lowers the bucket to lo when it holds more than hi at t.
func (s *Scheduler) correctLocked(t time.Time, lo, hi float64) {
	if !math.IsInf(lo, -1) && s.q.b.tokens(t) > hi {
		s.q.b.lower(t, max(0, lo))
	}
	s.q.advance(t)
	s.afterLocked()
}

// SetLimit replaces the limit now, by the clock; see [Scheduler.SetLimitAt].
func (s *Scheduler) SetLimit(l Limit) { s.SetLimitAt(s.clock.Now(), l) }

// SetLimitAt replaces the limit at t, keeping the units in the bucket (up
// to the new capacity) and every session's usage and queue. It keeps
// [Options.PlatformUnits] if it was set; otherwise K follows the new
// limit's Units. It panics if l is invalid; check [Limit.Validate] first.
func (s *Scheduler) SetLimitAt(t time.Time, l Limit) {
	if err := l.Validate(); err != nil {
		panic(err)
	}
	checkPlatformUnits(l, s.q.platformUnits)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.q.setLimit(t, l)
	s.afterLocked()
}

// Stats is a snapshot of a Scheduler, for metrics.
type Stats struct {
	Limit           Limit
	PlatformUnits   float64       // K: Options.PlatformUnits, or Limit.Units
	Tokens          float64       // units in the local bucket (see TokensAt)
	Queued          int           // calls waiting
	WaitingSessions int           // sessions with calls waiting
	Sessions        int           // sessions whose usage is remembered
	Calls           uint64        // calls granted since New
	Units           float64       // units granted since New
	TotalWait       time.Duration // sum of Grant.Queued over granted calls
	Cancelled       uint64        // calls withdrawn (cancelled, timed out or refunded)
	Rejected        uint64        // calls refused with a RetryError
	PausedUntil     time.Time     // the last PauseUntil
}

// Stats returns a snapshot at the clock's current time.
func (s *Scheduler) Stats() Stats { return s.StatsAt(s.clock.Now()) }

// StatsAt returns a snapshot at t.
func (s *Scheduler) StatsAt(t time.Time) Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.q
	st := Stats{
		Limit:           q.limit,
		PlatformUnits:   q.declared(),
		Tokens:          q.b.tokens(t),
		Queued:          q.queued,
		WaitingSessions: q.order.live,
		Calls:           q.stats.calls,
		Units:           q.stats.units,
		TotalWait:       q.stats.totalWait,
		Cancelled:       q.stats.cancelled,
		Rejected:        q.stats.rejected,
		PausedUntil:     q.b.pausedUntil(),
	}
	for _, ses := range q.sessions {
		if len(ses.queue) > 0 || t.Sub(ses.lastSeen) < q.forget {
			st.Sessions++
		}
	}
	return st
}

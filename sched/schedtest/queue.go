package schedtest

import (
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

// Queue is what the harness drives: the real scheduler or the baseline.
type Queue interface {
	// Reserve queues a call at t; it may be granted at once.
	Reserve(t time.Time, session string, cost float64) Ticket
	// Advance grants what is due at t and returns the next instant a grant
	// can happen (zero if nothing waits).
	Advance(t time.Time) time.Time
}

// Ticket is a queued call.
type Ticket interface {
	// Granted returns the grant's instant and sequence number once granted.
	Granted() (at time.Time, seq uint64, ok bool)
}

// NewSched returns the real scheduler as a Queue, driven through its
// time-explicit methods.
func NewSched(l sched.Limit, forget time.Duration) Queue {
	return schedQueue{sched.New(l, &sched.Options{Forget: forget})}
}

// NewSchedFor returns the real scheduler as sc runs it: on
// sc.SchedBucket(), with the platform's sc.Limit.Units as its
// PlatformUnits (the weights' K and an oversized call's charge).
func NewSchedFor(sc Scenario) Queue {
	return schedQueue{sched.New(sc.SchedBucket(), &sched.Options{Forget: sc.Forget, PlatformUnits: sc.Limit.Units})}
}

type schedQueue struct{ s *sched.Scheduler }

func (q schedQueue) Reserve(t time.Time, session string, cost float64) Ticket {
	r, err := q.s.ReserveAt(t, sched.Request{Session: session, Cost: cost})
	if err != nil {
		panic(err)
	}
	return schedTicket{r}
}

func (q schedQueue) Advance(t time.Time) time.Time { return q.s.AdvanceAt(t) }

type schedTicket struct{ r *sched.Reservation }

func (t schedTicket) Granted() (time.Time, uint64, bool) {
	g, ok := t.r.Grant()
	return g.At, g.Seq, ok
}

// NewFIFO returns the no-restraint baseline: one queue in arrival order in
// front of the platform's own bucket. It never goes over the limit, and it
// pays no attention to sessions.
func NewFIFO(l sched.Limit) Queue { return &fifo{p: NewPlatform(l)} }

type fifo struct {
	p     *Platform
	queue []*fifoTicket
	seq   uint64
}

type fifoTicket struct {
	cost float64
	at   time.Time
	seq  uint64
	ok   bool
}

func (t *fifoTicket) Granted() (time.Time, uint64, bool) { return t.at, t.seq, t.ok }

func (q *fifo) Reserve(t time.Time, _ string, cost float64) Ticket {
	tk := &fifoTicket{cost: cost}
	q.queue = append(q.queue, tk)
	q.Advance(t)
	return tk
}

func (q *fifo) Advance(t time.Time) time.Time {
	for len(q.queue) > 0 {
		h := q.queue[0]
		if r := q.p.ReadyAt(t, h.cost); r.After(t) {
			return r
		}
		q.p.Send(t, h.cost)
		q.seq++
		h.at, h.seq, h.ok = t, q.seq, true
		q.queue = q.queue[1:]
	}
	return time.Time{}
}

var (
	_ Queue  = schedQueue{}
	_ Queue  = (*fifo)(nil)
	_ Ticket = schedTicket{}
	_ Ticket = (*fifoTicket)(nil)
)

package schedtest

import (
	"slices"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

// Clock is a manual fake [sched.Clock]. Time moves only when Advance is
// called; due AfterFunc callbacks then run synchronously, in time order, on
// the goroutine that called Advance. It is safe for concurrent use.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	seq    int
	timers []*fakeTimer
}

// NewClock returns a Clock that reads t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f at Now()+d; it runs during a later Advance.
func (c *Clock) AfterFunc(d time.Duration, f func()) sched.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &fakeTimer{c: c, at: c.now.Add(d), seq: c.seq, f: f}
	c.timers = append(c.timers, t)
	return t
}

// Pending returns the instants of the timers that have not fired or been
// stopped, earliest first.
func (c *Clock) Pending() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ts []time.Time
	for _, t := range c.timers {
		ts = append(ts, t.at)
	}
	slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
	return ts
}

// Advance moves the clock forward by d, running every timer that falls due,
// each with the clock set to its instant.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	for {
		i := -1
		for j, t := range c.timers {
			if !t.at.After(end) && (i < 0 || t.at.Before(c.timers[i].at) || t.at.Equal(c.timers[i].at) && t.seq < c.timers[i].seq) {
				i = j
			}
		}
		if i < 0 {
			break
		}
		t := c.timers[i]
		c.timers = slices.Delete(c.timers, i, i+1)
		if t.at.After(c.now) {
			c.now = t.at
		}
		c.mu.Unlock()
		t.f()
		c.mu.Lock()
	}
	c.now = end
	c.mu.Unlock()
}

type fakeTimer struct {
	c   *Clock
	at  time.Time
	seq int
	f   func()
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	n := len(t.c.timers)
	t.c.timers = slices.DeleteFunc(t.c.timers, func(x *fakeTimer) bool { return x == t })
	return len(t.c.timers) < n
}

var _ sched.Clock = (*Clock)(nil)

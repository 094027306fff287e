package sched

import "time"

// BehindAt estimates, at t, the place and the wait of a call that will
// join the queue behind every call waiting now and behind more calls
// besides: place is the calls waiting, plus more, plus one; wait is how
// long until the bucket, refilling at the limit's rate from what it holds
// at t, has let through every call ahead and then this one. The calls
// waiting cost what they cost; the others, and the call itself, the mean
// of theirs (one unit when none waits). It changes nothing.
//
// The host numbers by it a call still waiting for an instance of its
// connector (admission's fair queue gives its place there, more being
// the calls ahead of it): it joins this queue once it has an instance.
// It is an estimate, as a waiting call's own is: calls that arrive later
// may be served first, by their tags, and a refund or a pause moves
// everything.
func (s *Scheduler) BehindAt(t time.Time, more int) (place int, wait time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.q
	if t.Before(q.now) {
		t = q.now // as every method: time never runs backwards here
	}
	b := q.b.snapshot()
	start := t
	n, units := 0, 0.0
	q.order.each(func(ses *session) {
		for _, c := range ses.queue {
			start = b.readyAt(start, c.cost)
			b.take(start, c.cost)
			n++
			units += c.cost
		}
	})
	mean := 1.0
	if n > 0 {
		mean = units / float64(n)
	}
	// The calls besides, then this one, all of cost mean: each is ready a
	// charge after the one before (the bucket is then never full, so its
	// capacity does not cut the refill), the first when the bucket holds
	// its need.
	start = b.readyAt(start, mean)
	start = start.Add(time.Duration(more) * b.charge(mean, true))
	return n + more + 1, start.Sub(t)
}

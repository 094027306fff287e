package sched

import "time"

// LowerAt makes the local bucket hold at most units at t; 0 empties it.
// It never raises the bucket. A process that takes over part of a budget
// kept elsewhere (host/internal/upstream/cluster's conservative share when Redis
// is unreachable) starts from an empty bucket this way, because it cannot
// know what was spent before.
func (s *Scheduler) LowerAt(t time.Time, units float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t = s.q.at(t)
	s.q.b.lower(t, max(0, units))
	s.q.advance(t)
	s.afterLocked()
}

package host

import "time"

// SchedulerWeight is, for the tests, the weight the fair scheduler of
// platform's first limited service gives session at t.
func SchedulerWeight(h *Host, platform, session string, t time.Time) float64 {
	for _, p := range h.platforms {
		if p.id == platform && len(p.limiters) > 0 {
			return p.limiters[0].Scheduler().WeightAt(t, session)
		}
	}
	return -1
}

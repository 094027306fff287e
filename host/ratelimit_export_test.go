package host

import "time"

// SchedulerUsage is, for the tests, the units the fair scheduler of
// platform's first limited service charges session with at t: what the
// scheduler knows of a session.
func SchedulerUsage(h *Host, platform, session string, t time.Time) float64 {
	for _, p := range h.platforms {
		if p.ID == platform && len(p.Limiters) > 0 {
			return p.Limiters[0].Scheduler().UsageAt(t, session)
		}
	}
	return -1
}

package host

import (
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

// SchedulerWeight is, for the tests, the weight the fair scheduler of
// platform's first limited service gives session at t.
func SchedulerWeight(h *Host, platform, session string, t time.Time) float64 {
	for _, p := range h.platforms {
		if p.ID == platform && len(p.Limiters) > 0 {
			return p.Limiters[0].Scheduler().WeightAt(t, session)
		}
	}
	return -1
}

// DepartureStats is, for the tests, the figures of the departure pacer of
// platform's first limited service: a call retried after a 429 waits
// there for the pause's end, without queuing again at the fair scheduler.
func DepartureStats(h *Host, platform string) sched.Stats {
	for _, p := range h.platforms {
		if p.ID == platform && len(p.Limiters) > 0 {
			return p.Limiters[0].Departures().Stats()
		}
	}
	return sched.Stats{}
}

// SchedulerStats is, for the tests, the figures of the fair scheduler of
// platform's first limited service at the host's clock: the seed tests in
// virtual time wait for its Queued and Calls instead of sleeping.
func SchedulerStats(h *Host, platform string) sched.Stats {
	for _, p := range h.platforms {
		if p.ID == platform && len(p.Limiters) > 0 {
			return p.Limiters[0].Scheduler().Stats()
		}
	}
	return sched.Stats{}
}

// ManifestTitle is, for the tests, the title of the manifest the host
// serves for platform ("" when it has none).
func ManifestTitle(h *Host, platform string) string {
	for _, p := range h.platforms {
		if p.ID == platform {
			return p.Manifest.Title
		}
	}
	return ""
}

// AdmissionWaiting is, for the tests, how many calls of platform wait for
// one of its connector's instances (-1 without such a platform).
func AdmissionWaiting(h *Host, platform string) int {
	for _, p := range h.platforms {
		if p.ID == platform && p.Admission != nil {
			_, waiting := p.Admission.Stats()
			return waiting
		}
	}
	return -1
}

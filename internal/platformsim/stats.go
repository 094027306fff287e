package platformsim

import (
	"sort"
	"time"
)

// Stats are the Sim's counters since New or the last ResetStats.
type Stats struct {
	// Window is the length of the sliding window of MaxWindowUnits.
	Window string `json:"window"`
	// Platforms holds one entry per platform, requested or not, and one
	// for the zoek host (key Zoek), whichever connector asked it.
	Platforms map[string]PlatformStats `json:"platforms"`
}

// PlatformStats counts one platform's requests.
type PlatformStats struct {
	// Requests is every request that reached the platform's prefix.
	Requests int64 `json:"requests"`
	// Status counts answers by HTTP status (as text: JSON keys).
	Status map[string]int64 `json:"status,omitempty"`
	// TooMany is the number of 429s sent (limit or storm).
	TooMany int64 `json:"too_many"`
	// Injected counts faults injected: "hang", "latency", "reset",
	// "error", "malformed", "storm429".
	Injected map[string]int64 `json:"injected,omitempty"`
	// Units is the cost of every admitted request (not refused with 429):
	// OpenBesluitvorming's weighted units, 1 per request elsewhere.
	Units float64 `json:"units"`
	// MaxWindowUnits is the most units admitted within any window of
	// Stats.Window: with OpenBesluitvorming's bucket (60 units, 1 per
	// second) a client can never exceed 120 in 60 s.
	MaxWindowUnits float64 `json:"max_window_units"`
}

// counter is one platform's live counters.
type counter struct {
	PlatformStats
	events []event // admitted requests within the window
	sum    float64 // of events' costs
}

type event struct {
	at   time.Time
	cost float64
}

func newCounter() *counter {
	return &counter{PlatformStats: PlatformStats{Status: map[string]int64{}, Injected: map[string]int64{}}}
}

// admit records an admitted request of cost at time now and updates the
// window maximum. Events older than window are dropped first.
func (c *counter) admit(now time.Time, cost float64, window time.Duration) {
	cut := now.Add(-window)
	i := 0
	for i < len(c.events) && !c.events[i].at.After(cut) {
		c.sum -= c.events[i].cost
		i++
	}
	c.events = append(c.events[i:], event{now, cost})
	c.sum += cost
	c.Units += cost
	if c.sum > c.MaxWindowUnits {
		c.MaxWindowUnits = c.sum
	}
}

func (c *counter) snapshot() PlatformStats {
	s := c.PlatformStats
	s.Status = map[string]int64{}
	for k, v := range c.Status {
		s.Status[k] = v
	}
	s.Injected = map[string]int64{}
	for k, v := range c.Injected {
		s.Injected[k] = v
	}
	return s
}

// Total sums Requests over platforms.
func (s Stats) Total() int64 {
	var n int64
	for _, p := range s.Platforms {
		n += p.Requests
	}
	return n
}

// Requested lists the platforms that saw at least one request, sorted.
func (s Stats) Requested() []string {
	var out []string
	for id, p := range s.Platforms {
		if p.Requests > 0 {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

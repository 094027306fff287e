package loadstatus

import (
	"slices"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

// HistoryPoint is one step (a minute by default) of a limited quota's
// traffic, from the same counters /metrics exports.
type HistoryPoint struct {
	// At is the start of the step, a whole multiple of the step.
	At time.Time `json:"at"`
	// Units is the units the quota granted during the step: the increase
	// of besluitbron_sched_granted_units_total summed over its services.
	Units float64 `json:"units"`
	// Waiting is the most calls found waiting at the quota at any sample
	// of the step (besluitbron_sched_queued_calls summed over its
	// services): a gauge read once a minute would miss a burst.
	Waiting int64 `json:"waiting_calls"`
	// Got429 is the 429 answers the quota's host gave during the step: the
	// increase of besluitbron_upstream_429_total.
	Got429 uint64 `json:"upstream_429"`
}

// History is a limited quota's recent traffic, oldest step first; the last
// point is the step in progress.
type History struct {
	StepSeconds float64        `json:"step_seconds"`
	Points      []HistoryPoint `json:"points"`
}

// HistoryOptions configure the quota sampler. Zero values mean defaults.
type HistoryOptions struct {
	// Step is one point's span (default 1 minute); Points how many are
	// kept (default 60: an hour).
	Step   time.Duration
	Points int
	// Samples is how many times per step the quotas are read (default 6,
	// every 10 s), so a step's Waiting is the peak of several readings.
	Samples int
}

// Sampler records each limited quota's units, waiting calls and 429s per
// step in a ring of Points steps. It reads the figures the quotas report
// (the ones /metrics exports) on its clock; it never calls a platform.
// Build it with [NewSampler]; safe for concurrent use.
type Sampler struct {
	read  func() []Quota
	clock sched.Clock
	step  time.Duration
	every time.Duration
	n     int

	mu      sync.Mutex
	series  map[string]*series
	timer   sched.Timer
	running bool
}

// series is one quota's ring buffer and the counters' last readings.
type series struct {
	ring      []HistoryPoint // len n once full
	head      int            // index of the newest point
	lastUnits float64
	last429   uint64
}

// NewSampler returns a sampler over read (the quotas as they are now) on
// clock (nil: the real clock). It samples nothing until [Sampler.Start] or
// [Sampler.Sample].
func NewSampler(read func() []Quota, clock sched.Clock, o HistoryOptions) *Sampler {
	if o.Step <= 0 {
		o.Step = time.Minute
	}
	if o.Points <= 0 {
		o.Points = 60
	}
	if o.Samples <= 0 {
		o.Samples = 6
	}
	if clock == nil {
		clock = realClock{}
	}
	return &Sampler{read: read, clock: clock, step: o.Step, every: max(o.Step/time.Duration(o.Samples), time.Millisecond),
		n: o.Points, series: map[string]*series{}}
}

// Start samples at once (the counters' baseline) and then every
// Step/Samples until the returned stop is called.
func (s *Sampler) Start() (stop func()) {
	var tick func()
	tick = func() {
		s.Sample()
		s.mu.Lock()
		if s.running {
			s.timer = s.clock.AfterFunc(s.every, tick)
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.running = true
	s.mu.Unlock()
	tick()
	return func() {
		s.mu.Lock()
		s.running = false
		if s.timer != nil {
			s.timer.Stop()
		}
		s.mu.Unlock()
	}
}

// Sample reads the quotas now and adds the readings to their steps. A
// quota's first reading is its baseline: units and 429s count from there.
func (s *Sampler) Sample() {
	qs := s.read() // outside the lock: it reads the schedulers
	now := s.clock.Now()
	at := now.Truncate(s.step)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, q := range qs {
		if !q.Limited {
			continue
		}
		var units float64
		var got uint64
		for _, u := range q.Connectors {
			units += u.Units
			got += u.Got429
		}
		sr := s.series[q.Quota]
		if sr == nil {
			sr = &series{lastUnits: units, last429: got}
			s.series[q.Quota] = sr
		}
		p := sr.advance(at, s.step, s.n)
		// A counter below its last reading was reset (the quota was built
		// anew): what it counts now is all new.
		du, dg := units-sr.lastUnits, got-sr.last429
		if units < sr.lastUnits {
			du = units
		}
		if got < sr.last429 {
			dg = got
		}
		p.Units += du
		p.Got429 += dg
		p.Waiting = max(p.Waiting, q.Waiting)
		sr.lastUnits, sr.last429 = units, got
	}
}

// advance makes the step starting at at the newest point, with empty
// points for any steps skipped (the clock jumped, or nothing sampled),
// and returns it. A reading from before the newest step (the clock went
// back) counts in the newest step.
func (sr *series) advance(at time.Time, step time.Duration, n int) *HistoryPoint {
	if len(sr.ring) > 0 {
		newest := sr.ring[sr.head].At
		if !at.After(newest) {
			return &sr.ring[sr.head]
		}
		from := newest.Add(step)
		if gap := int(at.Sub(newest) / step); gap > n {
			from = at.Add(-time.Duration(n-1) * step) // older steps would fall out anyway
		}
		for t := from; t.Before(at); t = t.Add(step) {
			sr.push(HistoryPoint{At: t}, n)
		}
	}
	sr.push(HistoryPoint{At: at}, n)
	return &sr.ring[sr.head]
}

func (sr *series) push(p HistoryPoint, n int) {
	if len(sr.ring) < n {
		sr.ring = append(sr.ring, p)
		sr.head = len(sr.ring) - 1
		return
	}
	sr.head = (sr.head + 1) % n
	sr.ring[sr.head] = p
}

// History returns a quota's points, oldest first; ok is false for a quota
// never sampled.
func (s *Sampler) History(quota string) (History, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sr := s.series[quota]
	if sr == nil {
		return History{}, false
	}
	h := History{StepSeconds: s.step.Seconds(), Points: make([]HistoryPoint, 0, len(sr.ring))}
	if len(sr.ring) < s.n {
		h.Points = append(h.Points, sr.ring...)
	} else {
		h.Points = append(h.Points, sr.ring[sr.head+1:]...)
		h.Points = append(h.Points, sr.ring[:sr.head+1]...)
	}
	return h, true
}

// attach gives each sampled quota of qs its history.
func (s *Sampler) attach(qs []Quota) {
	for i := range qs {
		if h, ok := s.History(qs[i].Quota); ok {
			h.Points = slices.Clip(h.Points)
			qs[i].History = &h
		}
	}
}

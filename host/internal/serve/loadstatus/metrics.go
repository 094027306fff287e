package loadstatus

import "github.com/prometheus/client_golang/prometheus"

var (
	descState    = prometheus.NewDesc("besluitbron_platform_state", "1 for the platform's current Laadstatus state (unknown, up, slow, busy, down).", []string{"platform", "state"}, nil)
	descLatency  = prometheus.NewDesc("besluitbron_platform_probe_latency_seconds", "How long the platform took to answer the last load-status probe.", []string{"platform"}, nil)
	descFailures = prometheus.NewDesc("besluitbron_platform_consecutive_failures", "Load-status checks in a row that found the platform down.", []string{"platform"}, nil)
	descChecked  = prometheus.NewDesc("besluitbron_platform_last_check_timestamp_seconds", "When the platform was last checked (Unix time).", []string{"platform"}, nil)
	descSources  = prometheus.NewDesc("besluitbron_platform_sources", "Sources per import state, as the platform reports them.", []string{"platform", "state"}, nil)
)

var allStates = []State{Unknown, Up, Slow, Busy, Down}

// Collector exports the job's latest statuses; register it once.
type Collector struct{ j *Job }

// NewCollector returns a collector over j.
func NewCollector(j *Job) *Collector { return &Collector{j: j} }

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descState, descLatency, descFailures, descChecked, descSources} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.j.Snapshot().Platforms {
		for _, st := range allStates {
			v := 0.0
			if s.State == st {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(descState, prometheus.GaugeValue, v, s.Platform, string(st))
		}
		if s.CheckedAt.IsZero() {
			continue
		}
		ch <- prometheus.MustNewConstMetric(descLatency, prometheus.GaugeValue, float64(s.LatencyMS)/1000, s.Platform)
		ch <- prometheus.MustNewConstMetric(descFailures, prometheus.GaugeValue, float64(s.Failures), s.Platform)
		ch <- prometheus.MustNewConstMetric(descChecked, prometheus.GaugeValue, float64(s.CheckedAt.UnixNano())/1e9, s.Platform)
		if s.Freshness != nil {
			for state, n := range s.Freshness.Counts {
				ch <- prometheus.MustNewConstMetric(descSources, prometheus.GaugeValue, float64(n), s.Platform, state)
			}
		}
	}
}

var _ prometheus.Collector = (*Collector)(nil)

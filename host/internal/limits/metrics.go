package limits

import (
	"github.com/prometheus/client_golang/prometheus"
)

var received429 = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "besluitbron_upstream_429_total",
	Help: "429 answers received from a platform, per service.",
}, []string{"platform", "service"})

// Collector exports every limiter's scheduler figures.
type Collector struct {
	limiters []*Limiter
}

// NewCollector returns a collector over ls; register it once.
func NewCollector(ls []*Limiter) *Collector { return &Collector{limiters: ls} }

var (
	descQueued   = prometheus.NewDesc("besluitbron_sched_queued_calls", "Calls waiting at a platform's limit.", []string{"platform", "service"}, nil)
	descSessions = prometheus.NewDesc("besluitbron_sched_waiting_sessions", "Sessions with calls waiting.", []string{"platform", "service"}, nil)
	descCalls    = prometheus.NewDesc("besluitbron_sched_granted_calls_total", "Calls granted.", []string{"platform", "service"}, nil)
	descUnits    = prometheus.NewDesc("besluitbron_sched_granted_units_total", "Units granted.", []string{"platform", "service"}, nil)
	descWait     = prometheus.NewDesc("besluitbron_sched_wait_seconds_total", "Total time granted calls waited.", []string{"platform", "service"}, nil)
	descTokens   = prometheus.NewDesc("besluitbron_sched_tokens", "Units in the local copy of the platform's bucket.", []string{"platform", "service"}, nil)
	descRejected = prometheus.NewDesc("besluitbron_sched_rejected_total", "Calls refused because no room before their deadline.", []string{"platform", "service"}, nil)
	descCanceled = prometheus.NewDesc("besluitbron_sched_canceled_total", "Waits withdrawn (canceled or timed out).", []string{"platform", "service"}, nil)
)

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descQueued, descSessions, descCalls, descUnits, descWait, descTokens, descRejected, descCanceled} {
		ch <- d
	}
	received429.Describe(ch)
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	for _, l := range c.limiters {
		st := l.s.Stats()
		lv := []string{l.Platform, l.Service}
		ch <- prometheus.MustNewConstMetric(descQueued, prometheus.GaugeValue, float64(st.Queued), lv...)
		ch <- prometheus.MustNewConstMetric(descSessions, prometheus.GaugeValue, float64(st.WaitingSessions), lv...)
		ch <- prometheus.MustNewConstMetric(descCalls, prometheus.CounterValue, float64(st.Calls), lv...)
		ch <- prometheus.MustNewConstMetric(descUnits, prometheus.CounterValue, st.Units, lv...)
		ch <- prometheus.MustNewConstMetric(descWait, prometheus.CounterValue, st.TotalWait.Seconds(), lv...)
		ch <- prometheus.MustNewConstMetric(descTokens, prometheus.GaugeValue, st.Tokens, lv...)
		ch <- prometheus.MustNewConstMetric(descRejected, prometheus.CounterValue, float64(st.Rejected), lv...)
		ch <- prometheus.MustNewConstMetric(descCanceled, prometheus.CounterValue, float64(st.Cancelled), lv...)
	}
	received429.Collect(ch)
}

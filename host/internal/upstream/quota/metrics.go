package quota

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Collector exports every quota's figures.
//
// The besluitbron_sched_* series and besluitbron_upstream_429_total keep
// their names and their platform and service labels, and gain a quota
// label: each quota has one series per connector service that uses it. The
// counters and besluitbron_sched_queued_calls are that service's own (a
// shared quota's sum over its services is the quota's); the tokens and the
// waiting sessions are the quota's, repeated on each of its services'
// series (aggregate them with max by (quota), not sum).
// besluitbron_quota_limit_units and besluitbron_quota_limit_window_seconds
// give each quota's limit once; besluitbron_quota_headroom_units the units
// its local buckets keep below that limit now, with the reason as a label
// (start, floor, spread, 429 or cap), besluitbron_quota_path_spread_seconds
// the spread it was sized from, and besluitbron_quota_refused_total the
// 429s that still happened.
type Collector struct {
	limiters []*Limiter
}

// NewCollector returns a collector over ls; register it once.
func NewCollector(ls []*Limiter) *Collector { return &Collector{limiters: ls} }

var useLabels = []string{"quota", "platform", "service"}

var (
	descQueued   = prometheus.NewDesc("besluitbron_sched_queued_calls", "Calls of the service waiting at its quota's limit.", useLabels, nil)
	descSessions = prometheus.NewDesc("besluitbron_sched_waiting_sessions", "Sessions with calls waiting at the quota (the quota's figure, on each of its services).", useLabels, nil)
	descCalls    = prometheus.NewDesc("besluitbron_sched_granted_calls_total", "Calls of the service granted by its quota.", useLabels, nil)
	descUnits    = prometheus.NewDesc("besluitbron_sched_granted_units_total", "Units of the service granted by its quota.", useLabels, nil)
	descWait     = prometheus.NewDesc("besluitbron_sched_wait_seconds_total", "Total time the service's granted calls waited.", useLabels, nil)
	descTokens   = prometheus.NewDesc("besluitbron_sched_tokens", "Units in the local copy of the quota's bucket (the quota's figure, on each of its services).", useLabels, nil)
	descRejected = prometheus.NewDesc("besluitbron_sched_rejected_total", "Calls of the service refused because the quota left no room before their deadline.", useLabels, nil)
	descCanceled = prometheus.NewDesc("besluitbron_sched_canceled_total", "Calls of the service that ended while waiting at the quota.", useLabels, nil)
	desc429      = prometheus.NewDesc("besluitbron_upstream_429_total", "429 answers the service received from the quota's host.", useLabels, nil)
	descUnitsQ   = prometheus.NewDesc("besluitbron_quota_limit_units", "The quota's limit: units per window (the strictest its connectors declare).", []string{"quota"}, nil)
	descWindowQ  = prometheus.NewDesc("besluitbron_quota_limit_window_seconds", "The quota's limit: the window of its units.", []string{"quota"}, nil)
	descHeadroom = prometheus.NewDesc("besluitbron_quota_headroom_units", "Units the quota's local buckets keep below the platform's declared capacity, and why (reason: start, floor, spread, 429, cap).", []string{"quota", "reason"}, nil)
	descSpread   = prometheus.NewDesc("besluitbron_quota_path_spread_seconds", "Spread (max - min) of the time from a request's departure to the platform's answer, over the latest answers.", []string{"quota"}, nil)
	descRefused  = prometheus.NewDesc("besluitbron_quota_refused_total", "429 answers from the quota's host although the local bucket had room; each widens the headroom.", []string{"quota"}, nil)
)

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descQueued, descSessions, descCalls, descUnits, descWait, descTokens, descRejected, descCanceled, desc429, descUnitsQ, descWindowQ, descHeadroom, descSpread, descRefused} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	for _, l := range c.limiters {
		st := l.s.Stats()
		ch <- prometheus.MustNewConstMetric(descUnitsQ, prometheus.GaugeValue, l.Limit.Units, l.Name)
		ch <- prometheus.MustNewConstMetric(descWindowQ, prometheus.GaugeValue, l.Limit.Per.Seconds(), l.Name)
		hr := l.Headroom()
		ch <- prometheus.MustNewConstMetric(descHeadroom, prometheus.GaugeValue, hr.Units, l.Name, hr.Reason)
		ch <- prometheus.MustNewConstMetric(descSpread, prometheus.GaugeValue, hr.Spread.Seconds(), l.Name)
		ch <- prometheus.MustNewConstMetric(descRefused, prometheus.CounterValue, float64(hr.Got429), l.Name)
		for _, u := range l.uses {
			us := u.Stats()
			lv := []string{l.Name, u.Platform, u.Service}
			ch <- prometheus.MustNewConstMetric(descQueued, prometheus.GaugeValue, float64(us.Waiting), lv...)
			ch <- prometheus.MustNewConstMetric(descSessions, prometheus.GaugeValue, float64(st.WaitingSessions), lv...)
			ch <- prometheus.MustNewConstMetric(descCalls, prometheus.CounterValue, float64(us.Calls), lv...)
			ch <- prometheus.MustNewConstMetric(descUnits, prometheus.CounterValue, us.Units, lv...)
			ch <- prometheus.MustNewConstMetric(descWait, prometheus.CounterValue, us.Wait.Seconds(), lv...)
			ch <- prometheus.MustNewConstMetric(descTokens, prometheus.GaugeValue, st.Tokens, lv...)
			ch <- prometheus.MustNewConstMetric(descRejected, prometheus.CounterValue, float64(us.Rejected), lv...)
			ch <- prometheus.MustNewConstMetric(descCanceled, prometheus.CounterValue, float64(us.Canceled), lv...)
			ch <- prometheus.MustNewConstMetric(desc429, prometheus.CounterValue, float64(us.Got429), lv...)
		}
	}
}

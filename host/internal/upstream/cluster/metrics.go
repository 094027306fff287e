package cluster

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the cluster's Prometheus figures: each shared limiter's
// mode and fallbacks, Redis round trips, and the full-text tier.
type Metrics struct {
	mu       sync.Mutex
	limiters []*SharedQuota
	cluster  *Cluster

	roundTrip prometheus.Histogram
	tier      *prometheus.CounterVec
}

// NewMetrics registers the cluster's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		roundTrip: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "besluitbron_cluster_redis_seconds",
			Help:    "Round trip of one scheduler script call to Redis.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
		}),
		tier: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "besluitbron_cluster_tier_total",
			Help: "Full-text cache tier in Redis: hit, miss, stored, version_discard, error.",
		}, []string{"platform", "outcome"}),
	}
	reg.MustRegister(m.roundTrip, m.tier, m)
	return m
}

func (m *Metrics) add(l *SharedQuota) {
	m.mu.Lock()
	m.limiters = append(m.limiters, l)
	m.cluster = l.c
	m.mu.Unlock()
}

// The per-quota series carry the quota and, as before quotas were shared,
// the platform and service: one series per connector service that uses
// the quota, each with the quota's figure (aggregate with max by (quota)).
var quotaLabels = []string{"quota", "platform", "service"}

var (
	descMode      = prometheus.NewDesc("besluitbron_cluster_mode", "Where a quota's decisions are made: 0 shared (Redis), 1 fallback (own share), 2 rejoining.", quotaLabels, nil)
	descShare     = prometheus.NewDesc("besluitbron_cluster_fallback_share_replicas", "In fallback: the number of replicas the quota's limit is divided by (0: no share).", quotaLabels, nil)
	descFalls     = prometheus.NewDesc("besluitbron_cluster_fallbacks_total", "Times a quota fell back to this replica's own share because Redis was unreachable.", quotaLabels, nil)
	descModeSince = prometheus.NewDesc("besluitbron_cluster_mode_since_seconds", "Unix time of the quota's last mode change.", quotaLabels, nil)
	descLive      = prometheus.NewDesc("besluitbron_cluster_live_replicas", "Replicas whose lease held at this replica's last heartbeat, this one included.", nil, nil)
)

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descMode, descShare, descFalls, descModeSince, descLive} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	ls, c := append([]*SharedQuota(nil), m.limiters...), m.cluster
	m.mu.Unlock()
	for _, l := range ls {
		st := l.Status()
		for _, u := range st.Connectors {
			lv := []string{st.Quota, u.Platform, u.Service}
			ch <- prometheus.MustNewConstMetric(descMode, prometheus.GaugeValue, float64(st.mode), lv...)
			ch <- prometheus.MustNewConstMetric(descShare, prometheus.GaugeValue, float64(st.ShareReplicas), lv...)
			ch <- prometheus.MustNewConstMetric(descFalls, prometheus.CounterValue, float64(st.Fallbacks), lv...)
			ch <- prometheus.MustNewConstMetric(descModeSince, prometheus.GaugeValue, float64(st.Since.UnixNano())/1e9, lv...)
		}
	}
	if c != nil {
		ch <- prometheus.MustNewConstMetric(descLive, prometheus.GaugeValue, float64(c.Status().LiveReplicas))
	}
}

// LimiterStatus is one quota's shared state, for /status and metrics.
type LimiterStatus struct {
	// Quota is the quota's name: the upstream host, a named quota, or
	// "<connector>/<service>".
	Quota string `json:"quota"`
	// Connectors are the connector services that use it.
	Connectors []QuotaUser `json:"connectors"`
	Mode       string      `json:"mode"`
	Since      time.Time   `json:"since"`
	// ShareReplicas: in fallback, the limit is divided by this many
	// replicas (0: this replica takes no share).
	ShareReplicas int    `json:"share_replicas,omitempty"`
	Fallbacks     uint64 `json:"fallbacks"`
	LastError     string `json:"last_error,omitempty"`
	// Message says in English what the mode means for callers.
	Message string `json:"message"`
	mode    Mode
}

// QuotaUser is one connector service using a quota.
type QuotaUser struct {
	Platform string `json:"platform"`
	Service  string `json:"service"`
}

// Status is this replica's view of the cluster.
type Status struct {
	ReplicaID    string          `json:"replica_id"`
	LiveReplicas int             `json:"live_replicas"`
	LastContact  time.Time       `json:"last_contact,omitzero"`
	Quotas       []LimiterStatus `json:"quotas"`
}

// Status returns the limiter's state now.
func (l *SharedQuota) Status() LimiterStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := LimiterStatus{Quota: l.local.Name, Mode: l.mode.String(), mode: l.mode, Since: l.since,
		Fallbacks: l.falls, LastError: l.lastErr}
	for _, u := range l.local.Users {
		st.Connectors = append(st.Connectors, QuotaUser{Platform: u.Platform, Service: u.Service})
	}
	switch l.mode {
	case Shared:
		st.Message = "The limit is shared with every replica through Redis."
	case Fallback:
		st.ShareReplicas = l.shareN
		if l.shareN > 0 {
			st.Message = "Redis is unreachable: this replica grants on its own share of the limit (1/" + strconv.Itoa(l.shareN) + "), so calls may wait longer."
		} else {
			st.Message = "Redis is unreachable and this replica joined too recently to take a safe share: limited calls fail until Redis answers."
		}
	case Rejoining:
		st.Message = "Redis answers again: handing back this replica's share."
	}
	return st
}

// Status returns this replica's view of the cluster.
func (c *Cluster) Status() Status {
	c.mu.Lock()
	st := Status{ReplicaID: c.o.ReplicaID, LiveReplicas: c.live, LastContact: c.lastOK}
	ls := append([]*SharedQuota(nil), c.order...)
	c.mu.Unlock()
	for _, l := range ls {
		st.Quotas = append(st.Quotas, l.Status())
	}
	return st
}

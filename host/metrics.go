package host

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/host/internal/mcpserver"
)

// hostMetrics are the tool-call figures.
type hostMetrics struct {
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	queued   *prometheus.HistogramVec
	upstream *prometheus.HistogramVec
}

func newHostMetrics(reg prometheus.Registerer) *hostMetrics {
	buckets := []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
	m := &hostMetrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "besluitbron_tool_calls_total", Help: "Tool calls by tool, outcome and cache outcome.",
		}, []string{"tool", "outcome", "cache"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "besluitbron_tool_call_seconds", Help: "Tool call latency.", Buckets: buckets,
		}, []string{"tool"}),
		queued: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "besluitbron_tool_queued_seconds", Help: "Time a tool call waited at platform limits.", Buckets: buckets,
		}, []string{"platform"}),
		upstream: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "besluitbron_tool_upstream_seconds", Help: "Time a tool call spent waiting for the platform.", Buckets: buckets,
		}, []string{"platform"}),
	}
	reg.MustRegister(m.calls, m.duration, m.queued, m.upstream)
	return m
}

func (m *hostMetrics) observe(_ context.Context, e mcpserver.CallEvent) {
	m.calls.WithLabelValues(e.Tool, e.Outcome, e.Summary.Cache).Inc()
	m.duration.WithLabelValues(e.Tool).Observe(e.Elapsed)
	m.queued.WithLabelValues(e.Platform).Observe(e.Summary.Queued.Seconds())
	m.upstream.WithLabelValues(e.Platform).Observe(e.Summary.Upstream.Seconds())
}

package host

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/host/internal/mcpserver"
	"github.com/besluitbron/besluitbron/host/internal/wasmrt"
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

// runtimeCollector exports each connector's runtime figures: instances in
// its pool (a WebAssembly runtime reports them), their memory, and the fair
// admission to them.
type runtimeCollector struct{ h *Host }

var (
	descInstances = prometheus.NewDesc("besluitbron_runtime_instances", "Connector instances alive (idle or busy).", []string{"platform"}, nil)
	descIdle      = prometheus.NewDesc("besluitbron_runtime_idle_instances", "Connector instances waiting for a call.", []string{"platform"}, nil)
	descMemory    = prometheus.NewDesc("besluitbron_runtime_idle_memory_bytes", "Linear memory held by idle WebAssembly instances.", []string{"platform"}, nil)
	descSlotsFree = prometheus.NewDesc("besluitbron_admission_free_slots", "Calls a connector can start now.", []string{"platform"}, nil)
	descWaiting   = prometheus.NewDesc("besluitbron_admission_waiting_calls", "Calls waiting for a connector instance.", []string{"platform"}, nil)
)

// Describe implements prometheus.Collector.
func (c *runtimeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descInstances, descIdle, descMemory, descSlotsFree, descWaiting} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *runtimeCollector) Collect(ch chan<- prometheus.Metric) {
	for _, p := range c.h.platforms {
		if ps, ok := p.conn.(interface{ PoolStats() wasmrt.PoolStats }); ok {
			st := ps.PoolStats()
			ch <- prometheus.MustNewConstMetric(descInstances, prometheus.GaugeValue, float64(st.Instances), p.id)
			ch <- prometheus.MustNewConstMetric(descIdle, prometheus.GaugeValue, float64(st.Idle), p.id)
			ch <- prometheus.MustNewConstMetric(descMemory, prometheus.GaugeValue, float64(st.MemoryBytes), p.id)
		}
		if p.adm != nil {
			free, waiting := p.adm.Stats()
			ch <- prometheus.MustNewConstMetric(descSlotsFree, prometheus.GaugeValue, float64(free), p.id)
			ch <- prometheus.MustNewConstMetric(descWaiting, prometheus.GaugeValue, float64(waiting), p.id)
		}
	}
}

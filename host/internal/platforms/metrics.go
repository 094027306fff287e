package platforms

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmrt"
)

// runtimeCollector exports each connector's runtime figures: instances in
// its pool (a WebAssembly runtime reports them), their memory, and the fair
// admission to them.
type runtimeCollector struct{ s *Set }

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
	for _, p := range c.s.Platforms {
		if ps, ok := p.Conn.(interface{ PoolStats() wasmrt.PoolStats }); ok {
			st := ps.PoolStats()
			ch <- prometheus.MustNewConstMetric(descInstances, prometheus.GaugeValue, float64(st.Instances), p.ID)
			ch <- prometheus.MustNewConstMetric(descIdle, prometheus.GaugeValue, float64(st.Idle), p.ID)
			ch <- prometheus.MustNewConstMetric(descMemory, prometheus.GaugeValue, float64(st.MemoryBytes), p.ID)
		}
		if p.Admission != nil {
			free, waiting := p.Admission.Stats()
			ch <- prometheus.MustNewConstMetric(descSlotsFree, prometheus.GaugeValue, float64(free), p.ID)
			ch <- prometheus.MustNewConstMetric(descWaiting, prometheus.GaugeValue, float64(waiting), p.ID)
		}
	}
}

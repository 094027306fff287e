package invoke

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics registers the tool-call figures on reg and returns the Observer
// that keeps them: calls by tool, outcome and cache outcome; each call's
// latency; per platform the time spent waiting at its limits and for
// the platform itself; and the MCP clients' calls by client (a named
// client's name, "oauth" for every OAuth subject, "anonymous": a bounded
// label, never a session or an address).
func Metrics(reg prometheus.Registerer) Observer {
	buckets := []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
	calls := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "besluitbron_tool_calls_total", Help: "Tool calls by tool, outcome and cache outcome.",
	}, []string{"tool", "outcome", "cache"})
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "besluitbron_tool_call_seconds", Help: "Tool call latency.", Buckets: buckets,
	}, []string{"tool"})
	queued := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "besluitbron_tool_queued_seconds", Help: "Time a tool call waited at platform limits.", Buckets: buckets,
	}, []string{"platform"})
	upstream := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "besluitbron_tool_upstream_seconds", Help: "Time a tool call spent waiting for the platform.", Buckets: buckets,
	}, []string{"platform"})
	clients := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "besluitbron_client_tool_calls_total", Help: "MCP clients' tool calls by client: a configured client's name, oauth (any OAuth subject) or anonymous.",
	}, []string{"client"})
	reg.MustRegister(calls, duration, queued, upstream, clients)
	return func(_ context.Context, e CallEvent) {
		calls.WithLabelValues(e.Tool, e.Outcome, e.Summary.Cache).Inc()
		duration.WithLabelValues(e.Tool).Observe(e.Elapsed)
		queued.WithLabelValues(e.Platform).Observe(e.Summary.Queued.Seconds())
		upstream.WithLabelValues(e.Platform).Observe(e.Summary.Upstream.Seconds())
		if e.Client != "" {
			clients.WithLabelValues(e.Client).Inc()
		}
	}
}

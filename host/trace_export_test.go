package host

import "context"

// FlushTraces is, for the tests, the host's tracer provider sending the
// spans it still batches now, so that a test's receiver holds them when it
// returns.
func FlushTraces(h *Host) error { return h.traces.ForceFlush(context.Background()) }

// TracingOn is, for the tests, whether the host started a tracer provider.
func TracingOn(h *Host) bool { return h.traces != nil }

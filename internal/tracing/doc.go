// Package tracing owns BesluitBron's OpenTelemetry traces: the tracer
// provider and its OTLP/HTTP exporter (off unless an endpoint is
// configured), the trace context a client sends in a tool call's
// _meta.traceparent and _meta.tracestate (W3C Trace Context), the spans
// of a tool call, and the slog handler that puts the call's trace_id and
// span_id in its log lines.
//
// It is the one place that speaks the OpenTelemetry API. The layers a call
// passes through call its small helpers and never see a tracer:
//
//   - the MCP edge starts the call's span with [Provider.StartCall], which
//     also puts the provider in the call's context;
//   - every layer below (the invoke path, the fetch gate, the quotas) opens
//     a child with [Start] and annotates it through [Span]; [Current]
//     returns the span a layer runs under, for attributes only it knows.
//
// Off is the default, and costs next to nothing: a nil *Provider starts
// nothing, [Start] finds no provider in the context (one context lookup)
// and returns the context unchanged with a zero [Span], whose methods do
// nothing. No span, attribute or option is built on that path, so a call
// allocates nothing it did not allocate before.
//
// Times come from the provider's clock (the host's, a fake one in tests),
// or from the caller where it measured them itself (the quota wait), so
// that a span's duration is the figure the call's _meta reports.
//
// The package sits beside the host's wings (internal/, not host/internal/)
// because every wing adds spans to the same call: the MCP edge and the
// invoke path (serve), the fetch gate and the quotas (upstream). Its only
// dependencies are the OpenTelemetry SDK and the standard library.
package tracing

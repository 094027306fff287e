package tracing

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The standard OpenTelemetry variables the provider reads (the exporter
// reads the other OTEL_EXPORTER_OTLP_* ones, headers and timeouts, itself).
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvServiceName    = "OTEL_SERVICE_NAME"
)

// DefaultServiceName is service.name when neither the config nor
// OTEL_SERVICE_NAME names one.
const DefaultServiceName = "besluitbron"

// tracesPath is what OTLP/HTTP appends to a base endpoint.
const tracesPath = "/v1/traces"

// Config configures a Provider.
type Config struct {
	// Endpoint is [tracing] endpoint: the OTLP/HTTP collector's base URL
	// ("http://collector:4318"; /v1/traces is appended when it has no
	// path). Empty: the OTEL_EXPORTER_OTLP_* variables decide, and
	// without them tracing is off.
	Endpoint string
	// ServiceName is [tracing] service_name; empty: OTEL_SERVICE_NAME,
	// then DefaultServiceName.
	ServiceName string
	// SampleRatio is [tracing] sample_ratio: the part of the calls that
	// start a trace here which are recorded, in [0, 1]. A call that
	// arrives with a client's traceparent follows the client's sampled
	// flag.
	SampleRatio float64
	// Version is service.version.
	Version string
	// Getenv reads the environment (nil: no variables are read).
	Getenv func(string) string
	// Now is the clock spans are stamped with (nil: time.Now).
	Now func() time.Time
	// Exporter replaces the OTLP/HTTP exporter (tests and benchmarks);
	// when set, tracing is on whatever the endpoint.
	Exporter sdktrace.SpanExporter
}

// Provider is tracing when it is on: the SDK's tracer provider with its
// batching exporter, the W3C propagator and the clock. A nil *Provider is
// tracing off; every method accepts one.
type Provider struct {
	tp       *sdktrace.TracerProvider
	tracer   trace.Tracer
	prop     propagation.TextMapPropagator
	now      func() time.Time
	endpoint string
}

// New returns the provider the configuration asks for, or nil (off) when
// it names no endpoint and no exporter. A bad endpoint is an error naming
// the key or variable it came from.
func New(c Config) (*Provider, error) {
	getenv := c.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	if c.SampleRatio < 0 || c.SampleRatio > 1 || c.SampleRatio != c.SampleRatio {
		return nil, fmt.Errorf("tracing.sample_ratio %v: want a part of the calls from 0 to 1 (0.1 is a tenth)", c.SampleRatio)
	}
	exp := c.Exporter
	endpoint := "in-process exporter"
	if exp == nil {
		u, err := Endpoint(c.Endpoint, getenv)
		if err != nil || u == "" {
			return nil, err
		}
		e, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(u))
		if err != nil {
			return nil, fmt.Errorf("tracing: the OTLP/HTTP exporter for %s: %w", u, err)
		}
		exp, endpoint = e, u
	}
	name := c.ServiceName
	if name == "" {
		name = getenv(EnvServiceName)
	}
	if name == "" {
		name = DefaultServiceName
	}
	res := resource.NewSchemaless(attribute.String("service.name", name), attribute.String("service.version", c.Version))
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(c.SampleRatio))),
	)
	now := c.Now
	if now == nil {
		now = time.Now
	}
	return &Provider{
		tp:       tp,
		tracer:   tp.Tracer("github.com/besluitbron/besluitbron/host"),
		prop:     propagation.TraceContext{},
		now:      now,
		endpoint: endpoint,
	}, nil
}

// Endpoint resolves where spans go: the configured endpoint (a base URL,
// /v1/traces appended when it has no path), else
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as written, else
// OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces appended; "" when none is
// set (tracing off). A value that is not an http(s) URL with a host is an
// error naming where it came from.
func Endpoint(configured string, getenv func(string) string) (string, error) {
	if configured != "" {
		return endpointURL("tracing.endpoint", configured, true)
	}
	if v := getenv(EnvTracesEndpoint); v != "" {
		return endpointURL("environment "+EnvTracesEndpoint, v, false)
	}
	if v := getenv(EnvEndpoint); v != "" {
		return endpointURL("environment "+EnvEndpoint, v, true)
	}
	return "", nil
}

// endpointURL checks one endpoint value; base values get the traces path
// appended to whatever path they have ("http://c:4318/otlp" →
// "http://c:4318/otlp/v1/traces"), unless they already end in it.
func endpointURL(from, v string, base bool) (string, error) {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s %q: want an http(s) URL such as \"http://127.0.0.1:4318\"", from, v)
	}
	if base && !strings.HasSuffix(u.Path, tracesPath) {
		u.Path = strings.TrimRight(u.Path, "/") + tracesPath
	}
	return u.String(), nil
}

// Where says where spans go, for the start log ("" when off).
func (p *Provider) Where() string {
	if p == nil {
		return ""
	}
	return p.endpoint
}

// Shutdown sends the spans still batched and stops the exporter. It
// returns when ctx ends at the latest.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	return p.tp.Shutdown(ctx)
}

// ForceFlush sends the spans still batched (a test's receiver reads them
// at once instead of after the batch's delay).
func (p *Provider) ForceFlush(ctx context.Context) error {
	if p == nil {
		return nil
	}
	return p.tp.ForceFlush(ctx)
}

type providerKey struct{}

// Meta keys of W3C Trace Context in a request's _meta.
const (
	MetaTraceparent = "traceparent"
	MetaTracestate  = "tracestate"
)

// metaCarrier reads the trace context from a request's _meta.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	return []string{MetaTraceparent, MetaTracestate}
}

// Window is a stretch of time a layer measured before the call's span
// existed: the client limits, checked on the HTTP request before the MCP
// message in it was decoded.
type Window struct{ Start, End time.Time }

// StartCall starts the span of one tool call, "tools/call <tool>", as a
// child of the trace context the client sent in meta (the request's
// _meta: traceparent and tracestate), or as a new trace, and returns the
// context every layer below adds its spans to. A non-zero limits window
// (when the client limits checked the request) starts the call's span
// there, with a "client limits" child over it. Off (nil p), it returns
// ctx and a zero Span and reads nothing.
func (p *Provider) StartCall(ctx context.Context, tool string, meta map[string]any, limits Window) (context.Context, Span) {
	if p == nil {
		return ctx, Span{}
	}
	if _, ok := meta[MetaTraceparent]; ok {
		ctx = p.prop.Extract(ctx, metaCarrier(meta))
	}
	ctx = context.WithValue(ctx, providerKey{}, p)
	at := p.now()
	if !limits.Start.IsZero() && !limits.Start.After(at) {
		at = limits.Start
	}
	ctx, s := p.tracer.Start(ctx, "tools/call "+tool, trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(at),
		trace.WithAttributes(attribute.String("mcp.method.name", "tools/call"), attribute.String("gen_ai.tool.name", tool)))
	if at == limits.Start && s.IsRecording() {
		_, l := p.tracer.Start(ctx, "client limits", trace.WithTimestamp(limits.Start))
		l.End(trace.WithTimestamp(limits.End))
	}
	return ctx, Span{s: s, p: p, start: at}
}

// recording is the provider of ctx's call when its span records; nil when
// tracing is off, ctx holds no traced call, or the call is not sampled
// (its children would not be either: nothing is built for them).
func recording(ctx context.Context) *Provider {
	p, _ := ctx.Value(providerKey{}).(*Provider)
	if p == nil || !trace.SpanFromContext(ctx).IsRecording() {
		return nil
	}
	return p
}

// Start opens a child span named name under the span ctx carries, at the
// provider's clock, or at at when it is not zero (a layer that measured
// the start itself). When ctx holds no call started by
// [Provider.StartCall] (tracing off, or a call from no traced edge) it
// returns ctx unchanged and a zero Span: one context lookup, nothing
// allocated.
func Start(ctx context.Context, name string, at time.Time) (context.Context, Span) {
	p := recording(ctx)
	if p == nil {
		return ctx, Span{}
	}
	if at.IsZero() {
		at = p.now()
	}
	ctx, s := p.tracer.Start(ctx, name, trace.WithTimestamp(at))
	return ctx, Span{s: s, p: p, start: at}
}

// StartClient is [Start] for a request to a platform (span kind client).
func StartClient(ctx context.Context, name string) (context.Context, Span) {
	p := recording(ctx)
	if p == nil {
		return ctx, Span{}
	}
	at := p.now()
	ctx, s := p.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithTimestamp(at))
	return ctx, Span{s: s, p: p, start: at}
}

// Phase is the attribute that tells a quota's two waits apart: "queue"
// (the fair scheduler's, once per fetch) and "depart" (the departure
// pacer's, before each request leaves, the pause after a 429 included).
const Phase = "besluitbron.phase"

// RecordWait adds a finished wait span named name under ctx's span, from
// start to end, with its phase and [WaitMS]: for a wait a layer measured
// itself and only knows about once it is over (the departure pacer's).
// Off, it does nothing.
func RecordWait(ctx context.Context, name, phase string, start, end time.Time) {
	p := recording(ctx)
	if p == nil {
		return
	}
	_, s := p.tracer.Start(ctx, name, trace.WithTimestamp(start),
		trace.WithAttributes(attribute.String(Phase, phase), attribute.Int64(WaitMS, end.Sub(start).Milliseconds())))
	s.End(trace.WithTimestamp(end))
}

// Current is the span ctx runs under, for a layer that annotates it with
// what only it knows (the quota's queue); a zero Span when tracing is off
// or ctx holds no traced call.
func Current(ctx context.Context) Span {
	p, _ := ctx.Value(providerKey{}).(*Provider)
	if p == nil {
		return Span{}
	}
	s := trace.SpanFromContext(ctx)
	if !s.IsRecording() {
		return Span{}
	}
	return Span{s: s, p: p}
}

// Span is one span of a call, or nothing (the zero Span: tracing off, or
// a call not sampled). Its methods build attributes only when it
// records, so a caller may call them unconditionally on the hot path.
type Span struct {
	s     trace.Span
	p     *Provider
	start time.Time // when it started, for EndWait's wait_ms
}

// Started is when the span started (zero for the zero Span).
func (s Span) Started() time.Time { return s.start }

// Recording reports whether the span records: a caller checks it before
// work done only for the span (taking a lock to read a queue's length).
func (s Span) Recording() bool { return s.s != nil && s.s.IsRecording() }

// SetString sets a string attribute.
func (s Span) SetString(key, v string) {
	if s.Recording() {
		s.s.SetAttributes(attribute.String(key, v))
	}
}

// SetInt sets an integer attribute.
func (s Span) SetInt(key string, v int64) {
	if s.Recording() {
		s.s.SetAttributes(attribute.Int64(key, v))
	}
}

// SetFloat sets a floating-point attribute.
func (s Span) SetFloat(key string, v float64) {
	if s.Recording() {
		s.s.SetAttributes(attribute.Float64(key, v))
	}
}

// SetBool sets a boolean attribute.
func (s Span) SetBool(key string, v bool) {
	if s.Recording() {
		s.s.SetAttributes(attribute.Bool(key, v))
	}
}

// Fail marks the span failed with msg (an error the call answered, a
// refused fetch).
func (s Span) Fail(msg string) {
	if s.Recording() {
		s.s.SetStatus(codes.Error, msg)
	}
}

// FailErr is [Span.Fail] with err's text; a nil err does nothing.
func (s Span) FailErr(err error) {
	if err != nil && s.Recording() {
		s.s.SetStatus(codes.Error, err.Error())
	}
}

// End ends the span at the provider's clock.
func (s Span) End() {
	if s.s != nil {
		s.s.End(trace.WithTimestamp(s.p.now()))
	}
}

// WaitMS is the attribute a wait's span carries its duration in, whole
// milliseconds as the call's _meta queued_ms counts them.
const WaitMS = "besluitbron.wait_ms"

// EndWait ends a wait's span at the provider's clock, with its duration
// in [WaitMS].
func (s Span) EndWait() {
	if s.s != nil {
		s.EndWaitAt(s.p.now())
	}
}

// EndWaitAt is [Span.EndWait] at t (a layer that measured the end
// itself).
func (s Span) EndWaitAt(t time.Time) {
	if s.s != nil {
		s.SetInt(WaitMS, t.Sub(s.start).Milliseconds())
		s.s.End(trace.WithTimestamp(t))
	}
}

// EndAt ends the span at t (a layer that measured the end itself).
func (s Span) EndAt(t time.Time) {
	if s.s != nil {
		s.s.End(trace.WithTimestamp(t))
	}
}

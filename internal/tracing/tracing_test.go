package tracing

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// TestEndpoint: where spans go, and every bad value named by its key or
// variable.
func TestEndpoint(t *testing.T) {
	for _, c := range []struct {
		configured string
		getenv     func(string) string
		want, err  string
	}{
		{"", env(), "", ""},
		{"http://127.0.0.1:4318", env(), "http://127.0.0.1:4318/v1/traces", ""},
		{"https://otel.example/otlp/", env(EnvEndpoint, "http://other:4318"), "https://otel.example/otlp/v1/traces", ""},
		{"http://c:4318/v1/traces", env(), "http://c:4318/v1/traces", ""},
		{"", env(EnvEndpoint, "http://collector:4318"), "http://collector:4318/v1/traces", ""},
		{"", env(EnvEndpoint, "http://a:4318", EnvTracesEndpoint, "http://b:4318/custom"), "http://b:4318/custom", ""},
		{"collector:4318", env(), "", "tracing.endpoint"},
		{"", env(EnvTracesEndpoint, "ftp://x"), "", EnvTracesEndpoint},
		{"", env(EnvEndpoint, "::"), "", EnvEndpoint},
	} {
		got, err := Endpoint(c.configured, c.getenv)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Endpoint(%q): %q, %v; want an error naming %s", c.configured, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Endpoint(%q): %q, %v; want %q", c.configured, got, err, c.want)
		}
	}
	if _, err := New(Config{SampleRatio: 1.5, Endpoint: "http://c:4318"}); err == nil || !strings.Contains(err.Error(), "tracing.sample_ratio") {
		t.Errorf("sample_ratio 1.5: %v, want an error naming tracing.sample_ratio", err)
	}
}

// TestOffIsNil: no endpoint, no variable, no exporter: no provider, and
// every helper passes the context through untouched, allocating nothing.
func TestOffIsNil(t *testing.T) {
	p, err := New(Config{SampleRatio: 1, Getenv: env(EnvServiceName, "x")})
	if err != nil || p != nil {
		t.Fatalf("New with no endpoint: %v, %v; want nil, nil", p, err)
	}
	ctx := context.Background()
	meta := map[string]any{MetaTraceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	allocs := testing.AllocsPerRun(100, func() {
		c, call := p.StartCall(ctx, "obv_search", meta, Window{})
		c2, s := Start(c, "admission wait", time.Time{})
		s.SetString("k", "v")
		s.SetFloat("w", 0.5)
		s.EndWait()
		c3, h := StartClient(c2, "GET")
		h.SetInt("http.response.status_code", 200)
		h.End()
		RecordWait(c3, "quota wait", "depart", time.Time{}, time.Time{})
		Current(c3).SetBool("b", true)
		call.End()
		if c3 != ctx {
			t.Fatal("tracing off changed the context")
		}
	})
	if allocs != 0 {
		t.Errorf("tracing off allocates %v times per call path, want 0", allocs)
	}
}

func testProvider(t *testing.T, ratio float64) (*Provider, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	clock := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	p, err := New(Config{SampleRatio: ratio, Exporter: exp, Version: "v0.1.0", Getenv: env(EnvServiceName, "from-env"),
		Now: func() time.Time { clock = clock.Add(time.Millisecond); return clock }})
	if err != nil || p == nil {
		t.Fatal(p, err)
	}
	t.Cleanup(func() { p.Shutdown(context.Background()) })
	return p, exp
}

// TestCallUnderClientTrace: the client's traceparent and tracestate in
// _meta make the call's span a child of the client's span; children
// nest under it; the service is named by OTEL_SERVICE_NAME when the
// config names none.
func TestCallUnderClientTrace(t *testing.T) {
	p, exp := testProvider(t, 1)
	ctx, call := p.StartCall(context.Background(), "obv_search", map[string]any{
		MetaTraceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", MetaTracestate: "client=1"}, Window{})
	cctx, wait := Start(ctx, "quota wait", time.Time{})
	start := wait.Started()
	RecordWait(cctx, "quota wait", "depart", start, start.Add(time.Second))
	wait.EndWaitAt(start.Add(1500 * time.Millisecond))
	RecordWait(cctx, "quota wait", "late", start, start.Add(time.Second)) // under an ended span: dropped
	call.End()
	p.ForceFlush(context.Background())
	spans := exp.GetSpans()
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 3", len(spans))
	}
	byName := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		key := s.Name
		for _, a := range s.Attributes {
			if a.Key == Phase {
				key += " " + a.Value.AsString()
			}
		}
		byName[key] = s
	}
	root := byName["tools/call obv_search"]
	if got := root.SpanContext.TraceID().String(); got != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("trace id %s, want the client's", got)
	}
	if got := root.Parent.SpanID().String(); got != "00f067aa0ba902b7" || !root.Parent.IsRemote() {
		t.Errorf("parent %s (remote %v), want the client's span", got, root.Parent.IsRemote())
	}
	if got := root.SpanContext.TraceState().Get("client"); got != "1" {
		t.Errorf("tracestate client=%q, want 1", got)
	}
	w := byName["quota wait"]
	if w.Parent.SpanID() != root.SpanContext.SpanID() || w.EndTime.Sub(w.StartTime) != 1500*time.Millisecond {
		t.Errorf("quota wait: parent %s, %v; want under the call, 1.5s", w.Parent.SpanID(), w.EndTime.Sub(w.StartTime))
	}
	d := byName["quota wait depart"]
	if d.Parent.SpanID() != w.SpanContext.SpanID() || d.EndTime.Sub(d.StartTime) != time.Second {
		t.Errorf("depart wait: parent %s, %v; want under the queue's wait, 1s", d.Parent.SpanID(), d.EndTime.Sub(d.StartTime))
	}
	for _, a := range root.Resource.Attributes() {
		if a.Key == "service.name" && a.Value.AsString() != "from-env" {
			t.Errorf("service.name %q, want OTEL_SERVICE_NAME's", a.Value.AsString())
		}
	}
}

// TestUnsampledClientTraceRecordsNothing: a client's traceparent with
// the sampled flag off is followed: nothing is recorded or exported, and
// the helpers see a span that does not record.
func TestUnsampledClientTraceRecordsNothing(t *testing.T) {
	p, exp := testProvider(t, 1)
	ctx, call := p.StartCall(context.Background(), "t", map[string]any{MetaTraceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"}, Window{})
	_, s := Start(ctx, "connector run", time.Time{})
	if s.Recording() || call.Recording() || Current(ctx).Recording() {
		t.Error("an unsampled trace records")
	}
	s.End()
	call.End()
	p.ForceFlush(context.Background())
	if n := len(exp.GetSpans()); n != 0 {
		t.Errorf("%d spans exported of an unsampled trace", n)
	}
}

// TestLogHandler: a record logged with a traced call's context carries
// its trace_id and span_id; one without a span carries neither.
func TestLogHandler(t *testing.T) {
	p, _ := testProvider(t, 1)
	var buf bytes.Buffer
	log := slog.New(LogHandler(slog.NewTextHandler(&buf, nil))).With("app", "bb")
	ctx, call := p.StartCall(context.Background(), "t", nil, Window{})
	log.InfoContext(ctx, "tool call")
	log.InfoContext(context.Background(), "other")
	call.End()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	sc := call.s.SpanContext()
	if !strings.Contains(lines[0], "trace_id="+sc.TraceID().String()) || !strings.Contains(lines[0], "span_id="+sc.SpanID().String()) || !strings.Contains(lines[0], "app=bb") {
		t.Errorf("the traced line: %s", lines[0])
	}
	if strings.Contains(lines[1], "trace_id") {
		t.Errorf("a line without a span has a trace id: %s", lines[1])
	}
}

// BenchmarkStartOff is the cost of a layer's span when tracing is off.
func BenchmarkStartOff(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, s := Start(ctx, "cache lookup", time.Time{})
		s.SetString("besluitbron.cache", "hit")
		s.End()
	}
}

// BenchmarkStartOn is the same with a recording call span and a
// discarding exporter.
func BenchmarkStartOn(b *testing.B) {
	p, err := New(Config{SampleRatio: 1, Exporter: discard{}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	ctx, call := p.StartCall(context.Background(), "t", nil, Window{})
	defer call.End()
	b.ReportAllocs()
	for b.Loop() {
		_, s := Start(ctx, "cache lookup", time.Time{})
		s.SetString("besluitbron.cache", "hit")
		s.End()
	}
}

type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

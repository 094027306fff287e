package host_test

// Traces of tool calls (issue 31, "Traces"), through the whole host: MCP
// sessions of the go-sdk client over HTTP, the real WebAssembly
// OpenBesluitvorming connector, its fair scheduler and cache on a fake
// clock (seed_virtual_test.go's vPlatform), and an OTLP/HTTP receiver in
// the test that decodes what the host's exporter sends. The spans are
// stamped with the host's clock, so the wait span's duration is the
// virtual wait, exactly, on any machine.

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/syncbuf"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// gotSpan is one span as the receiver decoded it.
type gotSpan struct {
	trace, id, parent string // hex
	name              string
	start, end        time.Time
	attrs             map[string]any
	service           string // its resource's service.name
}

func (s gotSpan) dur() time.Duration { return s.end.Sub(s.start) }

// otlpReceiver is a collector's OTLP/HTTP traces endpoint: it decodes
// every ExportTraceServiceRequest and keeps the spans.
type otlpReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	spans    []gotSpan
	requests int
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	rx := &otlpReceiver{}
	rx.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(b, &req)
		}
		if err != nil || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("the receiver got %s %s (%s): %v", r.Method, r.URL.Path, r.Header.Get("Content-Type"), err)
			http.Error(w, "bad export", http.StatusBadRequest)
			return
		}
		rx.mu.Lock()
		rx.requests++
		for _, rs := range req.ResourceSpans {
			service := ""
			for _, a := range rs.GetResource().GetAttributes() {
				if a.Key == "service.name" {
					service = a.Value.GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					g := gotSpan{trace: fmt.Sprintf("%x", s.TraceId), id: fmt.Sprintf("%x", s.SpanId), parent: fmt.Sprintf("%x", s.ParentSpanId),
						name: s.Name, start: time.Unix(0, int64(s.StartTimeUnixNano)), end: time.Unix(0, int64(s.EndTimeUnixNano)),
						attrs: map[string]any{}, service: service}
					for _, a := range s.Attributes {
						g.attrs[a.Key] = value(a.Value)
					}
					rx.spans = append(rx.spans, g)
				}
			}
		}
		rx.mu.Unlock()
		b, _ = proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(b)
	}))
	t.Cleanup(rx.Close)
	return rx
}

func value(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	}
	return v.String()
}

// got returns the spans received so far and how many exports brought them.
func (rx *otlpReceiver) got() ([]gotSpan, int) {
	rx.mu.Lock()
	defer rx.mu.Unlock()
	return append([]gotSpan(nil), rx.spans...), rx.requests
}

// startTraced is startVirtual (OBV's own limit, 60 units a minute) with
// the client limits on (bursts no test here reaches, so that they check
// every request and refuse none) and the sections of extraTOML (tracing
// off without one), the host's log kept in logs.
func startTraced(t *testing.T, extraTOML string, logs io.Writer) *vHost {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a host with the WebAssembly connector")
	}
	clk := schedtest.NewClock(seedEpoch)
	plat := newVPlatform(t, clk, 60, time.Minute)
	up := httptest.NewServer(plat)
	t.Cleanup(up.Close)
	cfgPath := writeConfig(t, fmt.Sprintf(`
[runtime]
compilation_cache_dir = %q
[cache]
dir = %q
[status]
enabled = false
[server]
stream_poll_after = "0s"
[mcp_rate_limit]
enabled = true
process_burst = 100000
session_burst = 10000
ip_burst = 10000
%s
[connectors.obv]
module = %q
base_url = %q
private_networks = ["127.0.0.0/8"]
pool_size = 2
`, proofCompileDir(t), t.TempDir(), extraTOML, wasmbuild.Path(t, "./plugins/obv/cmd"), up.URL))
	v := &vHost{t: t, cfgPath: cfgPath, clk: clk, plat: plat, unit: time.Second}
	c, err := host.LoadConfig(cfgPath, []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: c, Version: "trace", Clock: clk,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(func() {
		srv.Close()
		h.Close(context.Background())
	})
	v.h, v.base = h, srv.URL
	v.ctx, v.cancel = context.WithCancel(context.Background())
	return v
}

// The client's trace context: W3C traceparent, sampled.
const (
	clientTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientParent = "00f067aa0ba902b7"
	traceparent  = "00-" + clientTrace + "-" + clientParent + "-01"
)

// waitedCall makes a search with the client's traceparent in its _meta
// while the bucket is empty, and drives the fake clock a unit's refill at
// a time until it is answered: it waits at the platform's limit.
func waitedCall(t *testing.T, v *vHost, s *vSession, query string) *mcp.CallToolResult {
	t.Helper()
	c := &vCall{done: make(chan struct{}), query: query}
	go func() {
		defer close(c.done)
		c.res, c.err = s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search",
			Arguments: map[string]any{"query": query, "limit": 24},
			Meta:      mcp.Meta{"traceparent": traceparent, "tracestate": "client=1"}})
	}()
	v.waitUntil(query+" queued", func() bool { return c.finished() || v.stats().Queued > 0 })
	if c.finished() {
		t.Fatalf("%s was answered at once (%v): the bucket had room", query, c.err)
	}
	for !c.finished() {
		v.clk.Advance(v.unit)
		v.waitUntil("the call answered or queued again", func() bool { return c.finished() || v.stats().Queued > 0 })
	}
	if c.err != nil || c.res.IsError {
		t.Fatalf("%s: %v %s", query, c.err, text(c.res))
	}
	return c.res
}

// TestTraceOfACallThatWaited: a search that waited at OBV's limit,
// exported to the receiver, is one trace under the client's traceparent:
// the tool call's span is the child of the client's span, and the
// admission wait, the connector run, the cache lookup (a miss), the quota
// wait and the platform's request are its descendants, and the client
// limits' check of the request its first child. The quota wait
// spans last, together, what _meta queued_ms reports (within its
// rounding to whole milliseconds), more than nothing; the request span
// names its method, host and status; the call's log line carries the
// trace id.
func TestTraceOfACallThatWaited(t *testing.T) {
	rx := newOTLPReceiver(t)
	var logs syncbuf.Buffer
	v := startTraced(t, fmt.Sprintf("[tracing]\nendpoint = %q\nservice_name = \"bb-test\"", rx.URL), &logs)
	if !host.TracingOn(v.h) {
		t.Fatal("[tracing] endpoint set, and the host started no tracer")
	}
	s, z := v.session("a"), v.session("z")
	v.drain(z)
	res := waitedCall(t, v, s, "traced-1")
	queued := queuedMS(res)
	if queued <= 0 {
		t.Fatalf("the traced call reports queued_ms %v: it did not wait", queued)
	}
	if err := host.FlushTraces(v.h); err != nil {
		t.Fatal(err)
	}
	all, _ := rx.got()
	var spans []gotSpan
	byID := map[string]gotSpan{}
	for _, sp := range all {
		if sp.trace == clientTrace {
			spans = append(spans, sp)
			byID[sp.id] = sp
		}
	}
	var root gotSpan
	for _, sp := range spans {
		if sp.name == "tools/call obv_search" {
			root = sp
		}
	}
	if root.id == "" {
		t.Fatalf("no span \"tools/call obv_search\" in the client's trace %s; received %d spans: %v", clientTrace, len(all), names(all))
	}
	if root.parent != clientParent {
		t.Errorf("the tool call's parent is %q, want the client's span %s from _meta.traceparent", root.parent, clientParent)
	}
	if root.service != "bb-test" {
		t.Errorf("service.name %q, want tracing.service_name's \"bb-test\"", root.service)
	}
	if root.attrs["besluitbron.cache"] != "miss" || root.attrs["besluitbron.queued_ms"] != int64(queued) {
		t.Errorf("the tool call's span says cache %v, queued_ms %v; its _meta says miss, %v", root.attrs["besluitbron.cache"], root.attrs["besluitbron.queued_ms"], queued)
	}
	under := func(sp gotSpan) bool { // a descendant of the tool call's span
		for p := sp.parent; p != ""; p = byID[p].parent {
			if p == root.id {
				return true
			}
		}
		return false
	}
	count := map[string]int{}
	var waited time.Duration
	var waitMS int64
	for _, sp := range spans {
		if sp.id == root.id {
			continue
		}
		if !under(sp) {
			t.Errorf("span %q is in the client's trace but not under the tool call's span", sp.name)
			continue
		}
		count[sp.name]++
		switch sp.name {
		case "quota wait":
			waited += sp.dur()
			waitMS += sp.attrs["besluitbron.wait_ms"].(int64)
			if sp.attrs["besluitbron.phase"] == "queue" {
				if w, ok := sp.attrs["besluitbron.session.weight"].(float64); !ok || w <= 0 || w > 1 {
					t.Errorf("the queue's wait span has weight %v, want one in (0, 1]", sp.attrs["besluitbron.session.weight"])
				}
				if _, ok := sp.attrs["besluitbron.queue.length"]; !ok {
					t.Errorf("the queue's wait span lacks the queue's length: %v", sp.attrs)
				}
			}
		case "GET":
			if sp.attrs["http.response.status_code"] != int64(200) || sp.attrs["server.address"] != "127.0.0.1" || sp.attrs["http.request.method"] != "GET" {
				t.Errorf("the platform request's span: %v; want GET to 127.0.0.1 answered 200", sp.attrs)
			}
		case "cache lookup":
			if sp.attrs["besluitbron.cache"] != "miss" {
				t.Errorf("the cache lookup says %v, want miss", sp.attrs["besluitbron.cache"])
			}
		}
	}
	for _, want := range []string{"client limits", "admission wait", "connector run", "cache lookup", "quota wait", "GET"} {
		if count[want] == 0 {
			t.Errorf("no span %q under the tool call; under it: %v", want, count)
		}
	}
	// queued_ms is the sum of the waits in whole milliseconds.
	if got := waited.Milliseconds(); waited <= 0 || got < int64(queued)-1 || got > int64(queued)+1 {
		t.Errorf("the quota wait spans last %v together; _meta queued_ms is %v", waited, queued)
	}
	if waitMS < int64(queued)-1 || waitMS > int64(queued)+1 {
		t.Errorf("the quota wait spans' wait_ms add up to %d; _meta queued_ms is %v", waitMS, queued)
	}
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `msg="tool call"`) && strings.Contains(l, "outcome=ok") && strings.Contains(l, "trace_id="+clientTrace) {
			line = l
		}
	}
	if line == "" || !strings.Contains(line, "span_id="+root.id) {
		t.Errorf("no tool call log line with trace_id=%s and span_id=%s; log:\n%s", clientTrace, root.id, logs.String())
	}
	t.Logf("queued_ms %v; quota wait spans %v (wait_ms %d); spans under the call: %v", queued, waited, waitMS, count)
}

func names(spans []gotSpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.name)
	}
	return out
}

// TestTracingOffSendsNothing: with no [tracing] endpoint and no OTEL_*
// endpoint variable the host starts no tracer and no exporter: a call
// that waited, with a client's traceparent, and its cached repeat are
// answered as ever, and their log lines carry no trace id.
func TestTracingOffSendsNothing(t *testing.T) {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		t.Setenv(v, "")
	}
	var logs syncbuf.Buffer
	v := startTraced(t, "", &logs)
	if host.TracingOn(v.h) {
		t.Fatal("tracing started with no endpoint configured")
	}
	s, z := v.session("a"), v.session("z")
	v.drain(z)
	waitedCall(t, v, s, "untraced-1")
	res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search",
		Arguments: map[string]any{"query": "untraced-1", "limit": 24}, Meta: mcp.Meta{"traceparent": traceparent}})
	if err != nil || res.IsError || res.Meta["besluitbron/cache"] != "hit" {
		t.Fatalf("the repeat: %v %s, cache %v; want a hit", err, text(res), res.Meta["besluitbron/cache"])
	}
	if err := host.FlushTraces(v.h); err != nil {
		t.Fatal(err)
	}
	if l := logs.String(); !strings.Contains(l, `msg="tool call"`) || strings.Contains(l, "trace_id=") || strings.Contains(l, "tracing on") {
		t.Errorf("tracing off, the log has trace ids or says tracing is on (or logs no call):\n%s", l)
	}
}

// TestTraceOfAPageSearch: a call no MCP client made (the search page's
// results, for a reader of the page) is traced as well: a trace of its
// own whose root is the tool call, saying whom it ran for (the pages'
// shared public session), with the
// connector run and the platform's request under it. Without it an admin
// who traces the server sees the MCP calls and not the pages' load on
// the same platform.
func TestTraceOfAPageSearch(t *testing.T) {
	rx := newOTLPReceiver(t)
	var logs syncbuf.Buffer
	v := startTraced(t, fmt.Sprintf("[tracing]\nendpoint = %q", rx.URL), &logs)
	resp, err := http.Get(v.base + "/resultaten?p=obv&q=paged-1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the results page: %d %s", resp.StatusCode, body)
	}
	if err := host.FlushTraces(v.h); err != nil {
		t.Fatal(err)
	}
	all, _ := rx.got()
	var root gotSpan
	for _, sp := range all {
		if sp.name == "tools/call obv_search" && sp.parent == "" {
			root = sp
		}
	}
	if root.id == "" {
		t.Fatalf("no root span \"tools/call obv_search\" for the page's search; spans: %v", names(all))
	}
	if c, _ := root.attrs["besluitbron.caller"].(string); c != "public" {
		t.Errorf("the page's call says it ran for %q; want \"public\" (the pages' shared session)", c)
	}
	under := map[string]bool{}
	for _, sp := range all {
		if sp.trace == root.trace && sp.id != root.id {
			under[sp.name] = true
		}
	}
	for _, want := range []string{"connector run", "GET"} {
		if !under[want] {
			t.Errorf("no span %q in the page search's trace; in it: %v", want, under)
		}
	}
}

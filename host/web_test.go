package host

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/besluitbron/besluitbron/sched"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	r, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, string(b)
}

func (th *testHost) scheduler(t *testing.T, id string) *sched.Scheduler {
	t.Helper()
	for _, p := range th.h.platforms {
		if p.ID == id && len(p.Limiters) > 0 {
			return p.Limiters[0].Scheduler()
		}
	}
	t.Fatalf("no limited platform %q", id)
	return nil
}

// TestPageAndMaintenanceShareOneUncountedSession checks the seed's rule:
// the search page and the maintenance (Laadstatus) count as one session at
// the fair scheduler, and its usage is not counted. An MCP client next to
// them is a session of its own whose usage is counted, so the test would
// fail if the page or the job used a session of their own.
func TestPageAndMaintenanceShareOneUncountedSession(t *testing.T) {
	th := startTestHost(t, "")
	s := th.scheduler(t, "obv")
	if st := s.Stats(); st.Calls != 0 || st.Sessions != 0 {
		t.Fatalf("before any call: %+v", st)
	}
	// The page: one search and the list of sources for the filter.
	if code, body := get(t, th.url+"/?q=begroting&p=obv"); code != 200 || !strings.Contains(body, "Raadsvoorstel begroting 2024") {
		t.Fatalf("search page: %d %s", code, body)
	}
	// The document view.
	if code, body := get(t, th.url+"/document?p=obv&id=document:notubiz:gemeente:soest:12345"); code != 200 || !strings.Contains(body, "Raadsvoorstel begroting 2024") {
		t.Fatalf("document view: %d %s", code, body)
	}
	// The maintenance: a reachability probe and the status.
	th.h.lstatus.CheckAll(context.Background())
	st := s.Stats()
	if st.Calls != 5 || st.Units != 5 {
		t.Errorf("granted %d calls, %v units; want 5 and 5 (search, sources, document, probe, status)", st.Calls, st.Units)
	}
	if st.Sessions != 1 {
		t.Errorf("%d sessions at the scheduler, want 1: the page and the maintenance share the public session", st.Sessions)
	}
	if u := s.UsageAt(time.Now(), sched.PublicSession); u != 0 {
		t.Errorf("public session charged %v units, want 0", u)
	}
	// An assistant's session is counted.
	cs := mcpSession(t, th.url)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": "motie"}})
	if err != nil || res.IsError {
		t.Fatalf("MCP search: %v %s", err, resultText(res))
	}
	st = s.Stats()
	if st.Sessions != 2 || st.Calls != 6 {
		t.Errorf("after an MCP call: %d sessions, %d calls; want 2 and 6", st.Sessions, st.Calls)
	}
	if u := s.UsageAt(time.Now(), cs.ID()); u != 1 {
		t.Errorf("the MCP session is charged %v units, want 1", u)
	}
	if rs := th.scheduler(t, "rechtspraak").Stats(); rs.Sessions != 1 || rs.Calls == 0 {
		t.Errorf("rechtspraak: %+v; want the probe and the court list in the one public session", rs)
	}
}

// metrics reads /metrics as Prometheus text.
func metrics(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	r, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(r.Body)
	if err != nil {
		t.Fatalf("/metrics is not Prometheus text: %v", err)
	}
	return mfs
}

// value returns the value of the series of family name whose labels
// include want ("k=v" pairs), or -1 when there is none.
func value(mfs map[string]*dto.MetricFamily, name string, want ...string) float64 {
	mf := mfs[name]
	if mf == nil {
		return -1
	}
outer:
	for _, m := range mf.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for _, kv := range want {
			k, v, _ := strings.Cut(kv, "=")
			if have[k] != v {
				continue outer
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	return -1
}

func TestMetricsMoveWithCalls(t *testing.T) {
	th := startTestHost(t, "")
	before := metrics(t, th.url)
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "besluitbron_sched_granted_calls_total", "besluitbron_sched_tokens", "besluitbron_platform_state"} {
		if before[name] == nil {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	if v := value(before, "besluitbron_platform_state", "platform=obv", "state=unknown"); v != 1 {
		t.Errorf("obv state unknown before any check = %v", v)
	}
	cs := mcpSession(t, th.url)
	for range 2 {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": "begroting"}}); err != nil {
			t.Fatal(err)
		}
	}
	cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"limit": 5000, "query": "x"}})
	get(t, th.url+"/?q=begroting&p=obv")
	th.obv.down.Store(true)
	th.h.lstatus.CheckAll(context.Background())
	after := metrics(t, th.url)
	checks := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"besluitbron_tool_calls_total", []string{"tool=obv_search", "outcome=ok", "cache=miss"}, 2}, // the first MCP call and the page (10 results, another key)
		{"besluitbron_tool_calls_total", []string{"tool=obv_search", "outcome=ok", "cache=hit"}, 1},  // the repeat
		{"besluitbron_tool_calls_total", []string{"tool=obv_search", "outcome=invalid_arguments"}, 1},
		{"besluitbron_tool_call_seconds", []string{"tool=obv_search"}, 4},
		{"besluitbron_sched_granted_calls_total", []string{"platform=obv", "service=api"}, 4}, // two searches, the page's sources, the probe
		{"besluitbron_platform_state", []string{"platform=obv", "state=down"}, 1},
		{"besluitbron_platform_state", []string{"platform=rechtspraak", "state=up"}, 1},
		{"besluitbron_platform_consecutive_failures", []string{"platform=obv"}, 1},
		{"besluitbron_web_requests_total", []string{"page=search", "code=200"}, 1},
		{"besluitbron_cache_hits_total", []string{"platform=obv", "class=search"}, 1},
	}
	for _, c := range checks {
		if got := value(after, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if a, b := value(after, "besluitbron_sched_granted_units_total", "platform=obv"), value(before, "besluitbron_sched_granted_units_total", "platform=obv"); a <= b {
		t.Errorf("granted units did not move: %v → %v", b, a)
	}
}

func TestHealthAndStatusEndpoints(t *testing.T) {
	th := startTestHost(t, "")
	for _, c := range []struct{ path, want string }{
		{"/healthz", "ok"}, {"/readyz", "ready"},
		{"/status.json", `"state": "unknown"`},
		{"/status", "nog niet gecontroleerd"},
		{"/static/style.css", "--accent"},
	} {
		if code, body := get(t, th.url+c.path); code != 200 || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %q", c.path, code, clip(body, 300))
		}
	}
	th.h.lstatus.CheckAll(context.Background())
	if _, body := get(t, th.url+"/status.json"); !strings.Contains(body, `"platform": "obv"`) || !strings.Contains(body, `"state": "up"`) || !strings.Contains(body, `"key": "houten"`) {
		t.Errorf("/status.json after a round: %s", clip(body, 2000))
	}
	if _, body := get(t, th.url+"/status?org=Houten"); !strings.Contains(body, "import mislukt") || !strings.Contains(body, "Houten") {
		t.Errorf("/status?org=Houten: %s", clip(body, 3000))
	}
}

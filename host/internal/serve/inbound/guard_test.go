package inbound

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
)

// fakeMCP behaves like the go-sdk streamable handler as far as sessions
// go: a POST without a session creates one (and streams its answer), a
// known session is served, an unknown one gets 404, DELETE ends it.
//
// Like the go-sdk's HTTP+SSE handler, a POST with ?sessionid= is accepted
// (202) for a session in legacy and 404 otherwise. It keeps the last
// body it read.
type fakeMCP struct {
	mu       sync.Mutex
	sessions map[string]bool
	legacy   map[string]bool
	n        int
	served   atomic.Int64
	body     string
}

func (f *fakeMCP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.served.Add(1)
	id := r.Header.Get(SessionHeader)
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.body = string(b)
	if q := r.URL.Query().Get("sessionid"); q != "" && id == "" && r.Method == http.MethodPost {
		if !f.legacy[q] {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	switch {
	case id == "" && r.Method == http.MethodPost:
		f.n++
		id = fmt.Sprintf("session-%d", f.n)
		f.sessions[id] = true
		w.Header().Set(SessionHeader, id)
		w.Header().Set("Content-Type", "text/event-stream")
		// Headers go out with a flush, as the SDK sends them.
		if err := http.NewResponseController(w).Flush(); err != nil {
			panic(err)
		}
		io.WriteString(w, "data: {}\n\n")
	case !f.sessions[id]:
		http.Error(w, "session not found", http.StatusNotFound)
	case r.Method == http.MethodDelete:
		delete(f.sessions, id)
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set(SessionHeader, id)
		io.WriteString(w, "{}")
	}
}

type fakeNow struct{ ns atomic.Int64 }

func (c *fakeNow) now() time.Time          { return t0.Add(time.Duration(c.ns.Load())) }
func (c *fakeNow) advance(d time.Duration) { c.ns.Add(int64(d)) }
func newFakeNow() *fakeNow                 { return &fakeNow{} }
func send(t *testing.T, req *http.Request) *http.Response {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

func startGuard(t *testing.T, o Options, origins []string) (*httptest.Server, *Guard, *fakeMCP, *fakeNow) {
	t.Helper()
	l := mustNew(t, o)
	orig, err := NewOrigins(origins)
	if err != nil {
		t.Fatal(err)
	}
	clk := newFakeNow()
	inner := &fakeMCP{sessions: map[string]bool{}, legacy: map[string]bool{}}
	g := NewGuard(inner, GuardOptions{Limits: l, Origins: orig, Now: clk.now, Route: testRoute})
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return srv, g, inner, clk
}

func post(t *testing.T, url, session string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if session != "" {
		req.Header.Set(SessionHeader, session)
	}
	return send(t, req)
}

var generous = Limit{RPS: 1000, Burst: 1000}

func TestGuard429(t *testing.T) {
	srv, _, inner, clk := startGuard(t, Options{Process: generous, Connector: generous, Session: Limit{RPS: 0.5, Burst: 3}, IP: Limit{RPS: 1, Burst: 5}}, nil)
	sid := post(t, srv.URL, "").Header.Get(SessionHeader)
	if sid == "" {
		t.Fatal("no session issued")
	}
	// The session's own bucket (burst 3) applies, not the IP's.
	for i := range 3 {
		if res := post(t, srv.URL, sid); res.StatusCode != 200 {
			t.Fatalf("request %d: %s", i, res.Status)
		}
	}
	res := post(t, srv.URL, sid)
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("4th: %s, want 429", res.Status)
	}
	if got := res.Header.Get("Retry-After"); got != "2" {
		t.Errorf("Retry-After %q, want 2 (one token at 0.5/s)", got)
	}
	var body struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int            `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"limit": "session", "retryAfterSeconds": 2.0, "rps": 0.5, "burst": 3.0}
	if diff := cmp.Diff(want, body.Error.Data); diff != "" || body.JSONRPC != "2.0" || body.ID != nil || body.Error.Code != CodeRateLimited {
		t.Errorf("body %+v %s", body, diff)
	}
	if !strings.Contains(body.Error.Message, "the session limit (0.5 requests per second, burst 3)") {
		t.Errorf("message %q", body.Error.Message)
	}
	if res.Header.Get("Content-Type") != "application/json" {
		t.Errorf("Content-Type %q", res.Header.Get("Content-Type"))
	}
	if n := inner.served.Load(); n != 4 {
		t.Errorf("inner handler served %d, want 4: a refused request must not reach it", n)
	}
	// One second is not enough; Retry-After is.
	clk.advance(time.Second)
	if res := post(t, srv.URL, sid); res.StatusCode != 429 || res.Header.Get("Retry-After") != "1" {
		t.Errorf("after 1 s: %s Retry-After %q", res.Status, res.Header.Get("Retry-After"))
	}
	clk.advance(time.Second)
	if res := post(t, srv.URL, sid); res.StatusCode != 200 {
		t.Errorf("after Retry-After: %s", res.Status)
	}
}

func TestGuardSessionIds(t *testing.T) {
	srv, g, _, _ := startGuard(t, Options{Process: generous, Connector: generous, Session: Limit{RPS: 1, Burst: 10}, IP: Limit{RPS: 1, Burst: 3}}, nil)
	sid := post(t, srv.URL, "").Header.Get(SessionHeader) // IP token 1
	if st := g.Limits().Stats(); st.Sessions != 1 {
		t.Fatalf("session not learned: %+v", st)
	}
	// Invented ids are the IP's: two tokens left, then 429 naming "ip".
	for i := range 2 {
		if res := post(t, srv.URL, fmt.Sprintf("invented-%d", i)); res.StatusCode != http.StatusNotFound {
			t.Fatalf("invented id %d: %s", i, res.Status)
		}
	}
	res := post(t, srv.URL, "invented-x")
	if res.StatusCode != 429 {
		t.Fatalf("invented id after the IP burst: %s", res.Status)
	}
	var body struct {
		Error struct{ Data struct{ Limit string } }
	}
	json.NewDecoder(res.Body).Decode(&body)
	if body.Error.Data.Limit != "ip" {
		t.Errorf("limit %q, want ip", body.Error.Data.Limit)
	}
	// The real session still has its own room.
	if res := post(t, srv.URL, sid); res.StatusCode != 200 {
		t.Fatalf("real session: %s", res.Status)
	}
	if st := g.Limits().Stats(); st.Sessions != 1 {
		t.Errorf("sessions %d after invented ids, want 1", st.Sessions)
	}
	// DELETE ends it; from then on its id is as good as invented.
	req, _ := http.NewRequest(http.MethodDelete, srv.URL, nil)
	req.Header.Set(SessionHeader, sid)
	if res := send(t, req); res.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %s", res.Status)
	}
	if st := g.Limits().Stats(); st.Sessions != 0 {
		t.Errorf("sessions %d after DELETE", st.Sessions)
	}
}

// A session the server forgot (404) is forgotten by the limits too.
func TestGuardForgets404Session(t *testing.T) {
	srv, g, inner, _ := startGuard(t, Options{Process: generous, Connector: generous, Session: generous, IP: generous}, nil)
	sid := post(t, srv.URL, "").Header.Get(SessionHeader)
	inner.mu.Lock()
	delete(inner.sessions, sid) // the server timed it out
	inner.mu.Unlock()
	if res := post(t, srv.URL, sid); res.StatusCode != 404 {
		t.Fatal(res.Status)
	}
	if st := g.Limits().Stats(); st.Sessions != 0 {
		t.Errorf("sessions %d", st.Sessions)
	}
}

func TestGuardOrigin(t *testing.T) {
	srv, g, inner, _ := startGuard(t, Options{Process: generous, Connector: generous, Session: generous, IP: generous}, []string{"https://chat.example.org"})
	for origin, want := range map[string]int{"": 200, "https://chat.example.org": 200, "https://evil.example": 403, "null": 403} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		res := send(t, req)
		if res.StatusCode != want {
			t.Errorf("Origin %q: %s, want %d", origin, res.Status, want)
		}
		if want == 403 {
			b, _ := io.ReadAll(res.Body)
			if !strings.Contains(string(b), "server.allowed_origins") || !strings.Contains(string(b), fmt.Sprint(CodeForbiddenOrigin)) {
				t.Errorf("403 body %s", b)
			}
		}
	}
	if g.OriginRefused() != 2 || inner.served.Load() != 2 {
		t.Errorf("origin refusals %d, served %d", g.OriginRefused(), inner.served.Load())
	}
}

func TestGuardWithoutLimiter(t *testing.T) {
	inner := &fakeMCP{sessions: map[string]bool{}, legacy: map[string]bool{}}
	var seen string
	g := NewGuard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, _ := ClientIPFromContext(r.Context())
		seen = a.String()
		inner.ServeHTTP(w, r)
	}), GuardOptions{})
	srv := httptest.NewServer(g)
	defer srv.Close()
	for range 100 {
		if res := post(t, srv.URL, ""); res.StatusCode != 200 {
			t.Fatal(res.Status)
		}
	}
	if seen != "127.0.0.1" {
		t.Errorf("client IP in context %q", seen)
	}
}

func TestCollector(t *testing.T) {
	srv, g, _, _ := startGuard(t, Options{Process: generous, Connector: generous, Session: generous, IP: Limit{RPS: 1, Burst: 1}}, nil)
	post(t, srv.URL, "")
	post(t, srv.URL, "")
	req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
	req.Header.Set("Origin", "https://evil.example")
	send(t, req)
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(g))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			name := mf.GetName()
			for _, lp := range m.GetLabel() {
				name += "{" + lp.GetName() + "=" + lp.GetValue() + "}"
			}
			got[name] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	want := map[string]float64{
		"besluitbron_mcp_origin_refused_total":                                1,
		"besluitbron_mcp_rate_limited_total{layer=process}":                   0,
		"besluitbron_mcp_rate_limited_total{layer=connector}":                 0,
		"besluitbron_mcp_rate_limited_connector_total{connector=besluitbron}": 0,
		"besluitbron_mcp_rate_limited_total{layer=session}":                   0,
		"besluitbron_mcp_rate_limited_total{layer=ip}":                        1,
		"besluitbron_mcp_rate_limited_total{layer=client}":                    0,
		"besluitbron_mcp_rate_limit_buckets{kind=client}":                     0,
		"besluitbron_mcp_rate_limit_buckets_peak{kind=client}":                0,
		"besluitbron_mcp_rate_limit_buckets{kind=named}":                      0,
		"besluitbron_mcp_rate_limit_buckets_peak{kind=named}":                 0,
		"besluitbron_mcp_rate_limit_buckets{kind=session}":                    1,
		"besluitbron_mcp_rate_limit_buckets{kind=ip}":                         1,
		"besluitbron_mcp_rate_limit_buckets_peak{kind=session}":               1,
		"besluitbron_mcp_rate_limit_buckets_peak{kind=ip}":                    1,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

// An allowed browser origin gets CORS: its preflight is answered, and
// every answer, a 429 included, lets the page read the session id and
// Retry-After.
func TestGuardCORS(t *testing.T) {
	srv, _, inner, _ := startGuard(t, Options{Process: generous, Connector: generous, Session: generous, IP: Limit{RPS: 1, Burst: 3}}, []string{"https://chat.example.org"})
	do := func(method, origin string) *http.Response {
		req, _ := http.NewRequest(method, srv.URL, strings.NewReader("{}"))
		req.Header.Set("Origin", origin)
		if method == http.MethodOptions {
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "content-type, mcp-session-id")
		}
		return send(t, req)
	}
	res := do(http.MethodOptions, "https://chat.example.org")
	if res.StatusCode != http.StatusNoContent || res.Header.Get("Access-Control-Allow-Origin") != "https://chat.example.org" ||
		!strings.Contains(res.Header.Get("Access-Control-Allow-Headers"), "Mcp-Session-Id") || !strings.Contains(res.Header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("preflight: %s %v", res.Status, res.Header)
	}
	if inner.served.Load() != 0 {
		t.Error("the preflight reached the MCP handler")
	}
	if res := do(http.MethodOptions, "https://evil.example"); res.StatusCode != http.StatusForbidden || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("foreign preflight: %s %v", res.Status, res.Header)
	}
	res = do(http.MethodPost, "https://chat.example.org")
	if res.StatusCode != 200 || res.Header.Get("Access-Control-Allow-Origin") != "https://chat.example.org" || !strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id") {
		t.Errorf("POST: %s %v", res.Status, res.Header)
	}
	do(http.MethodPost, "https://chat.example.org") // the IP's third and last token
	res = do(http.MethodPost, "https://chat.example.org")
	if res.StatusCode != 429 || res.Header.Get("Access-Control-Allow-Origin") != "https://chat.example.org" || !strings.Contains(res.Header.Get("Access-Control-Expose-Headers"), "Retry-After") {
		t.Errorf("429: %s %v", res.Status, res.Header)
	}
}

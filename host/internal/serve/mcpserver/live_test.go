package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// testIP is the header the tests' ClientAddr reads a client's address from.
const testIP = "X-Test-IP"

func testAddr(r *http.Request) string { return r.Header.Get(testIP) }

// rawReply is an HTTP answer read whole.
type rawReply struct {
	status int
	header http.Header
	body   string
}

// rawDo sends one request to an MCP address; body "" sends none.
func rawDo(t *testing.T, ctx context.Context, method, url, ip, sid string, header map[string]string, body string) rawReply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(testIP, ip)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return rawReply{resp.StatusCode, resp.Header, string(b)}
}

func initBody(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
}

// openSession initializes a session for a client at ip and returns its id
// ("" when refused) and the answer.
func openSession(t *testing.T, base, path, ip, version string) (string, rawReply) {
	t.Helper()
	r := rawDo(t, context.Background(), http.MethodPost, base+path, ip, "", nil, initBody(version))
	sid := r.header.Get("Mcp-Session-Id")
	if r.status == 200 && sid != "" {
		n := rawDo(t, context.Background(), http.MethodPost, base+path, ip, sid, nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		if n.status != http.StatusAccepted {
			t.Fatalf("initialized: %d %s", n.status, n.body)
		}
	}
	return sid, r
}

// eventually waits, over real sockets, for cond (the go-sdk closes a
// session in its own goroutine after the DELETE is answered).
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// wantMetrics checks gathered values, by name{label="value"}.
func wantMetrics(t *testing.T, reg *prometheus.Registry, want map[string]float64) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			name := mf.GetName()
			for _, lp := range m.GetLabel() {
				name += fmt.Sprintf("{%s=%q}", lp.GetName(), lp.GetValue())
			}
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			got[name] = v
		}
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("metric %s = %v (present %v), want %v", k, g, ok, v)
		}
	}
}

func wantRefusal(t *testing.T, what string, r rawReply, status int, mention string) {
	t.Helper()
	var e rpcReply
	if err := json.Unmarshal([]byte(r.body), &e); err != nil || e.Error == nil {
		t.Fatalf("%s: %d %q: not a JSON-RPC error", what, r.status, r.body)
	}
	if r.status != status || r.header.Get("Retry-After") != "5" || e.Error.Code != CodeCapReached || !strings.Contains(e.Error.Message, mention) {
		t.Errorf("%s: %d Retry-After %q %d %q; want %d naming %s", what, r.status, r.header.Get("Retry-After"), e.Error.Code, e.Error.Message, status, mention)
	}
}

// TestSessionCaps: past max_sessions_per_ip a client address gets 429;
// past max_sessions a newcomer under its share takes the place of the
// least recently active idle session of an address over its share (which
// then gets 404), and is refused with 503 only when every session is
// busy; refusals carry Retry-After and a JSON-RPC error naming the key;
// an ended session gives its place back; the counts are exported as
// metrics. It catches a cap not applied, one applied to the wrong key
// (the address or the total), a full table that locks newcomers out
// while its sessions sit idle (issue 27), an eviction that picks a busy
// session or one of an address within its share, a place never given
// back (a DELETE, a POST that creates no session) and a wrong count.
func TestSessionCaps(t *testing.T) {
	s, _ := realServer(t)
	reg := prometheus.NewRegistry()
	srv := httptest.NewServer(s.Handler(HTTPOptions{MaxSessions: 3, MaxSessionsPerIP: 2, ClientAddr: testAddr, Registerer: reg}))
	defer srv.Close()
	const path = "/mcp/unified/v1"
	a1, _ := openSession(t, srv.URL, path, "10.0.0.1", "2025-06-18")
	a2, _ := openSession(t, srv.URL, "/mcp/obv/v1", "10.0.0.1", "2025-06-18") // every address of the Handler counts
	if a1 == "" || a2 == "" {
		t.Fatal("the first two sessions of an address were refused")
	}
	// A POST that creates no session (not an initialize) keeps no place.
	if r := rawDo(t, context.Background(), http.MethodPost, srv.URL+path, "10.0.0.4", "", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); r.header.Get("Mcp-Session-Id") != "" {
		t.Fatalf("a tools/list without a session made one: %d", r.status)
	}
	if st := s.LiveStats(); st.Sessions != 2 || st.IPs != 1 {
		t.Fatalf("two sessions and a POST that made none: %+v", st)
	}
	_, r := openSession(t, srv.URL, path, "10.0.0.1", "2025-06-18")
	wantRefusal(t, "third session of one address", r, http.StatusTooManyRequests, "server.max_sessions_per_ip")
	b1, _ := openSession(t, srv.URL, path, "10.0.0.2", "2025-06-18")
	if b1 == "" {
		t.Fatal("another address's first session was refused")
	}
	// Full (3). 10.0.0.3's share is 3/3 = 1: it takes the place of
	// 10.0.0.1's least recently active session (a1; 10.0.0.1 holds 2,
	// over its share), not of 10.0.0.2's only one.
	c1, r := openSession(t, srv.URL, path, "10.0.0.3", "2025-06-18")
	if c1 == "" {
		t.Fatalf("a newcomer while the table is full of idle sessions: %d %s", r.status, r.body)
	}
	eventually(t, 2*time.Second, "the evicted session closed", func() bool {
		return rawDo(t, context.Background(), http.MethodPost, srv.URL+path, "10.0.0.1", a1, nil, `{"jsonrpc":"2.0","id":2,"method":"ping"}`).status == http.StatusNotFound
	})
	pathOf := func(sid string) string {
		if sid == a2 {
			return "/mcp/obv/v1"
		}
		return path
	}
	for _, sid := range []string{a2, b1, c1} {
		if r := rawDo(t, context.Background(), http.MethodPost, srv.URL+pathOf(sid), "10.0.0.9", sid, nil, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); r.status != 200 {
			t.Errorf("session %s after the eviction: %d %s", sid, r.status, r.body)
		}
	}
	if st := s.LiveStats(); st.Sessions != 3 || st.SessionsEvicted != 1 || st.SessionsRefused[ReasonTotal] != 0 || st.IPs != 3 {
		t.Fatalf("after one eviction: %+v", st)
	}
	// Every session busy (a stream open on each): nothing to evict, 503.
	var closers []func()
	for _, sid := range []string{b1, c1, a2} {
		st, done := openStream(t, srv.URL+pathOf(sid), "10.0.0.9", sid)
		if st != 200 {
			t.Fatalf("stream: %d", st)
		}
		closers = append(closers, done)
	}
	_, r = openSession(t, srv.URL, path, "10.0.0.5", "2025-06-18")
	wantRefusal(t, "a newcomer when every session is busy", r, http.StatusServiceUnavailable, "server.max_sessions")
	for _, done := range closers {
		done()
	}
	if st := s.LiveStats(); st.Sessions != 3 || st.SessionsRefused[ReasonPerIP] != 1 || st.SessionsRefused[ReasonTotal] != 1 {
		t.Fatalf("after 3 sessions, one refused per address and one in all: %+v", st)
	}
	wantMetrics(t, reg, map[string]float64{
		"besluitbron_sessions_open":                           3,
		"besluitbron_sessions_evicted_total":                  1,
		`besluitbron_sessions_refused_total{reason="per_ip"}`: 1,
		`besluitbron_sessions_refused_total{reason="total"}`:  1,
	})
	// A DELETE ends a session: its place is free for its address again.
	if r := rawDo(t, context.Background(), http.MethodDelete, srv.URL+path, "10.0.0.2", b1, nil, ""); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	eventually(t, 2*time.Second, "the deleted session's place given back", func() bool { return s.LiveStats().Sessions == 2 })
	if b2, r := openSession(t, srv.URL, path, "10.0.0.2", "2025-06-18"); b2 == "" {
		t.Fatalf("after a DELETE, the address's session was refused: %d %s", r.status, r.body)
	}
}

// TestSessionCapsPerSlash64: the per-address cap counts an IPv6 client
// per /64, as the limits do: three addresses of one /64 share its two
// places, another /64 has its own. It catches the cap counting exact
// IPv6 addresses, so that one subscriber fills the total (issue 27).
func TestSessionCapsPerSlash64(t *testing.T) {
	s, _ := realServer(t)
	srv := httptest.NewServer(s.Handler(HTTPOptions{MaxSessions: 10, MaxSessionsPerIP: 2, ClientAddr: testAddr}))
	defer srv.Close()
	const path = "/mcp/unified/v1"
	for _, ip := range []string{"2001:db8:1:1::1", "2001:db8:1:1::2"} {
		if sid, r := openSession(t, srv.URL, path, ip, "2025-06-18"); sid == "" {
			t.Fatalf("%s: %d %s", ip, r.status, r.body)
		}
	}
	_, r := openSession(t, srv.URL, path, "2001:db8:1:1:ffff::3", "2025-06-18")
	wantRefusal(t, "a third session from one /64", r, http.StatusTooManyRequests, "server.max_sessions_per_ip")
	if sid, r := openSession(t, srv.URL, path, "2001:db8:1:2::1", "2025-06-18"); sid == "" {
		t.Fatalf("another /64: %d %s", r.status, r.body)
	}
	if st := s.LiveStats(); st.Sessions != 3 || st.IPs != 2 {
		t.Errorf("two /64s: %+v", st)
	}
}

// TestSessionIdleTimeout: a session no request uses for SessionTimeout
// is closed, and its place given back. It catches the option not reaching
// the go-sdk, and a place kept after the go-sdk closed the session.
func TestSessionIdleTimeout(t *testing.T) {
	s, _ := realServer(t)
	srv := httptest.NewServer(s.Handler(HTTPOptions{SessionTimeout: 50 * time.Millisecond, ClientAddr: testAddr}))
	defer srv.Close()
	sid, r := openSession(t, srv.URL, "/mcp/unified/v1", "10.0.0.1", "2025-06-18")
	if sid == "" {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	eventually(t, 3*time.Second, "the idle session closed", func() bool { return s.LiveStats().Sessions == 0 })
	if r := rawDo(t, context.Background(), http.MethodPost, srv.URL+"/mcp/unified/v1", "10.0.0.1", sid, nil, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); r.status != http.StatusNotFound {
		t.Errorf("a request on the timed-out session: %d, want 404", r.status)
	}
}

// openStream opens a GET event stream (sid "": an HTTP+SSE stream) and
// returns the status and a func that closes it. A stream the server
// accepted is read up to its first bytes, so that it is open when
// openStream returns.
func openStream(t *testing.T, url, ip, sid string) (int, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(testIP, ip)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		cancel()
		return resp.StatusCode, func() {}
	}
	if sid == "" {
		// The HTTP+SSE stream's first event names its endpoint.
		bufio.NewReader(resp.Body).ReadString('\n')
	}
	closeIt := func() { cancel(); resp.Body.Close() }
	t.Cleanup(closeIt) // a failed test closes its streams too
	return 200, closeIt
}

// TestStreamCaps: a session's GET streams past max_streams_per_session and
// an address's streams (streamable GETs and HTTP+SSE streams together)
// past max_streams_per_ip are refused with 429; an HTTP+SSE stream is a
// session too; closed streams give their places back. It catches either
// cap missing, HTTP+SSE streams left out of the count, and places kept
// after a stream closed.
func TestStreamCaps(t *testing.T) {
	s, _ := realServer(t)
	reg := prometheus.NewRegistry()
	srv := httptest.NewServer(s.Handler(HTTPOptions{MaxStreamsPerSession: 1, MaxStreamsPerIP: 2, MaxSessionsPerIP: 3, ClientAddr: testAddr, Registerer: reg}))
	t.Cleanup(srv.Close) // after the streams' cleanups: Close waits for them
	u := srv.URL + "/mcp/unified/v1"
	sid, _ := openSession(t, srv.URL, "/mcp/unified/v1", "10.0.0.1", "2025-06-18")
	st, close1 := openStream(t, u, "10.0.0.1", sid)
	if st != 200 {
		t.Fatalf("the session's first stream: %d", st)
	}
	// A second GET stream of the session: refused by the cap (the go-sdk
	// itself would answer 409, or hold both, depending on its version).
	// Bounded: without the cap the go-sdk may hold this stream open.
	tctx, tcancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer tcancel()
	req, _ := http.NewRequestWithContext(tctx, http.MethodGet, u, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(testIP, "10.0.0.9") // from elsewhere: the session's cap, not the address's
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if tctx.Err() != nil {
		t.Fatal("a session's second stream was held open")
	}
	wantRefusal(t, "a session's second stream", rawReply{resp.StatusCode, resp.Header, string(b)}, http.StatusTooManyRequests, "server.max_streams_per_session")

	// HTTP+SSE: the address's second stream opens, its third is refused.
	st, close2 := openStream(t, srv.URL+"/sse", "10.0.0.1", "")
	if st != 200 {
		t.Fatalf("an HTTP+SSE stream: %d", st)
	}
	if got := s.LiveStats(); got.Sessions != 2 || got.Streams != 2 {
		t.Fatalf("a session with a stream and an HTTP+SSE stream: %+v, want 2 sessions, 2 streams", got)
	}
	req, _ = http.NewRequestWithContext(tctx, http.MethodGet, srv.URL+"/sse", nil)
	req.Header.Set(testIP, "10.0.0.1")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	wantRefusal(t, "an address's third stream", rawReply{resp.StatusCode, resp.Header, string(b)}, http.StatusTooManyRequests, "server.max_streams_per_ip")
	if got := s.LiveStats(); got.Sessions != 2 || got.StreamsRefused[ReasonPerSession] != 1 || got.StreamsRefused[ReasonPerIP] != 1 {
		t.Fatalf("after two refusals: %+v (a refused HTTP+SSE stream must not keep its session's place)", got)
	}
	wantMetrics(t, reg, map[string]float64{
		"besluitbron_streams_open":                                2,
		`besluitbron_streams_refused_total{reason="per_ip"}`:      1,
		`besluitbron_streams_refused_total{reason="per_session"}`: 1,
	})
	close1()
	close2()
	eventually(t, 2*time.Second, "closed streams give their places back", func() bool {
		got := s.LiveStats()
		return got.Streams == 0 && got.Sessions == 1
	})
	if st, c := openStream(t, u, "10.0.0.1", sid); st != 200 {
		t.Errorf("the session's stream after the first closed: %d", st)
	} else {
		c()
	}
}

// TestBatchRules: a batch is refused (400, -32600) when the request's
// MCP-Protocol-Version header, the version its session negotiated, or an
// initialize inside it is 2025-06-18 or later; under 2025-03-26 a batch
// is served, up to max_batch messages, and a larger one is refused naming
// the cap before any message runs. It catches a batch accepted from a
// session that negotiated a version without batches (the go-sdk assumes
// 2025-03-26 without the header), the cap missing or off by one, and a
// refused batch whose messages ran.
func TestBatchRules(t *testing.T) {
	s, rec := realServer(t)
	srv := httptest.NewServer(s.Handler(HTTPOptions{MaxBatch: 3, ClientAddr: testAddr}))
	defer srv.Close()
	const path = "/mcp/unified/v1"
	u := srv.URL + path
	call := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"demo_search","arguments":{"query":"x"}}}`, id)
	}
	batch := func(n int) string {
		var parts []string
		for i := range n {
			parts = append(parts, call(10+i))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	check := func(what string, r rawReply, status int, mention string) {
		t.Helper()
		var e rpcReply
		json.Unmarshal([]byte(r.body), &e)
		if r.status != status || e.Error == nil || e.Error.Code != -32600 || !strings.Contains(e.Error.Message, mention) {
			t.Errorf("%s: %d %q, want %d -32600 naming %q", what, r.status, r.body, status, mention)
		}
	}
	newSID, _ := openSession(t, srv.URL, path, "10.0.0.1", "2025-06-18")
	oldSID, _ := openSession(t, srv.URL, path, "10.0.0.1", "2025-03-26")
	if newSID == "" || oldSID == "" {
		t.Fatal("sessions refused")
	}
	runs := rec.calls.Load()
	check("header 2025-06-18", rawDo(t, context.Background(), http.MethodPost, u, "10.0.0.1", oldSID, map[string]string{"MCP-Protocol-Version": "2025-06-18"}, batch(2)), 400, "not part of MCP protocol version 2025-06-18")
	check("session negotiated 2025-06-18, no header", rawDo(t, context.Background(), http.MethodPost, u, "10.0.0.1", newSID, nil, batch(2)), 400, "not part of MCP protocol version 2025-06-18")
	check("initialize for 2025-11-25 in a batch", rawDo(t, context.Background(), http.MethodPost, u, "10.0.0.2", "", nil, "["+strings.Replace(initBody("2025-11-25"), `"id":1`, `"id":5`, 1)+"]"), 400, "batch item 1: an initialize for MCP protocol version 2025-11-25")
	check("a batch over max_batch", rawDo(t, context.Background(), http.MethodPost, u, "10.0.0.1", oldSID, nil, batch(4)), 400, "a batch of 4 messages; this server takes at most 3 per batch (server.max_batch)")
	if got := rec.calls.Load(); got != runs {
		t.Fatalf("refused batches ran %d calls", got-runs)
	}
	r := rawDo(t, context.Background(), http.MethodPost, u, "10.0.0.1", oldSID, nil, batch(3))
	if r.status != 200 || strings.Count(r.body, `"result"`) != 3 {
		t.Fatalf("a batch of max_batch under 2025-03-26: %d %q", r.status, r.body)
	}
	if got := rec.calls.Load(); got != runs+3 {
		t.Errorf("a batch of 3 ran %d calls", got-runs)
	}
}

// gate is a platform's limit that never opens until told: every fetch
// waits at it, counted, until its call's context ends or the limit opens;
// a fetch that gets through is a request the platform sees.
type gate struct {
	waiting atomic.Int32
	sent    atomic.Int32
	entered chan struct{}
	left    chan struct{}
	open    chan struct{}
}

func newGate() *gate {
	return &gate{entered: make(chan struct{}, 64), left: make(chan struct{}, 64), open: make(chan struct{})}
}

func (g *gate) Fetch(ctx context.Context, r connector.FetchRequest) (connector.FetchResponse, error) {
	g.waiting.Add(1)
	g.entered <- struct{}{}
	defer func() { g.waiting.Add(-1); g.left <- struct{}{} }()
	select {
	case <-ctx.Done():
		return connector.FetchResponse{}, ctx.Err()
	case <-g.open:
		g.sent.Add(1)
		return connector.FetchResponse{Status: 200, Body: []byte(`{}`)}, nil
	}
}

func (g *gate) Log(context.Context, int, string) {}

func gatedServer(t *testing.T, g *gate) *Server {
	t.Helper()
	p := &sdk.Plugin{
		Manifest: connector.Manifest{ID: "slow", Version: "1", Title: "Slow", Services: []connector.Service{{Name: "api"}},
			Tools: []connector.Tool{{Name: "wait", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}}},
		Tools: map[string]sdk.ToolFunc{"wait": func(ctx context.Context, h connector.Host, _ json.RawMessage) (any, error) {
			if _, err := h.Fetch(ctx, connector.FetchRequest{URL: "https://slow.example/", Service: "api"}); err != nil {
				return nil, err
			}
			return map[string]any{"ok": true}, nil
		}},
	}
	s, err := New(Options{Version: "test", Platforms: []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: p, Host: g}}}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestGoneClientCancelsCalls: a call waiting at a platform's limit whose
// client closes the POST's connection leaves the wait within a second,
// every element of a batch alike, and the platform never sees a request
// for it, even once the limit opens. It catches handlers that run on in
// the session's context after their client has gone (the go-sdk's own
// behaviour before protocol 2026-07-28), and batches whose elements are
// not all tied to the POST.
func TestGoneClientCancelsCalls(t *testing.T) {
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d calls", n), func(t *testing.T) {
			g := newGate()
			s := gatedServer(t, g)
			srv := httptest.NewServer(s.Handler(HTTPOptions{ClientAddr: testAddr}))
			defer srv.Close()
			sid, r := openSession(t, srv.URL, "/mcp/unified/v1", "10.0.0.1", "2025-03-26")
			if sid == "" {
				t.Fatalf("initialize: %d %s", r.status, r.body)
			}
			var msgs []string
			for i := range n {
				msgs = append(msgs, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow_wait","arguments":{}}}`, 100+i))
			}
			body := msgs[0]
			if n > 1 {
				body = "[" + strings.Join(msgs, ",") + "]"
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/mcp/unified/v1", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Session-Id", sid)
				req.Header.Set(testIP, "10.0.0.1")
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				done <- err
			}()
			for range n {
				select {
				case <-g.entered:
				case <-time.After(5 * time.Second):
					t.Fatalf("%d calls never reached the platform's limit", n)
				}
			}
			cancel() // the client goes: its connection closes
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("client: %v", err)
			}
			deadline := time.After(time.Second)
			for range n {
				select {
				case <-g.left:
				case <-deadline:
					t.Fatalf("%d of %d calls still waiting 1 s after their client left", g.waiting.Load(), n)
				}
			}
			if w := g.waiting.Load(); w != 0 {
				t.Fatalf("waiting %d", w)
			}
			close(g.open) // the limit opens: nothing of the gone client's may pass
			eventually(t, 2*time.Second, "the POST unregistered", func() bool { return s.posts.running() == 0 })
			if sent := g.sent.Load(); sent != 0 {
				t.Errorf("the platform saw %d requests of a client that had gone", sent)
			}
			// The session itself still serves.
			if r := rawDo(t, context.Background(), http.MethodPost, srv.URL+"/mcp/unified/v1", "10.0.0.1", sid, nil, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow_wait","arguments":{}}}`); r.status != 200 || !strings.Contains(r.body, `\"ok\":true`) && !strings.Contains(r.body, `"ok":true`) {
				t.Errorf("a later call on the session: %d %q", r.status, r.body)
			}
		})
	}
}

// TestGoneLegacyClientCancelsCalls: an HTTP+SSE client's calls are
// answered on its stream, not on their POST (202 at once); when the
// stream closes, its session ends and a call waiting at a platform's
// limit leaves the wait within a second, unsent. It catches calls of
// HTTP+SSE clients that outlive their stream (the go-sdk cancels the
// session's calls when it closes; this holds it to that).
func TestGoneLegacyClientCancelsCalls(t *testing.T) {
	g := newGate()
	s := gatedServer(t, g)
	srv := httptest.NewServer(s.Handler(HTTPOptions{ClientAddr: testAddr}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/sse", nil)
	req.Header.Set(testIP, "10.0.0.1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	var endpoint string
	for endpoint == "" {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("no endpoint event: %v", err)
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok {
			endpoint = strings.TrimSpace(v)
		}
	}
	go io.Copy(io.Discard, rd) // the stream's events
	for _, m := range []string{initBody("2024-11-05"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow_wait","arguments":{}}}`} {
		if r := rawDo(t, context.Background(), http.MethodPost, srv.URL+endpoint, "10.0.0.1", "", nil, m); r.status != http.StatusAccepted {
			t.Fatalf("POST %s: %d %s", m, r.status, r.body)
		}
	}
	select {
	case <-g.entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the call never reached the platform's limit")
	}
	cancel() // the stream closes
	select {
	case <-g.left:
	case <-time.After(time.Second):
		t.Fatalf("%d calls still waiting 1 s after the stream closed", g.waiting.Load())
	}
	close(g.open)
	if n := g.sent.Load(); n != 0 {
		t.Errorf("the platform saw %d requests", n)
	}
	eventually(t, 2*time.Second, "the HTTP+SSE session's place given back", func() bool {
		st := s.LiveStats()
		return st.Sessions == 0 && st.Streams == 0
	})
}

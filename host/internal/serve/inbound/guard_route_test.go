package inbound

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// testRoute is a host with connectors obv and rechtspraak: "/" serves
// both (tools and resources carry the connector's id), "/obv" serves obv;
// any other path is no MCP address.
func testRoute(address string, m Message) (string, bool) {
	switch address {
	case "/obv":
		return "obv", true
	case "/", "/sse":
	default:
		return "", false
	}
	var name string
	switch m.Method {
	case "tools/call":
		name, _, _ = strings.Cut(m.Tool, "_")
	case "resources/read":
		name, _, _ = strings.Cut(strings.TrimPrefix(m.URI, "besluitbron://"), "/")
	}
	if name == "obv" || name == "rechtspraak" {
		return name, true
	}
	return NoConnector, true
}

func postBody(t *testing.T, url, session, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if session != "" {
		req.Header.Set(SessionHeader, session)
	}
	return send(t, req)
}

func call(tool string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, tool)
}

type refusalBody struct {
	Error struct {
		Code    int
		Message string
		Data    map[string]any
	}
}

func readBody(t *testing.T, res *http.Response) refusalBody {
	t.Helper()
	var b refusalBody
	if err := json.NewDecoder(res.Body).Decode(&b); err != nil {
		t.Fatal(err)
	}
	return b
}

// On the address of every connector, a tools/call counts against its
// tool's connector: a flood of obv calls is refused there, naming
// "connector obv", while rechtspraak calls and connector-less messages on
// the same address pass; on /obv everything is obv's.
func TestGuardRoutesToConnector(t *testing.T) {
	srv, g, inner, clk := startGuard(t, Options{Process: generous, Connector: Limit{RPS: 1, Burst: 5}, Session: generous, IP: generous,
		Connectors: []string{"obv", "rechtspraak"}}, nil)
	for i := range 5 {
		if res := postBody(t, srv.URL, "", call("obv_search")); res.StatusCode != 200 {
			t.Fatalf("obv call %d: %s", i, res.Status)
		}
	}
	res := postBody(t, srv.URL, "", call("obv_get_document"))
	if res.StatusCode != 429 || res.Header.Get("Retry-After") != "1" {
		t.Fatalf("sixth obv call: %s Retry-After %q", res.Status, res.Header.Get("Retry-After"))
	}
	b := readBody(t, res)
	if b.Error.Data["limit"] != "connector" || b.Error.Data["connector"] != "obv" || !strings.Contains(b.Error.Message, "the connector obv limit (1 requests per second, burst 5)") {
		t.Errorf("429 %+v", b)
	}
	for i := range 5 {
		if res := postBody(t, srv.URL, "", call("rechtspraak_list_courts")); res.StatusCode != 200 {
			t.Fatalf("rechtspraak call %d beside the obv flood: %s", i, res.Status)
		}
		if res := postBody(t, srv.URL, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); res.StatusCode != 200 {
			t.Fatalf("tools/list %d beside the obv flood: %s", i, res.Status)
		}
	}
	// A resource of obv, on either address, is obv's too.
	if res := postBody(t, srv.URL, "", `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"besluitbron://obv/document/x"}}`); res.StatusCode != 429 {
		t.Errorf("obv resource on /: %s", res.Status)
	}
	if res := postBody(t, srv.URL+"/obv", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`); res.StatusCode != 429 {
		t.Errorf("ping on /obv: %s, want obv's refusal", res.Status)
	}
	// The sixth connector-less message meets its own bucket.
	res = postBody(t, srv.URL, "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if b := readBody(t, res); res.StatusCode != 429 || b.Error.Data["connector"] != NoConnector || !strings.Contains(b.Error.Message, "calls that touch no connector") {
		t.Errorf("sixth connector-less message: %s %+v", res.Status, b)
	}
	// Paths that are no MCP address have no connector bucket.
	if res := postBody(t, srv.URL+"/elsewhere", "", call("obv_search")); res.StatusCode != 200 {
		t.Errorf("elsewhere: %s", res.Status)
	}
	// The handler got each admitted body whole.
	if inner.body != call("obv_search") {
		t.Errorf("handler read %q", inner.body)
	}
	clk.advance(time1)
	if res := postBody(t, srv.URL, "", call("obv_search")); res.StatusCode != 200 {
		t.Errorf("after Retry-After: %s", res.Status)
	}
	st := g.Limits().Stats()
	if st.Refused[Connector] != 4 {
		t.Errorf("connector refusals %v", st.Refused)
	}
}

// The tool name is read as the go-sdk reads it: field names match case
// for case, so a client cannot name one tool to the limits and run
// another.
func TestGuardReadsToolNameAsTheSDK(t *testing.T) {
	for body, want := range map[string]Message{
		`{"method":"tools/call","params":{"Name":"rechtspraak_x","name":"obv_search"}}`: {Method: "tools/call", Tool: "obv_search"},
		`{"method":"tools/call","params":{"name":"obv_search","NAME":"rechtspraak_x"}}`: {Method: "tools/call", Tool: "obv_search"},
		`{"Method":"tools/call","params":{"name":"obv_search"}}`:                        {},
		`{"method":"tools/call","params":{"name":"a","name":"obv_search"}}`:             {Method: "tools/call", Tool: "obv_search"},
		`  {"method":"resources/read","params":{"uri":"besluitbron://obv/document/1"}}`: {Method: "resources/read", URI: "besluitbron://obv/document/1"},
		`{"method":"tools/call","params":[1]}`:                                          {Method: "tools/call"},
		`not json`:                                                                      {},
	} {
		got := parseMessages([]byte(body))
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s: %+v, want %+v", body, got, want)
		}
	}
}

// A batch costs one token per message, each on its connector's bucket;
// one larger than a burst gets a 413 naming the limit.
func TestGuardBatch(t *testing.T) {
	srv, _, inner, _ := startGuard(t, Options{Process: generous, Connector: Limit{RPS: 1, Burst: 4}, Session: generous, IP: Limit{RPS: 1, Burst: 10},
		Connectors: []string{"obv", "rechtspraak"}}, nil)
	batch := "[" + call("obv_search") + "," + call("obv_search") + "," + call("rechtspraak_x") + `,{"jsonrpc":"2.0","method":"notifications/initialized"}]`
	if res := postBody(t, srv.URL, "", batch); res.StatusCode != 200 || inner.body != batch {
		t.Fatalf("batch: %s, handler read %q", res.Status, inner.body)
	}
	// obv holds 2 of 4; rechtspraak 3; the client address 6 of 10.
	three := "[" + call("obv_search") + "," + call("obv_search") + "," + call("obv_search") + "]"
	if res := postBody(t, srv.URL, "", three); res.StatusCode != 429 || readBody(t, res).Error.Data["connector"] != "obv" {
		t.Errorf("three more obv calls: %s", res.Status)
	}
	five := "[" + strings.Repeat(call("rechtspraak_x")+",", 4) + call("rechtspraak_x") + "]"
	res := postBody(t, srv.URL, "", five)
	b := readBody(t, res)
	if res.StatusCode != http.StatusRequestEntityTooLarge || res.Header.Get("Retry-After") != "" || b.Error.Data["connector"] != "rechtspraak" ||
		b.Error.Data["messages"] != 5.0 || !strings.Contains(b.Error.Message, "send at most 4 per batch") {
		t.Errorf("batch of 5 over a burst of 4: %s %+v", res.Status, b)
	}
}

// A body over the cap is passed on unread, whole, as one message: the
// handler refuses it. A request refused anyway is refused unread.
func TestGuardBodyBounds(t *testing.T) {
	l := mustNew(t, Options{Process: generous, Connector: generous, Session: generous, IP: Limit{RPS: 1, Burst: 1}, Connectors: []string{"obv"}})
	var got string
	reads := 0
	g := NewGuard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = string(b)
		w.WriteHeader(http.StatusRequestEntityTooLarge)
	}), GuardOptions{Limits: l, Route: testRoute, MaxBodyBytes: 64, Now: newFakeNow().now})
	big := call("obv_search") + strings.Repeat(" ", 100)
	rec := &recorder{header: http.Header{}}
	g.ServeHTTP(rec, newPost("/", &countingReader{r: strings.NewReader(big), n: &reads}))
	if got != big || rec.status != http.StatusRequestEntityTooLarge {
		t.Errorf("handler read %d bytes of %d, status %d", len(got), len(big), rec.status)
	}
	reads = 0
	rec = &recorder{header: http.Header{}}
	g.ServeHTTP(rec, newPost("/", &countingReader{r: strings.NewReader(big), n: &reads}))
	if rec.status != 429 || reads != 0 {
		t.Errorf("refused by its client address: %d, body read %d times", rec.status, reads)
	}
}

// HTTP+SSE clients name their session in ?sessionid=: an id the handler
// accepts (202) gets a session bucket of its own, so one flooding client
// does not refuse another from the same address; an id it does not know
// (404) counts against the client address and is never learnt.
func TestGuardLegacySessions(t *testing.T) {
	srv, g, inner, clk := startGuard(t, Options{Process: generous, Connector: generous, Session: Limit{RPS: 1, Burst: 3}, IP: Limit{RPS: 1, Burst: 4}}, nil)
	inner.legacy["A"], inner.legacy["B"] = true, true
	legacyPost := func(id string) *http.Response {
		return postBody(t, srv.URL+"/sse?sessionid="+id, "", call("obv_search"))
	}
	// The first POST of each is its client address's (2 of 4); then A
	// spends its own burst of 3.
	for _, id := range []string{"A", "B", "A", "A", "A"} {
		if res := legacyPost(id); res.StatusCode != http.StatusAccepted {
			t.Fatalf("%s: %s", id, res.Status)
		}
	}
	res := legacyPost("A")
	if b := readBody(t, res); res.StatusCode != 429 || b.Error.Data["limit"] != "session" {
		t.Fatalf("A after its burst: %s %+v", res.Status, b)
	}
	for range 3 {
		if res := legacyPost("B"); res.StatusCode != http.StatusAccepted {
			t.Fatalf("B beside A's flood: %s", res.Status)
		}
	}
	if st := g.Limits().Stats(); st.Sessions != 2 {
		t.Errorf("%d sessions, want A and B", st.Sessions)
	}
	// Invented ids: 404, the client address's two remaining tokens, then
	// an ip refusal; no session learnt.
	for i := range 2 {
		if res := legacyPost(fmt.Sprintf("invented-%d", i)); res.StatusCode != 404 {
			t.Fatalf("invented %d: %s", i, res.Status)
		}
	}
	if res := legacyPost("invented-x"); res.StatusCode != 429 || readBody(t, res).Error.Data["limit"] != "ip" {
		t.Errorf("invented after the IP burst: %s", res.Status)
	}
	// The id is no header session: Mcp-Session-Id: A (or sse:A) is
	// invented.
	for _, h := range []string{"A", "sse:A"} {
		if res := postBody(t, srv.URL+"/sse", h, call("obv_search")); res.StatusCode != 429 || readBody(t, res).Error.Data["limit"] != "ip" {
			t.Errorf("header session %q: %s", h, res.Status)
		}
	}
	// The stream closed: the handler forgets B, answers 404, and so do the
	// limits.
	clk.advance(time1)
	inner.mu.Lock()
	delete(inner.legacy, "B")
	inner.mu.Unlock()
	if res := legacyPost("B"); res.StatusCode != 404 {
		t.Fatal(res.Status)
	}
	if st := g.Limits().Stats(); st.Sessions != 1 {
		t.Errorf("%d sessions after B's 404, want 1", st.Sessions)
	}
}

const time1 = 1e9 // one second, as a time.Duration

type recorder struct {
	header http.Header
	status int
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = 200
	}
	return len(b), nil
}
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

type countingReader struct {
	r io.Reader
	n *int
}

func (c *countingReader) Read(p []byte) (int, error) {
	*c.n++
	return c.r.Read(p)
}

func newPost(path string, body io.Reader) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, "http://example.test"+path, body)
	req.RemoteAddr = "192.0.2.1:1234"
	return req
}

package host_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
)

// TestLegacySSEClient: a client of the older HTTP+SSE transport (as older
// Inspector versions use by default) is served on the same address.
func TestLegacySSEClient(t *testing.T) {
	up := fakeOBV(t, nil)
	_, base := startHost(t, up.URL)
	for _, addr := range []string{"/mcp/unified/v1", "/sse"} {
		legacyCall(t, base+addr)
	}
}

func legacyCall(t *testing.T, endpoint string) {
	c := mcp.NewClient(&mcp.Implementation{Name: "legacy", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.SSEClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(lt.Tools) == 0 {
		t.Fatalf("tools over SSE: %v", err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": "begroting"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "Raadsvoorstel") {
		t.Fatalf("call over SSE: %v %v", err, res)
	}
}

// postedSessions records the ?sessionid= of an HTTP+SSE client's POSTs.
type postedSessions struct {
	next http.RoundTripper
	mu   sync.Mutex
	ids  map[string]bool
}

func (p *postedSessions) RoundTrip(r *http.Request) (*http.Response, error) {
	if id := r.URL.Query().Get("sessionid"); id != "" && r.Method == http.MethodPost {
		p.mu.Lock()
		p.ids[id] = true
		p.mu.Unlock()
	}
	return p.next.RoundTrip(r)
}

func (p *postedSessions) id(t *testing.T) string {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) != 1 {
		t.Fatalf("the client posted to sessions %v, want one", p.ids)
	}
	for id := range p.ids {
		return id
	}
	return ""
}

// Two HTTP+SSE clients on one address from one client IP are two
// sessions: one exceeding its session limit does not refuse the other,
// and each one's calls reach the fair scheduler (and the tool-call log)
// under its own ?sessionid=, not a shared "stdio".
func TestLegacySSEClientsAreSessionsOfTheirOwn(t *testing.T) {
	th := startTwoConnectors(t, `
[mcp_rate_limit]
session_rps = 1
session_burst = 5
ip_rps = 1
ip_burst = 4
`)
	sse := th.base + "/sse"
	recA := &postedSessions{next: clientFrom(t, "127.0.0.2").Transport, ids: map[string]bool{}}
	recB := &postedSessions{next: clientFrom(t, "127.0.0.2").Transport, ids: map[string]bool{}}
	// Each connect: the GET and the first POST (server/discover) on the
	// client address (2 × 2 of 4), initialize and
	// notifications/initialized on the session (2 of 5).
	a := legacyFrom(t, sse, &http.Client{Transport: recA})
	b := legacyFrom(t, sse, &http.Client{Transport: recB})
	sidA, sidB := recA.id(t), recB.id(t)
	if sidA == sidB {
		t.Fatalf("both clients post to session %s", sidA)
	}

	// A spends its session's burst and is refused.
	served := 0
	for {
		err := searchOBV(a, "a")
		if err == nil {
			served++
			continue
		}
		if !strings.Contains(err.Error(), "429") {
			t.Fatalf("A, call %d: %v", served+1, err)
		}
		break
	}
	if served != 3 {
		t.Errorf("A served %d calls before its refusal, want 3 (burst 5, two spent connecting)", served)
	}
	res, body := rawLegacyCall(t, clientFrom(t, "127.0.0.2"), sse, sidA)
	if r := readRefusal(t, res, body); r.Layer != "session" || r.RetryAfter != 1 {
		t.Errorf("A's next POST: %+v, want its session limit", r)
	}
	// B, same address and client IP, is not refused.
	for i := range 3 {
		if err := searchOBV(b, "b"); err != nil {
			t.Fatalf("B, call %d, beside A's refusals: %v", i, err)
		}
	}

	// Down to the scheduler: each session is charged its own search (the
	// repeats were answered from the cache), nothing under "stdio".
	now := th.clock.Now()
	for _, s := range []struct{ name, id string }{{"A", sidA}, {"B", sidB}} {
		if u := host.SchedulerUsage(th.h, "obv", s.id, now); u < 1 {
			t.Errorf("the obv scheduler charges %s (%s) %v units, want its search", s.name, s.id, u)
		}
	}
	if u := host.SchedulerUsage(th.h, "obv", "stdio", now); u != 0 {
		t.Errorf("the obv scheduler charges stdio %v units", u)
	}
	// And the log line of each call names its session.
	calls := map[string]int{}
	for _, line := range strings.Split(th.log.String(), "\n") {
		var rec struct{ Msg, Session, Tool string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "tool call" && rec.Tool == "obv_search" {
			calls[rec.Session]++
		}
	}
	if calls[sidA] != 3 || calls[sidB] != 3 || len(calls) != 2 {
		t.Errorf("tool calls by session %v, want 3 under %s and 3 under %s", calls, sidA, sidB)
	}
}

// rawLegacyCall posts one tools/call to an HTTP+SSE session's endpoint.
func rawLegacyCall(t *testing.T, c *http.Client, url, session string) (*http.Response, string) {
	t.Helper()
	res, body := rawPost(t, c, url+"?sessionid="+session, `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"obv_search","arguments":{"query":"a"}}}`)
	return res, body
}

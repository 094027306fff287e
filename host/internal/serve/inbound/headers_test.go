package inbound

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// untouchable is a request body that must not be read.
type untouchable struct{ read bool }

func (u *untouchable) Read([]byte) (int, error) {
	u.read = true
	return 0, errors.New("the body was read")
}
func (u *untouchable) Close() error { return nil }

// bodyless answers 200 without reading the body, as far as the Guard is
// concerned the MCP handler.
var bodyless = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })

func modernRequest(method, name string, body *untouchable) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Body = body
	r.ContentLength = -1
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("MCP-Protocol-Version", "2026-07-28")
	r.Header.Set("Mcp-Method", method)
	if name != "" {
		r.Header.Set("Mcp-Name", name)
	}
	return r
}

// A request of MCP 2026-07-28 is charged to its connector's bucket by its
// Mcp-Method and Mcp-Name headers, its body never read: the second obv
// call finds obv's bucket (burst 1) empty and is refused naming it, while
// a rechtspraak call (Base64 sentinel form) and a tools/list on the same
// address pass.
func TestGuardClassifiesModernRequestsByHeaders(t *testing.T) {
	l := mustNew(t, Options{Process: generous, Connector: Limit{RPS: 0.001, Burst: 1}, Session: generous, IP: generous, Connectors: []string{"obv", "rechtspraak"}})
	at := time.Unix(1_800_000_000, 0)
	g := NewGuard(bodyless, GuardOptions{Limits: l, Now: func() time.Time { return at }, Route: testRoute})
	steps := []struct {
		method, name string
		status       int
		refusal      string
	}{
		{"tools/call", "obv_search", 200, ""},
		{"tools/call", "obv_get_document", 429, "connector obv"},
		// "rechtspraak_search" in the sentinel form a client may use.
		{"tools/call", "=?base64?cmVjaHRzcHJhYWtfc2VhcmNo?=", 200, ""},
		{"tools/list", "", 200, ""},
	}
	for _, s := range steps {
		body := &untouchable{}
		w := httptest.NewRecorder()
		g.ServeHTTP(w, modernRequest(s.method, s.name, body))
		if body.read {
			t.Errorf("%s %s: the Guard read the body; a modern request's headers say where it goes", s.method, s.name)
		}
		if w.Code != s.status || !strings.Contains(w.Body.String(), s.refusal) {
			t.Errorf("%s %s: %d %s, want %d %q", s.method, s.name, w.Code, w.Body.String(), s.status, s.refusal)
		}
	}
}

// The headers are believed only on a modern request: an older one that
// sends Mcp-Method is routed by its body as before, and a modern one
// without the header has its body read (the MCP handler refuses it for
// the missing header).
func TestGuardReadsTheBodyWithoutModernHeaders(t *testing.T) {
	l := mustNew(t, Options{Process: generous, Connector: generous, Session: generous, IP: generous, Connectors: []string{"obv"}})
	g := NewGuard(bodyless, GuardOptions{Limits: l, Route: testRoute})
	for _, tc := range []struct {
		name   string
		header func(http.Header)
	}{
		{"an older version with Mcp-Method", func(h http.Header) { h.Set("MCP-Protocol-Version", "2025-11-25") }},
		{"a modern version without Mcp-Method", func(h http.Header) { h.Del("Mcp-Method") }},
		{"an Mcp-Name that is no Base64", func(h http.Header) { h.Set("Mcp-Name", "=?base64?***?=") }},
	} {
		body := &untouchable{}
		r := modernRequest("tools/call", "obv_search", body)
		tc.header(r.Header)
		g.ServeHTTP(httptest.NewRecorder(), r)
		if !body.read {
			t.Errorf("%s: the body was not read", tc.name)
		}
	}
}

// A modern request's Mcp-Session-Id is ignored: it counts against its
// client address, as a request before a session does, even when the id is
// one the server issued to an older client (the server issues none in
// 2026-07-28, and a modern client must not spend an older session's
// bucket).
func TestGuardModernRequestsCountAgainstTheAddress(t *testing.T) {
	l := mustNew(t, Options{Process: generous, Connector: generous, Session: generous, IP: Limit{RPS: 0.001, Burst: 2}})
	at := time.Unix(1_800_000_000, 0)
	l.SessionStarted(at, "/", "issued")
	g := NewGuard(bodyless, GuardOptions{Limits: l, Now: func() time.Time { return at }, Route: testRoute})
	var codes []int
	for range 3 {
		r := modernRequest("tools/list", "", &untouchable{})
		r.Header.Set(SessionHeader, "issued")
		w := httptest.NewRecorder()
		g.ServeHTTP(w, r)
		codes = append(codes, w.Code)
	}
	if codes[0] != 200 || codes[1] != 200 || codes[2] != 429 {
		t.Fatalf("three modern requests naming an issued session: %v, want 200 200 429 (the address's bucket, burst 2)", codes)
	}
}

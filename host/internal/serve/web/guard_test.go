package web_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/host/internal/serve/inbound"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/host/internal/serve/web"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// guarded is a page server behind Guard on a real loopback socket (the
// Host rule reads the connection's local address), with a route of its
// own standing in for health and the MCP addresses, on a clock that moves
// only when the test says.
type guarded struct {
	url    string
	f      *fake
	lim    *inbound.Limits
	reg    *prometheus.Registry
	mu     sync.Mutex
	now    time.Time
	health int
}

func (g *guarded) advance(d time.Duration) {
	g.mu.Lock()
	g.now = g.now.Add(d)
	g.mu.Unlock()
}

// three query platforms and none with a filter list, unless lists.
func guardPlatforms(lists int) []web.Platform {
	var ps []web.Platform
	for i, id := range []string{"aa", "bb", "cc"} {
		p := web.Platform{ID: id, Title: strings.ToUpper(id), SearchTool: id + "_search", DocumentTool: id + "_get_document", DocumentArg: "id", Profile: &connector.SearchProfile{Tool: "search", QueryArg: "query"}}
		if i < lists {
			p.Filter = &web.Filter{Arg: "org", LabelNL: "Bron", LabelEN: "Source", ListTool: id + "_list"}
		}
		ps = append(ps, p)
	}
	// Searches only by filter: a keyword search starts no call here.
	return append(ps, web.Platform{ID: "dd", Title: "DD", SearchTool: "dd_search"})
}

func startGuarded(t *testing.T, ps []web.Platform, process, ip inbound.Limit, origins []string) *guarded {
	t.Helper()
	g := &guarded{now: time.Unix(1_700_000_000, 0), reg: prometheus.NewRegistry()}
	g.f = &fake{answer: func(tool string, _ map[string]any, _ *callinfo.Info) invoke.Answer {
		switch {
		case strings.HasSuffix(tool, "_search"):
			return ok(searchAnswer)
		case strings.HasSuffix(tool, "_list"):
			return ok(map[string]any{"items": []map[string]any{{"id": "x", "title": "X"}}})
		}
		return ok(map[string]any{"id": "d1", "title": "Besluit", "text": "Tekst", "page": 1, "pages": 1})
	}}
	var err error
	g.lim, err = inbound.New(&inbound.Options{Process: process, IP: ip, Connector: inbound.Limit{RPS: 1000, Burst: 1000}, Session: inbound.Limit{RPS: 1000, Burst: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	orig, err := inbound.NewOrigins(origins)
	if err != nil {
		t.Fatal(err)
	}
	s := web.New(web.Options{Platforms: ps, Invoke: g.f.Invoke, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Wait: time.Minute,
		Registerer: g.reg, Status: func() loadstatus.Snapshot { return loadstatus.Snapshot{} }})
	mux := http.NewServeMux()
	s.Routes(mux)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		g.mu.Lock()
		g.health++
		g.mu.Unlock()
		w.Write([]byte("ok\n"))
	})
	now := func() time.Time { g.mu.Lock(); defer g.mu.Unlock(); return g.now }
	srv := httptest.NewServer(s.Guard(mux, web.GuardOptions{Limits: g.lim, Origins: orig, Now: now}))
	t.Cleanup(srv.Close)
	g.url = srv.URL
	return g
}

// do sends a GET with the given headers ("Host" sets the request's Host).
func do(t *testing.T, url string, hdr ...string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, string(b), r.Header
}

// TestGuardChargesTheCallsAPageStarts: with 7 tokens for an address, a
// search over three platforms that can take a keyword (the fourth cannot:
// no call) costs 3, so two are served and the third is refused with 429,
// Retry-After and the wait in words, having started nothing; a document
// costs 1; the tool calls started never exceed the tokens. Catches a page
// charged one token whatever it starts (seven searches would pass), and
// charges for calls a page does not make (the second search refused).
func TestGuardChargesTheCallsAPageStarts(t *testing.T) {
	g := startGuarded(t, guardPlatforms(0), inbound.Limit{RPS: 1000, Burst: 1000}, inbound.Limit{RPS: 1, Burst: 7}, nil)
	for i := range 2 {
		if code, body, _ := do(t, g.url+"/?q=begroting"); code != 200 {
			t.Fatalf("search %d: %d\n%s", i+1, code, body)
		}
	}
	if n := len(g.f.recorded()); n != 6 {
		t.Fatalf("%d tool calls after two searches over three platforms, want 6", n)
	}
	code, body, h := do(t, g.url+"/?q=begroting")
	if code != http.StatusTooManyRequests || h.Get("Retry-After") != "2" {
		t.Fatalf("third search: %d, Retry-After %q, want 429 and 2 (two tokens missing at 1/s)", code, h.Get("Retry-After"))
	}
	mustContain(t, body, `<html lang="nl">`, "Even wachten", "Probeer het over 2 seconden opnieuw.", `href="/?q=begroting"`)
	if n := len(g.f.recorded()); n != 6 {
		t.Fatalf("the refused search started calls: %d in all", n)
	}
	// The one token left pays for a document, and nothing is left.
	if code, _, _ := do(t, g.url+"/document?p=aa&id=d1"); code != 200 {
		t.Fatalf("document on the last token: %d", code)
	}
	if code, _, h := do(t, g.url+"/document?p=aa&id=d1", "Cookie", "lang=en"); code != 429 || h.Get("Retry-After") != "1" {
		t.Fatalf("document on an empty bucket: %d, Retry-After %q", code, h.Get("Retry-After"))
	}
	if got := (webRequests(t, g.reg, "search", "429")); got != 1 {
		t.Errorf("besluitbron_web_requests_total{page=search,code=429} = %v, want 1", got)
	}
	// Three seconds later one search fits again.
	g.advance(3 * time.Second)
	if code, _, _ := do(t, g.url+"/?q=woningbouw"); code != 200 {
		t.Fatalf("after the wait: %d", code)
	}
	if n := len(g.f.recorded()); n != 10 {
		t.Fatalf("%d tool calls for 3 searches and a document, want 10", n)
	}
}

// TestGuardRefusalWords: the 429 page is in the reader's language, says
// whether it is the reader or everyone who must wait; /status.json says it
// in JSON, readable by any site. Catches an English-only or Dutch-only
// refusal, and HTML served to a monitor.
func TestGuardRefusalWords(t *testing.T) {
	g := startGuarded(t, guardPlatforms(0), inbound.Limit{RPS: 1, Burst: 1}, inbound.Limit{RPS: 100, Burst: 100}, nil)
	if code, _, _ := do(t, g.url+"/status"); code != 200 {
		t.Fatalf("status page: %d", code)
	}
	code, body, h := do(t, g.url+"/?lang=en")
	if code != 429 || h.Get("Retry-After") != "1" || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("search page past the process limit: %d %q %q", code, h.Get("Retry-After"), h.Get("Content-Type"))
	}
	mustContain(t, body, `<html lang="en">`, "Please wait", "more requests right now than it may pass on", "Please try again in a second.")
	code, body, h = do(t, g.url+"/status.json")
	var v struct {
		Limit string `json:"limit"`
		Retry int    `json:"retry_after_seconds"`
	}
	if code != 429 || h.Get("Access-Control-Allow-Origin") != "*" || json.Unmarshal([]byte(body), &v) != nil || v.Limit != "process" || v.Retry != 1 {
		t.Fatalf("status.json past the limit: %d %q %s", code, h.Get("Access-Control-Allow-Origin"), body)
	}
	// The reader's own limit words it as theirs.
	g2 := startGuarded(t, guardPlatforms(0), inbound.Limit{RPS: 100, Burst: 100}, inbound.Limit{RPS: 0.1, Burst: 1}, nil)
	do(t, g2.url+"/status")
	code, body, h = do(t, g2.url+"/status")
	if code != 429 || h.Get("Retry-After") != "10" {
		t.Fatalf("status page past the ip limit: %d %q", code, h.Get("Retry-After"))
	}
	mustContain(t, body, "U heeft in korte tijd veel opgevraagd", "Probeer het over 10 seconden opnieuw.")
}

// TestGuardListFillsAreCharged: a page that has to fetch two filter lists
// starts two calls and pays for them; once they are kept, a page costs
// the minimum of 1. Catches list fills left out of a page's cost (the
// first page would cost 1 and the second pass).
func TestGuardListFillsAreCharged(t *testing.T) {
	g := startGuarded(t, guardPlatforms(2), inbound.Limit{RPS: 1000, Burst: 1000}, inbound.Limit{RPS: 1, Burst: 2}, nil)
	if code, _, _ := do(t, g.url+"/"); code != 200 {
		t.Fatalf("first page: %d", code)
	}
	if n := len(g.f.recorded()); n != 2 {
		t.Fatalf("%d calls, want the two lists", n)
	}
	if code, _, _ := do(t, g.url+"/"); code != 429 {
		t.Fatalf("second page at once: %d, want 429 (the lists took both tokens)", code)
	}
	g.advance(time.Second)
	if code, _, _ := do(t, g.url+"/"); code != 200 {
		t.Fatalf("a second later, lists kept: %d, want 200 for one token", code)
	}
	if n := len(g.f.recorded()); n != 2 {
		t.Fatalf("%d calls, want the lists fetched once", n)
	}
}

// TestGuardHostAndOrigin: on loopback a foreign Host is refused on every
// page, static files and /status.json included, before any call or token;
// a foreign Origin is refused on the pages that start calls, not on
// /status.json (read by any site) nor /static/; the request's own origin
// and a listed one pass; other routes on the mux are untouched, and
// static files take no token. Catches the pages outside the Host rule (a
// DNS-rebinding page running searches through a local server), the
// Origin rule applied where a dashboard must read, and the guard reaching
// beyond the pages.
func TestGuardHostAndOrigin(t *testing.T) {
	g := startGuarded(t, guardPlatforms(0), inbound.Limit{RPS: 1000, Burst: 1000}, inbound.Limit{RPS: 1, Burst: 3}, []string{"https://chat.example.org"})
	for _, p := range []string{"/?q=begroting", "/resultaten?p=aa&q=x", "/document?p=aa&id=d1", "/status", "/status.json", "/static/app.js"} {
		code, body, _ := do(t, g.url+p, "Host", "evil.example:8080")
		if code != http.StatusForbidden || !strings.Contains(body, "server.trusted_proxies") {
			t.Errorf("%s with a foreign Host: %d %q, want 403 naming what to configure", p, code, body)
		}
	}
	for _, p := range []string{"/?q=begroting", "/resultaten?p=aa&q=x", "/document?p=aa&id=d1", "/status"} {
		if code, _, _ := do(t, g.url+p, "Origin", "https://evil.example"); code != http.StatusForbidden {
			t.Errorf("%s with a foreign Origin: %d, want 403", p, code)
		}
	}
	if n := len(g.f.recorded()); n != 0 {
		t.Fatalf("refused requests started %d calls", n)
	}
	// Nothing refused took a token: three one-token pages pass.
	if code, _, _ := do(t, g.url+"/status.json", "Origin", "https://evil.example"); code != 200 {
		t.Errorf("status.json from another site: %d, want 200", code)
	}
	if code, _, _ := do(t, g.url+"/document?p=aa&id=d1", "Origin", g.url, "Host", strings.TrimPrefix(g.url, "http://")); code != 200 {
		t.Errorf("document from the server's own page: %d", code)
	}
	if code, _, _ := do(t, g.url+"/status", "Origin", "https://chat.example.org", "Host", "localhost"); code != 200 {
		t.Errorf("status from a listed origin on Host localhost: %d", code)
	}
	// The bucket is empty now; static files and the other routes pass.
	if code, _, _ := do(t, g.url+"/status"); code != 429 {
		t.Fatalf("a fourth page on three tokens: %d, want 429", code)
	}
	if code, _, _ := do(t, g.url+"/static/style.css", "Origin", "https://evil.example"); code != 200 {
		t.Errorf("static file on an empty bucket from another site: %d, want 200", code)
	}
	if code, _, _ := do(t, g.url+"/healthz", "Host", "evil.example"); code != 200 || g.health != 1 {
		t.Errorf("a route that is no page: %d, want it untouched", code)
	}
	if got := (webRequests(t, g.reg, "static", "403")); got != 1 {
		t.Errorf("besluitbron_web_requests_total{page=static,code=403} = %v, want 1", got)
	}
}

// TestGuardWithoutLimits: with the client limits off (no Limits) the
// pages are not counted, but the Host rule holds. Catches a nil Limits
// dereferenced, or the Host rule switched off with the limits.
func TestGuardWithoutLimits(t *testing.T) {
	f := &fake{answer: func(string, map[string]any, *callinfo.Info) invoke.Answer { return ok(searchAnswer) }}
	s := web.New(web.Options{Platforms: guardPlatforms(0), Invoke: f.Invoke, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Wait: time.Minute})
	mux := http.NewServeMux()
	s.Routes(mux)
	srv := httptest.NewServer(s.Guard(mux, web.GuardOptions{}))
	t.Cleanup(srv.Close)
	for i := range 20 {
		if code, _, _ := do(t, srv.URL+"/?q=x"); code != 200 {
			t.Fatalf("search %d without limits: %d", i+1, code)
		}
	}
	if code, _, _ := do(t, srv.URL+"/", "Host", "evil.example"); code != 403 {
		t.Fatalf("foreign Host without limits: %d", code)
	}
}

// webRequests reads besluitbron_web_requests_total{page, code}.
func webRequests(t *testing.T, reg *prometheus.Registry, page, code string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "besluitbron_web_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["page"] == page && labels["code"] == code {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

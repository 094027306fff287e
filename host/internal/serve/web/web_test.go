package web_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/host/internal/serve/web"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// fake is a tool runner standing in for the MCP server (Invoke): it records every
// call and answers with what the test put in answer.
type fake struct {
	mu     sync.Mutex
	calls  []call
	answer func(tool string, args map[string]any, info *callinfo.Info) invoke.Answer
	n      atomic.Int64 // search calls
}

type call struct {
	tool string
	args map[string]any
	info *callinfo.Info
}

func (f *fake) Invoke(ctx context.Context, info *callinfo.Info, tool string, raw json.RawMessage) invoke.Answer {
	if strings.HasSuffix(tool, "_search") {
		f.n.Add(1)
	}
	var args map[string]any
	json.Unmarshal(raw, &args)
	f.mu.Lock()
	f.calls = append(f.calls, call{tool, args, info})
	answer := f.answer
	f.mu.Unlock()
	return answer(tool, args, info)
}

func (f *fake) recorded() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

func ok(v any) invoke.Answer {
	b, _ := json.Marshal(v)
	return invoke.Answer{Result: connector.CallResult{Text: string(b), Structured: b}, Summary: callinfo.Summary{Cache: callinfo.Bypass}}
}

func toolErr(text string) invoke.Answer {
	return invoke.Answer{Err: errors.New(text), Summary: callinfo.Summary{Cache: callinfo.Bypass}}
}

var searchAnswer = map[string]any{"platform": "obv", "has_more": true, "offset": 0, "total": 42, "total_is_approximate": true,
	"results": []map[string]any{{"id": "document:x:1", "title": "Raadsvoorstel <begroting> 2024", "date": "2024-11-07", "organization": "Soest", "url": "https://openbesluitvorming.nl/api/entities/document%3Ax%3A1", "snippet": "De begroting"}}}

// obvTypes are the type labels the fake obv's manifest declares, for the
// types the tests' answers carry (the real manifests' labels are
// checked in TestEveryConnectorsTypesInPeoplesWords).
var obvTypes = connector.TypeLabels{
	{Type: "Meeting", NL: "Vergadering", EN: "Meeting"}, {Type: "MediaObject", NL: "Document", EN: "Document"},
	{Type: "Motion", NL: "Motie", EN: "Motion"}, {Type: "Document", NL: "Document", EN: "Document"},
}

func platforms() []web.Platform {
	return []web.Platform{
		{ID: "obv", Title: "OpenBesluitvorming", SearchTool: "obv_search", DocumentTool: "obv_get_document", DocumentArg: "entity_id",
			Profile: &connector.SearchProfile{Tool: "search", QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: 100, OffsetArg: "offset"},
			Types:   obvTypes,
			Filter:  &web.Filter{Arg: "organization", LabelNL: "Gemeente of bron", LabelEN: "Municipality or source", ListTool: "obv_list_sources"}},
		{ID: "rechtspraak", Title: "Rechtspraak", SearchTool: "rechtspraak_search", DocumentTool: "rechtspraak_get_document", DocumentArg: "ecli",
			Profile: &connector.SearchProfile{Tool: "search", DateFromArg: "date_from", DateToArg: "date_to", DatesWhole: true, MaxLimit: 100, OffsetArg: "offset"},
			Filter:  &web.Filter{Arg: "court", LabelNL: "Instantie", LabelEN: "Court"}},
	}
}

func serve(t *testing.T, f *fake, mod func(*web.Options)) *httptest.Server {
	t.Helper()
	o := web.Options{Platforms: platforms(), Invoke: f.Invoke, Version: "1.2.3", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Wait: time.Minute}
	if mod != nil {
		mod(&o)
	}
	mux := http.NewServeMux()
	web.New(o).Routes(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string, cookies ...*http.Cookie) (int, string, *http.Response) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r.StatusCode, string(b), r
}

func mustContain(t *testing.T, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if t.Failed() {
		t.Logf("page:\n%s", body)
	}
}

func TestSearchMapsTheFormAndRunsAsThePublicSession(t *testing.T) {
	f := &fake{answer: func(tool string, args map[string]any, info *callinfo.Info) invoke.Answer {
		switch tool {
		case "obv_search":
			return ok(searchAnswer)
		case "obv_list_sources":
			return ok(map[string]any{"platform": "obv", "list": "sources", "count": 1, "items": []map[string]any{{"id": "soest", "title": "Soest"}}})
		}
		return toolErr("unexpected " + tool)
	}}
	srv := serve(t, f, nil)
	code, body, _ := get(t, srv.URL+"/?q=begroting&p=obv&p=rechtspraak&f.obv=soest&van=2024-01-01&tot=2024-12-31&o=10")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	mustContain(t, body, `<html lang="nl">`, "Raadsvoorstel &lt;begroting&gt; 2024", "7 november 2024", "ongeveer 42 resultaten",
		`<option value="soest" selected>Soest</option>`, "Rechtspraak kan niet op trefwoord zoeken",
		`href="https://openbesluitvorming.nl/api/entities/document%3Ax%3A1"`, "Meer resultaten van OpenBesluitvorming", "Vorige resultaten van OpenBesluitvorming",
		`start="11"`)
	var search *call
	for _, c := range f.recorded() {
		if c.info.Session != sched.PublicSession || !c.info.Public {
			t.Errorf("%s ran as session %q (public %v), want the public session", c.tool, c.info.Session, c.info.Public)
		}
		if c.tool == "obv_search" {
			search = &c
		}
		if c.tool == "rechtspraak_search" {
			t.Error("Rechtspraak was asked a keyword search it cannot do")
		}
	}
	want := map[string]any{"query": "begroting", "organization": "soest", "date_from": "2024-01-01", "date_to": "2024-12-31", "limit": float64(10), "offset": float64(10)}
	if search == nil || len(search.args) != len(want) {
		t.Fatalf("search call %+v, want args %v", search, want)
	}
	for k, v := range want {
		if search.args[k] != v {
			t.Errorf("arg %s = %v, want %v", k, search.args[k], v)
		}
	}
}

func TestBadInputIsSaidNotFatal(t *testing.T) {
	f := &fake{answer: func(string, map[string]any, *callinfo.Info) invoke.Answer { return ok(searchAnswer) }}
	srv := serve(t, f, nil)
	for _, c := range []struct{ query, want string }{
		{"?q=x&van=2024-13-45", "Een datum moet de vorm JJJJ-MM-DD hebben"},
		{"?q=x&van=2025-01-01&tot=2024-01-01", "zijn omgewisseld"},
		{"?q=x&o=-3", "Het startpunt van de resultaten is ongeldig"},
		{"?q=x&p=nope", "Kies ten minste één bekend platform"},
		{"?q=" + strings.Repeat("a", 400), "ingekort tot 300 tekens"},
		{"?q=%3Cscript%3Ealert(1)%3C/script%3E", "&lt;script&gt;alert(1)&lt;/script&gt;"},
	} {
		code, body, _ := get(t, srv.URL+"/"+c.query)
		if code != 200 || !strings.Contains(body, c.want) || strings.Contains(body, "<script>alert") {
			t.Errorf("%s: %d, want a page saying %q", c.query, code, c.want)
		}
	}
	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{"/document?p=nope&id=x", 400, "Dit document bestaat niet"},
		{"/document?p=obv", 400, "Dit document bestaat niet"},
		{"/document?p=obv&id=x&page=0", 400, "positief geheel getal"},
		{"/document?p=obv&id=x&page=abc", 400, "positief geheel getal"},
		{"/resultaten?q=x", 400, "exactly one known platform"},
		{"/resultaten?p=obv", 400, "exactly one known platform"},
	} {
		code, body, _ := get(t, srv.URL+c.path)
		if code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %q, want %d and %q", c.path, code, body, c.code, c.want)
		}
	}
}

func TestPlatformProblemsAreNamed(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"down", "OpenBesluitvorming: search: unavailable: 127.0.0.1:1: connection refused", "OpenBesluitvorming is niet bereikbaar"},
		{"timeout", "OpenBesluitvorming: search: unavailable: openbesluitvorming.nl did not answer within 30s", "OpenBesluitvorming is niet bereikbaar"},
		{"503", "OpenBesluitvorming: search: upstream answered HTTP 503: onderhoud", "OpenBesluitvorming is niet bereikbaar"},
		{"500", "OpenBesluitvorming: search: upstream answered HTTP 500: Zoeken mislukt", "OpenBesluitvorming gaf een fout"},
		{"limit", "OpenBesluitvorming: search: queue_timeout: OpenBesluitvorming's limit (60 units per 1m0s) leaves no room", "OpenBesluitvorming is op dit moment te druk"},
		{"invalid", `OpenBesluitvorming: invalid arguments for obv_search: argument "query": maxLength`, "Deze zoekopdracht past niet bij OpenBesluitvorming"},
		{"other", "OpenBesluitvorming: search: the platform's response lacks results or hasMore", "OpenBesluitvorming gaf een fout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fake{answer: func(string, map[string]any, *callinfo.Info) invoke.Answer { return toolErr(c.text) }}
			srv := serve(t, f, nil)
			_, body, _ := get(t, srv.URL+"/?q=x&p=obv")
			// The platform's own words are kept, behind a disclosure in
			// Dutch (they are English).
			mustContain(t, body, c.want, "<summary>Technische melding</summary><p lang=\"en\">")
		})
	}
}

// blocking is a runner whose search waits until released; it reports its
// queue position through info.OnQueued first when queue is set.
type blocking struct {
	fake
	release chan struct{}
	queued  chan struct{}
	lists   atomic.Int64
}

func newBlocking(queue bool) *blocking {
	b := &blocking{release: make(chan struct{}), queued: make(chan struct{}, 16)}
	b.answer = func(tool string, args map[string]any, info *callinfo.Info) invoke.Answer {
		if tool != "obv_search" {
			b.lists.Add(1)
			return toolErr("no list")
		}
		if queue {
			info.OnQueued(3, 20*time.Second)
			b.queued <- struct{}{}
		}
		<-b.release
		return ok(searchAnswer)
	}
	return b
}

func TestSlowAndQueuedPlatformsJoinTheRunningCall(t *testing.T) {
	t.Run("slow", func(t *testing.T) {
		b := newBlocking(false)
		srv := serve(t, &b.fake, func(o *web.Options) { o.Wait = time.Millisecond })
		_, body, _ := get(t, srv.URL+"/?q=begroting&p=obv")
		mustContain(t, body, "OpenBesluitvorming antwoordt traag", `data-fragment="/resultaten?lang=nl&amp;p=obv&amp;q=begroting"`, `aria-busy="true"`)
		close(b.release)
		// The page polls its fragment until the answer is in, as here:
		// the released call stores its answer a moment after the release,
		// and one fragment request waits only o.Wait for it (under -race
		// on a busy machine that moment can be longer).
		for i := 0; i < 5000; i++ {
			_, body, _ = get(t, srv.URL+"/resultaten?lang=nl&p=obv&q=begroting")
			if !strings.Contains(body, `aria-busy="true"`) {
				break
			}
		}
		mustContain(t, body, "Raadsvoorstel &lt;begroting&gt; 2024")
		if strings.Contains(body, "<html") {
			t.Error("the fragment is a whole page")
		}
	})
	t.Run("queued", func(t *testing.T) {
		b := newBlocking(true)
		srv := serve(t, &b.fake, func(o *web.Options) { o.Wait = time.Millisecond })
		get(t, srv.URL+"/?q=begroting&p=obv")
		<-b.queued
		_, body, _ := get(t, srv.URL+"/?q=begroting&p=obv&lang=en")
		mustContain(t, body, "OpenBesluitvorming is busy: your search is queued at this platform&#39;s request limit (position 3, about 20 seconds)", `data-eta="20"`)
		if n := b.n.Load(); n != 1 {
			t.Errorf("%d calls for one question asked twice while running, want 1", n)
		}
		close(b.release)
	})
	t.Run("busy", func(t *testing.T) {
		b := newBlocking(true) // reports on b.queued once its call runs
		srv := serve(t, &b.fake, func(o *web.Options) {
			o.Wait = time.Millisecond
			o.MaxInFlight = 1
			o.Platforms[0].Filter.ListTool = "" // the one slot is the search's
		})
		get(t, srv.URL+"/?q=een&p=obv")
		<-b.queued
		_, body, _ := get(t, srv.URL+"/?q=twee&p=obv")
		mustContain(t, body, "OpenBesluitvorming is op dit moment te druk")
		close(b.release)
	})
}

// TestHammerJoinsIdenticalQuestions fires many identical and different
// page requests at once (-race): identical questions asked while one runs
// cost one call.
func TestHammerJoinsIdenticalQuestions(t *testing.T) {
	b := newBlocking(false)
	srv := serve(t, &b.fake, func(o *web.Options) { o.Wait = time.Millisecond })
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := []string{"a", "b"}[i%2]
			if code, _, _ := get(t, srv.URL+"/?p=obv&q="+q); code != 200 {
				t.Errorf("status %d", code)
			}
		}()
	}
	wg.Wait()
	if n := b.n.Load(); n != 2 {
		t.Errorf("%d platform calls for 2 distinct questions asked 20 times each while running, want 2", n)
	}
	if n := b.lists.Load(); n != 1 {
		t.Errorf("the failing list of sources was asked %d times, want once (a failure is remembered for a while)", n)
	}
	close(b.release)
}

func TestDocumentPages(t *testing.T) {
	f := &fake{answer: func(tool string, args map[string]any, _ *callinfo.Info) invoke.Answer {
		if args["entity_id"] == "gone" {
			return toolErr(`OpenBesluitvorming: get_document: no entity "gone"`)
		}
		page, _ := args["page"].(float64)
		if page == 0 {
			page = 1
		}
		return ok(map[string]any{"platform": "obv", "id": args["entity_id"], "title": "Begroting 2024", "date": "2024-11-07", "organization": "Soest",
			"url": "https://example.org/b.pdf", "format": "markdown", "page": page, "pages": 3, "text": "## Inleiding\nDe raad <besluit>.\n\nTweede alinea."})
	}}
	srv := serve(t, f, nil)
	code, body, _ := get(t, srv.URL+"/document?p=obv&id=document:x:1&page=2&terug=/%3Fq%3Dx")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	mustContain(t, body, "<title>Begroting 2024 · BesluitBron</title>", "Pagina 2 van 3", `rel="prev" href="/document?id=document%3Ax%3A1&amp;p=obv&amp;page=1`, `rel="next"`,
		"<h2>Inleiding</h2>", "<p>De raad &lt;besluit&gt;.</p>", `href="https://example.org/b.pdf"`, `href="/?q=x"`, `max="3"`)
	if c := f.recorded()[0]; c.args["page"] != float64(2) || c.args["entity_id"] != "document:x:1" {
		t.Errorf("document call args %v", c.args)
	}
	if _, body, _ := get(t, srv.URL+"/document?p=obv&id=x&terug=//evil.example"); strings.Contains(body, `href="//evil.example"`) {
		t.Error("a back link leaves the site")
	}
	code, body, _ = get(t, srv.URL+"/document?p=obv&id=gone")
	if code != 404 || !strings.Contains(body, `no entity &#34;gone&#34;`) {
		t.Errorf("missing document: %d", code)
	}
}

func TestLanguageToggle(t *testing.T) {
	f := &fake{answer: func(string, map[string]any, *callinfo.Info) invoke.Answer { return ok(searchAnswer) }}
	srv := serve(t, f, nil)
	_, body, resp := get(t, srv.URL+"/?lang=en")
	mustContain(t, body, `<html lang="en">`, "Search public decision-making", `hreflang="nl"`, ">Nederlands</a>")
	var c *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == "lang" {
			c = ck
		}
	}
	if c == nil || c.Value != "en" {
		t.Fatalf("no lang cookie: %v", resp.Cookies())
	}
	_, body, _ = get(t, srv.URL+"/", c)
	mustContain(t, body, `<html lang="en">`)
	_, body, _ = get(t, srv.URL+"/?lang=nl", c)
	mustContain(t, body, `<html lang="nl">`, "Zoeken in openbare besluitvorming")
}

func TestStatusPages(t *testing.T) {
	now := time.Date(2026, 6, 30, 10, 0, 0, 0, time.UTC)
	snap := loadstatus.Snapshot{GeneratedAt: now, IntervalSeconds: 300, Platforms: []loadstatus.Status{
		{Platform: "obv", Title: "OpenBesluitvorming", State: loadstatus.Down, Message: "OpenBesluitvorming does not answer: EOF", CheckedAt: now.Add(-time.Minute), DownSince: now.Add(-10 * time.Minute), Failures: 3,
			Freshness: &loadstatus.Freshness{Counts: map[string]int{"ok": 1, "failing": 1}, WindowHours: 36,
				Suppliers: []loadstatus.Supplier{{Key: "ibabs", Label: "iBabs", State: "degraded", SourceCount: 2}},
				Sources:   []loadstatus.Source{{Key: "houten", Label: "Houten", Supplier: "ibabs", State: "failing", LastError: "HTTP 503"}, {Key: "soest", Label: "Soest", Supplier: "notubiz", State: "ok"}}}},
		{Platform: "rechtspraak", Title: "Rechtspraak", State: loadstatus.Up, Message: "Rechtspraak answered in 12 ms", CheckedAt: now.Add(-time.Minute), LatencyMS: 12},
	}}
	f := &fake{answer: func(string, map[string]any, *callinfo.Info) invoke.Answer { return ok(searchAnswer) }}
	srv := serve(t, f, func(o *web.Options) {
		o.Status = func() loadstatus.Snapshot { return snap }
		o.Now = func() time.Time { return now }
	})
	_, body, _ := get(t, srv.URL+"/status?org=houten")
	mustContain(t, body, "om de 5 minuten", `<tr id="st-obv" class="state-down">`, "storing sinds 10 minuten geleden", "12 ms",
		"Bronnen: 1 actueel, 0 verouderd, 1 met fouten", "Leveranciers van OpenBesluitvorming", "verstoord", "import mislukt", "HTTP 503")
	_, body, _ = get(t, srv.URL+"/?q=x&p=obv")
	mustContain(t, body, `<span class="badge state-down">storing</span>`, "Laadstatus: storing (gecontroleerd 1 minuut geleden).")
	code, body, resp := get(t, srv.URL+"/status.json")
	var back loadstatus.Snapshot
	if code != 200 || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" || json.Unmarshal([]byte(body), &back) != nil || back.Platforms[0].State != loadstatus.Down {
		t.Errorf("/status.json: %d %s", code, body)
	}
}

// TestStatusPageQuotaSection: the status page lists the limits per host,
// with the platforms that share each and where each limit comes from, in
// Dutch and English: a limit the platform publishes, one BesluitBron
// chose, the admin's, and a host where no limit is known, which is never
// worded as a host without one.
func TestStatusPageQuotaSection(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ten := 7.5
	snap := loadstatus.Snapshot{IntervalSeconds: 300, Quotas: []loadstatus.Quota{
		{Quota: "openbesluitvorming.nl", Limited: true, Units: 60, PerSeconds: 60, Source: "the manifest of obv (service api)", SourcePlatform: "obv", SourceService: "api", Tokens: &ten,
			LimitFrom: "published", LimitWhere: "openbesluitvorming.nl/docs/api",
			Connectors: []loadstatus.QuotaUser{{Platform: "obv", Title: "OpenBesluitvorming", Service: "api"}}},
		{Quota: "zoek.officielebekendmakingen.nl", Limited: true, Units: 10, PerSeconds: 30, Source: "connectors.tk.limits.obk", SourceAdmin: true, SourcePlatform: "tk", SourceService: "obk", Shared: true,
			Waiting: 3, PausedUntil: now.Add(20 * time.Second), LimitFrom: "admin",
			Connectors: []loadstatus.QuotaUser{{Platform: "obk", Title: "Officiële Bekendmakingen", Service: "zoek"}, {Platform: "tk", Title: "Tweede Kamer", Service: "obk"}}},
		{Quota: "data.rechtspraak.nl", Limited: true, Units: 10, PerSeconds: 1, LimitFrom: "polite", LimitNoteNL: "Rechtspraak noemt geen getal.",
			Connectors: []loadstatus.QuotaUser{{Platform: "rechtspraak", Title: "Rechtspraak", Service: "search"}}},
		{Quota: "api.openraadsinformatie.nl", LimitFrom: "unknown", Connectors: []loadstatus.QuotaUser{{Platform: "ori", Title: "Open Raadsinformatie", Service: "elastic"}}},
	}}
	f := &fake{answer: func(string, map[string]any, *callinfo.Info) invoke.Answer { return ok(searchAnswer) }}
	srv := serve(t, f, func(o *web.Options) {
		o.Status = func() loadstatus.Snapshot { return snap }
		o.Now = func() time.Time { return now }
	})
	_, body, _ := get(t, srv.URL+"/status")
	mustContain(t, body, "Limieten per host", `<tr id="quota-zoek.officielebekendmakingen.nl" class="state-busy">`,
		`zoek.officielebekendmakingen.nl <span class="badge">gedeeld</span>`, "10 per 30 seconden", "ingesteld door de beheerder (connectors.tk.limits.obk)",
		"gepubliceerd door het platform (openbesluitvorming.nl/docs/api)", "eigen keuze van BesluitBron: het platform noemt geen getal", "Rechtspraak noemt geen getal.",
		"Officiële Bekendmakingen en Tweede Kamer", "3 verzoeken wachten", "gepauzeerd na een 429, tot 13:00:20",
		"60 per minuut", "niemand wacht", "api.openraadsinformatie.nl",
		`<td class="limit-unknown">onbekend<br><small class="limit-from">geen gepubliceerd en geen waargenomen; BesluitBron houdt er geen bij, dus verzoeken wachten hier niet</small>`,
		`<strong>Gepubliceerd door het platform:</strong> <a href="#quota-openbesluitvorming.nl">openbesluitvorming.nl</a>`,
		`<strong>Eigen keuze van BesluitBron:</strong> <a href="#quota-data.rechtspraak.nl">data.rechtspraak.nl</a>`,
		`<strong>Ingesteld door de beheerder:</strong> <a href="#quota-zoek.officielebekendmakingen.nl">`,
		`<strong>Onbekend (geen gepubliceerd, geen waargenomen; dat is niet hetzelfde als geen limiet):</strong> <a href="#quota-api.openraadsinformatie.nl">`)
	if strings.Contains(body, ">geen limiet<") || strings.Contains(body, "zoals OpenBesluitvorming het opgeeft") {
		t.Error("the Dutch page calls an unknown limit none, or a manifest's limit the platform's word")
	}
	_, body, _ = get(t, srv.URL+"/status?lang=en")
	mustContain(t, body, "Limits per host", "10 per 30 seconds", "3 requests waiting", "paused after a 429", "60 per minute",
		"published by the platform (openbesluitvorming.nl/docs/api)", "BesluitBron&#39;s own choice: the platform names no number",
		`<td class="limit-unknown">unknown<br><small class="limit-from">none published and none observed; BesluitBron keeps none`,
		"Unknown (none published, none observed, which is not the same as no limit):")
	if strings.Contains(body, ">no limit<") || strings.Contains(body, "declares it") {
		t.Error("the English page calls an unknown limit none, or a manifest's limit the platform's word")
	}
	code, body, _ := get(t, srv.URL+"/status.json")
	var back loadstatus.Snapshot
	if code != 200 || json.Unmarshal([]byte(body), &back) != nil || len(back.Quotas) != 4 || !back.Quotas[1].Shared || len(back.Quotas[1].Connectors) != 2 {
		t.Errorf("/status.json: %d %s", code, body)
	}
	if back.Quotas[0].LimitFrom != "published" || back.Quotas[0].LimitWhere != "openbesluitvorming.nl/docs/api" || back.Quotas[3].LimitFrom != "unknown" {
		t.Errorf("/status.json does not say where the limits come from: %s", body)
	}
}

func TestStatusPageClusterSection(t *testing.T) {
	f := &fake{answer: func(string, map[string]any, *callinfo.Info) invoke.Answer { return ok(searchAnswer) }}
	srv := serve(t, f, func(o *web.Options) {
		o.Status = func() loadstatus.Snapshot { return loadstatus.Snapshot{IntervalSeconds: 300} }
		o.Cluster = func() []web.ClusterLine {
			return []web.ClusterLine{{Text: "Replica r1; 3 live replica(s) seen."}, {Text: "obv (api): Redis is unreachable: this replica grants on its own share", Warn: true}}
		}
	})
	_, body, _ := get(t, srv.URL+"/status")
	// Dutch: the gist in Dutch, the cluster's English lines behind a
	// disclosure; English: the lines themselves.
	mustContain(t, body, "Verdeling van de limieten over replica", "Redis onbereikbaar: deze replica houdt zich aan een eigen deel",
		`<ul class="cluster" lang="en"><li>Replica r1; 3 live replica(s) seen.</li><li class="state-down">obv (api): Redis is unreachable`, `href="/status/cluster.json"`)
	_, body, _ = get(t, srv.URL+"/status?lang=en")
	mustContain(t, body, `<ul class="cluster"><li>Replica r1; 3 live`)
	srv2 := serve(t, f, func(o *web.Options) {
		o.Status = func() loadstatus.Snapshot { return loadstatus.Snapshot{IntervalSeconds: 300} }
	})
	_, body, _ = get(t, srv2.URL+"/status")
	if strings.Contains(body, "cluster.json") {
		t.Error("a single process shows no replica section")
	}
}

// TestSectionNotesFromTheConnectorAndTheHost: a section shows the
// connector's caveats (its result's notes) and the host's (the call's
// summary, such as a stale answer's age), and its cache outcome comes from
// the summary too. It catches a page that loses the host's notes now that
// they are no longer appended to the result's text.
func TestSectionNotesFromTheConnectorAndTheHost(t *testing.T) {
	withNote := map[string]any{}
	for k, v := range searchAnswer {
		withNote[k] = v
	}
	withNote["notes"] = []string{"Alpha caveat from the connector"}
	f := &fake{answer: func(string, map[string]any, *callinfo.Info) invoke.Answer {
		a := ok(withNote)
		a.Summary = callinfo.Summary{Cache: callinfo.Hit, Notes: []string{"Beta remark from the host"}}
		return a
	}}
	srv := serve(t, f, nil)
	_, body, _ := get(t, srv.URL+"/?q=begroting&p=obv&lang=en")
	mustContain(t, body, "Raadsvoorstel", "Alpha caveat from the connector", "Beta remark from the host", "From BesluitBron&#39;s buffer.")
}

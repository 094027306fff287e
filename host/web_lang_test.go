package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// markdownOBV serves OpenBesluitvorming's recorded answers, with its search
// as the live platform sends it at times: markdown in the summaries (a
// summary is a piece of a markdown document) and a motion beside the
// document and the meeting.
func markdownOBV(t *testing.T) *httptest.Server {
	t.Helper()
	root := filepath.Join(wasmbuild.Root(), "testdata", "obv")
	raw, err := os.ReadFile(filepath.Join(root, "obv-search.json"))
	if err != nil {
		t.Fatal(err)
	}
	var search map[string]any
	if err := json.Unmarshal(raw, &search); err != nil {
		t.Fatal(err)
	}
	results := search["results"].([]any)
	doc := results[0].(map[string]any)
	doc["summary"] = "# Actieplan\n## Beslispunten\n- **Begroting** 2024 vaststellen, zie [bijlage](https://example.org/b)"
	motion := map[string]any{}
	for k, v := range doc {
		motion[k] = v
	}
	motion["entityId"], motion["entityType"], motion["entityTypeLabel"] = "motion:notubiz:gemeente:soest:555", "Motion", "Motie"
	motion["title"], motion["summary"] = "Motie over de begroting", "**Verzoekt** het college de begroting te herzien"
	search["results"] = append(results, motion)
	body, _ := json.Marshal(search)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodHead {
			return
		}
		file := ""
		switch {
		case r.URL.Path == "/api/search":
			w.Write(body)
			return
		case r.URL.Path == "/api/sources":
			file = "obv-sources.json"
		case r.URL.Path == "/api/status":
			file = "obv-status.json"
		case strings.HasPrefix(r.URL.Path, "/api/entities/document:"):
			file = "obv-entity-document.json"
		case strings.HasPrefix(r.URL.Path, "/api/entities/meeting:"):
			file = "obv-entity-meeting.json"
		case strings.HasPrefix(r.URL.Path, "/api/entities/motion:"):
			file = "obv-entity-motion.json"
		default:
			w.WriteHeader(404)
			return
		}
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Errorf("fake obv: %v", err)
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// startLangHost is a Host over the markdown OpenBesluitvorming and the
// Rechtspraak fake whose schedulers, limits and quota sampler read clk.
func startLangHost(t *testing.T, clk *schedtest.Clock) *testHost {
	t.Helper()
	if raceEnabled() {
		t.Skip("host-level page tests run without -race (see startTestHost)")
	}
	obv, rs := markdownOBV(t), fakeRechtspraakPlatform(t)
	tmp := t.TempDir()
	cfgPath := filepath.Join(tmp, "plugins.toml")
	body := `
[runtime]
compilation_cache_dir = "` + testCompilationCache(t) + `"
[cache]
dir = "` + filepath.Join(tmp, "cache") + `"
[mcp_rate_limit]
enabled = false
[connectors.obv]
module = "` + wasmbuild.Path(t, "./plugins/obv/cmd") + `"
base_url = "` + obv.URL + `"
private_networks = ["127.0.0.0/8"]
pool_size = 2
[connectors.rechtspraak]
module = "` + wasmbuild.Path(t, "./plugins/rechtspraak/cmd") + `"
base_url = "` + rs.srv.URL + `"
private_networks = ["127.0.0.0/8"]
pool_size = 2
# The fake clock never moves, so no bucket refills: until a quota has
# measured its path it keeps a quarter of its capacity (2.5 of
# Rechtspraak's 10 units), fewer than the status round and the pages
# here take. The limit is not what this test is about.
[connectors.rechtspraak.limits.search]
units = 1000
per = "1s"
[connectors.rechtspraak.limits.content]
units = 1000
per = "1s"
`
	if err := os.WriteFile(cfgPath, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(cfgPath, []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), &Options{Config: cfg, Version: "9.9.9-test", Logger: testLogger(), Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	return &testHost{h: h, url: srv.URL, rechts: rs}
}

// TestLaadstatusChartFromMetrics: the Laadstatus chart counts what
// /metrics counts. Pages spend OpenBesluitvorming's quota; one sample
// later (virtual time) the quota's history in /status.json adds up to the
// granted units /metrics reports, the status page draws it with that sum
// in words, and besluitbron_status leaves the history out of an
// assistant's context.
func TestLaadstatusChartFromMetrics(t *testing.T) {
	clk := schedtest.NewClock(time.Now().Truncate(time.Minute))
	th := startLangHost(t, clk)
	// As Serve starts them: the sampler at once, the checks' first round
	// at the first Advance (their probes spend units too, counted alike).
	stop := th.h.startStatus(context.Background())
	defer stop()
	for _, q := range []string{"begroting", "woningbouw"} {
		if code, body := get(t, th.url+"/?q="+q+"&p=obv"); code != 200 || !strings.Contains(body, "Raadsvoorstel begroting 2024") {
			t.Fatalf("search %s: %d", q, code)
		}
	}
	clk.Advance(10 * time.Second) // one sample

	var granted float64
	for _, m := range metrics(t, th.url)["besluitbron_sched_granted_units_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "quota" && l.GetValue() == "openbesluitvorming.nl" {
				granted += m.GetCounter().GetValue()
			}
		}
	}
	if granted < 2 {
		t.Fatalf("/metrics: %g units granted at openbesluitvorming.nl, want at least the 2 searches", granted)
	}
	_, js := get(t, th.url+"/status.json")
	var snap loadstatus.Snapshot
	if err := json.Unmarshal([]byte(js), &snap); err != nil {
		t.Fatal(err)
	}
	var hist *loadstatus.History
	for _, q := range snap.Quotas {
		if q.Quota == "openbesluitvorming.nl" {
			hist = q.History
		}
	}
	if hist == nil {
		t.Fatalf("no history for openbesluitvorming.nl in /status.json: %s", js)
	}
	var sum float64
	for _, p := range hist.Points {
		sum += p.Units
	}
	if sum != granted {
		t.Errorf("the chart's units add up to %g, /metrics says %g", sum, granted)
	}
	_, page := get(t, th.url+"/status")
	fig := regexp.MustCompile(`(?s)<figure class="quota-chart" id="chart-openbesluitvorming.nl">.*?</figure>`).FindString(page)
	if !strings.Contains(fig, "<svg") || !strings.Contains(fig, fmt.Sprintf("%d eenheden gebruikt", int(granted))) {
		t.Errorf("status page chart for openbesluitvorming.nl: %q", fig)
	}

	cs := mcpSession(t, th.url)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "besluitbron_status", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("besluitbron_status: %v %v", err, res)
	}
	if text := resultText(res); strings.Contains(text, `"history"`) || !strings.Contains(text, "openbesluitvorming.nl") {
		t.Errorf("besluitbron_status carries the chart history (or no quotas): %s", clip(text, 2000))
	}
}

// englishOnDutchPage are words a reader must not see on the Dutch pages
// (whole words, any case).
var englishOnDutchPage = regexp.MustCompile(`(?i)\b(answered|publication|the|results|sources|meeting|motion|mediaobject|offset|limit|error|applied|connector|unreadable|not checked|checked)\b`)

// TestBrowserDutchPagesHaveNoEnglish loads the Dutch search page with
// results from two platforms, a document and the Laadstatus with a quota
// chart in chromium and fails on any English word in the visible text or a
// markdown marker in a snippet; the English toggle then shows English.
func TestBrowserDutchPagesHaveNoEnglish(t *testing.T) {
	ctx := browser(t)
	clk := schedtest.NewClock(time.Now().Truncate(time.Minute))
	th := startLangHost(t, clk)
	stopHistory := th.h.lstatus.StartHistory()
	defer stopHistory()
	th.h.lstatus.CheckAll(context.Background())

	visibleText := func(what string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string]("document.body.innerText"))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return s
	}
	noEnglish := func(what string) {
		t.Helper()
		text := visibleText(what)
		if m := englishOnDutchPage.FindAllString(text, -1); len(m) > 0 {
			t.Errorf("%s shows English %q:\n%s", what, m, text)
		}
	}

	search := th.url + "/?q=begroting&p=obv&p=rechtspraak&f.rechtspraak=http%3A%2F%2Fstandaarden.overheid.nl%2Fowms%2Fterms%2FHoge_Raad_der_Nederlanden"
	step(t, ctx, "the Dutch search page with results", chromedp.Navigate(search),
		chromedp.WaitVisible(chromedp.CSS("#r-obv .result")), chromedp.WaitVisible(chromedp.CSS("#r-rechtspraak .result")))
	screenshot(t, ctx, "lang-1-results-nl")
	noEnglish("the search page")
	snippets, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(".snippet")].map(e => e.innerText)`))
	if err != nil || len(snippets) < 3 {
		t.Fatalf("snippets %q (%v)", snippets, err)
	}
	for _, s := range snippets {
		for _, marker := range []string{"# ", "## ", "**", "]("} {
			if strings.Contains(s, marker) {
				t.Errorf("snippet %q contains the markdown marker %q", s, marker)
			}
		}
	}
	if got := text(t, ctx, "#r-obv"); !strings.Contains(got, "Actieplan Beslispunten Begroting 2024 vaststellen, zie bijlage") ||
		!strings.Contains(got, "Vergadering") || !strings.Contains(got, "Motie") {
		t.Errorf("OpenBesluitvorming's results in Dutch: %q", got)
	}
	if got := text(t, ctx, "#r-rechtspraak"); !strings.Contains(got, "zoekt niet in de volledige tekst") {
		t.Errorf("Rechtspraak's note in Dutch: %q", got)
	}

	step(t, ctx, "a meeting's page", chromedp.Click(chromedp.CSS(`#r-obv a[href*="meeting%3A"]`)), chromedp.WaitVisible(chromedp.CSS("article.document h1")))
	screenshot(t, ctx, "lang-2-document-nl")
	noEnglish("the document page")
	if doc := text(t, ctx, ".doctext"); strings.Contains(doc, "\n- ") || strings.HasPrefix(doc, "- ") {
		t.Errorf("the document shows list markers: %q", doc)
	}

	clk.Advance(10 * time.Second) // the sampler records the searches
	step(t, ctx, "the Laadstatus", chromedp.Navigate(th.url+"/status"), chromedp.WaitVisible(chromedp.CSS(`figure.quota-chart svg`)))
	screenshot(t, ctx, "lang-3-status-nl")
	noEnglish("the Laadstatus")
	if got := text(t, ctx, "#st-obv"); !strings.Contains(got, "Antwoordde in") {
		t.Errorf("the Laadstatus row of obv: %q", got)
	}
	bars, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("figure.quota-chart rect.c-units").length`))
	if bars < 1 {
		t.Error("the chart draws no units although the searches spent some")
	}

	step(t, ctx, "switch to English", chromedp.Click(chromedp.CSS("#lang-switch")), chromedp.WaitVisible(chromedp.CSS("html[lang=en] #st-obv")))
	if got := visibleText("the English Laadstatus"); !strings.Contains(got, "Load status of the platforms") || !strings.Contains(got, "Answered in") || !strings.Contains(got, "Last hour:") {
		t.Errorf("the English Laadstatus: %s", got)
	}
	step(t, ctx, "the English search page", chromedp.Navigate(search), chromedp.WaitVisible(chromedp.CSS("html[lang=en] #r-obv .result")))
	if got := text(t, ctx, "#r-obv"); !strings.Contains(got, "Meeting") || !strings.Contains(got, "Motion") || !strings.Contains(got, "results") {
		t.Errorf("English results: %q", got)
	}
	screenshot(t, ctx, "lang-4-results-en")
}

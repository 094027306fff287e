package web_test

import (
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/host/internal/serve/web"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// englishWords must not be read on a Dutch page (whole words, any case).
var englishWords = regexp.MustCompile(`(?i)\b(answered|answer|publication|the|results|result|sources|meeting|motion|mediaobject|offset|limit|error|applied|connector|unreadable|left out|not checked|platform's)\b`)

var (
	detailsRe = regexp.MustCompile(`(?s)<details[^>]*>\s*<summary>(.*?)</summary>.*?</details>`)
	tagRe     = regexp.MustCompile(`(?s)<[^>]*>`)
	headRe    = regexp.MustCompile(`(?s)<head>.*?</head>`)
)

// visible is the text a reader sees on a page without opening anything:
// a closed disclosure shows its summary only.
func visible(page string) string {
	page = headRe.ReplaceAllString(page, "")
	page = detailsRe.ReplaceAllString(page, " $1 ")
	page = tagRe.ReplaceAllString(page, " ")
	return strings.Join(strings.Fields(html.UnescapeString(page)), " ")
}

// markdownSearch answers with what the platforms really send: markdown in
// snippets, types in English or jargon, connector notes in English.
var markdownSearch = map[string]any{"platform": "obv", "has_more": false, "offset": 0, "total": 1,
	"results": []map[string]any{
		{"id": "meeting:x:1", "type": "Meeting", "title": "Raadsvergadering", "date": "2026-06-25", "organization": "Putten",
			"snippet": "# Actieplan\n## Beslispunten\n- **Vaststellen** van het [plan](https://example.org/p)\n1. `Kredieten`"},
		{"id": "doc:2", "type": "MediaObject", "title": "Bijlage", "organization": "Soest", "snippet": "Tekst"},
		{"id": "motie:3", "type": "Motion", "title": "Motie vreemd aan de orde", "organization": "Soest"},
	},
	"notes": []string{
		"OpenTK has no paging: it returned 4 row(s) (at most 280); offset, limit and sort were applied by this connector to those rows.",
		"category and date filters were applied by this connector to the 6 returned rows; 2 matched.",
		"OpenBesluitvorming returned a full page; has_more is inferred from a full page.",
		"3 result(s) the platform sent in an unreadable shape are left out (result 4: no id).",
		"The scores of 2 hit(s) are left out: Elasticsearch's _score is unreadable (bad).",
		"Something entirely new happened upstream.",
		`organization is matched as contained words ("Utrecht" also matches "Rechtbank Utrecht" and provincie Utrecht); add organization_type to narrow it.`,
	}}

// TestDutchPageSpeaksDutch: the Dutch results page shows no English word
// a reader could see and no markdown marker in a snippet; types are in
// Dutch; known notes are said once per kind in Dutch; an unknown note is
// summarised in Dutch with its words behind a disclosure. The English page
// says the same in English.
func TestDutchPageSpeaksDutch(t *testing.T) {
	f := &fake{answer: func(tool string, _ map[string]any, _ *callinfo.Info) invoke.Answer {
		if tool == "obv_search" {
			return ok(markdownSearch)
		}
		return toolErr("OpenBesluitvorming: list_sources: the platform answered HTTP 500: error")
	}}
	srv := serve(t, f, nil)
	_, body, _ := get(t, srv.URL+"/?q=plan&p=obv")
	text := visible(body)
	if m := englishWords.FindAllString(text, -1); len(m) > 0 {
		t.Errorf("English on the Dutch page: %q\n%s", m, text)
	}
	for _, snip := range regexp.MustCompile(`(?s)<p class="snippet">(.*?)</p>`).FindAllStringSubmatch(body, -1) {
		if s := html.UnescapeString(snip[1]); strings.Contains(s, "# ") || strings.Contains(s, "**") || strings.Contains(s, "](") || strings.Contains(s, "`") {
			t.Errorf("markdown in a snippet: %q", s)
		}
	}
	mustContain(t, text, "Actieplan Beslispunten Vaststellen van het plan Kredieten", "Putten · Vergadering", "Soest · Document", "Soest · Motie",
		"1 resultaat", "OpenBesluitvorming geeft niet alle treffers", "Een deel van wat OpenBesluitvorming stuurde was onleesbaar",
		"OpenBesluitvorming gaf een toelichting bij deze resultaten. Technische toelichting (Engels)")
	if n := strings.Count(text, "onleesbaar"); n != 1 {
		t.Errorf("the kind 'part left out' is said %d times, want once for two such notes", n)
	}
	mustContain(t, body, `<p lang="en">Something entirely new happened upstream.</p>`, "De organisatie wordt als woorden in de naam gezocht")
	if strings.Contains(body, "%!") {
		t.Error("a text was formatted with the wrong arguments (%!)")
	}

	_, body, _ = get(t, srv.URL+"/?q=plan&p=obv&lang=en")
	text = visible(body)
	mustContain(t, text, "Putten · Meeting", "Soest · Motion", "1 result", "OpenBesluitvorming does not give every hit", "Something entirely new happened upstream.")
	if strings.Contains(text, "applied by this connector") || strings.Contains(text, "has_more") {
		t.Errorf("the English page shows a connector's mechanics: %s", text)
	}
}

// TestDocumentListsAndIDs: a document's "- " lines are a list, nested by
// indentation; a trailing record id becomes a link to that record, not
// text; a "document:" label is worded; emphasis markers go; a document
// without a title is named by its type and date, not its id.
func TestDocumentListsAndIDs(t *testing.T) {
	f := &fake{answer: func(_ string, args map[string]any, _ *callinfo.Info) invoke.Answer {
		doc := map[string]any{"platform": "obv", "id": args["entity_id"], "type": "Meeting", "date": "2026-06-25", "organization": "Putten",
			"page": 1, "pages": 1, "text": "## Agenda\n- 1 Opening\n  - document: Raadsvoorstel **begroting** (document:notubiz:gemeente:putten:777)\n- 2 Sluiting\n\nSlot."}
		return ok(doc)
	}}
	srv := serve(t, f, nil)
	code, body, _ := get(t, srv.URL+"/document?p=obv&id=meeting:x:1&terug=/%3Fq%3Dx")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	mustContain(t, body, "<h1>Vergadering, 25 juni 2026</h1>", `<ul class="doclist"><li class="depth-0">1 Opening</li><li class="depth-1"><span class="label">Document:</span> <a href="/document?id=document%3Anotubiz%3Agemeente%3Aputten%3A777&amp;p=obv&amp;terug=%2F%3Fq%3Dx">Raadsvoorstel begroting</a></li><li class="depth-0">2 Sluiting</li></ul>`,
		"<p>Slot.</p>", "<dd>Vergadering</dd>")
	text := visible(body)
	for _, bad := range []string{"- ", "**", "document:notubiz", "meeting:x:1"} {
		if strings.Contains(text, bad) {
			t.Errorf("the document page shows %q: %s", bad, text)
		}
	}
}

// TestPluralForms: one thing is one, in both languages.
func TestPluralForms(t *testing.T) {
	now := time.Date(2026, 6, 30, 10, 0, 0, 0, time.UTC)
	snap := loadstatus.Snapshot{IntervalSeconds: 60, Quotas: []loadstatus.Quota{
		{Quota: "a.example", Limited: true, Units: 1, PerSeconds: 1, Waiting: 1, Connectors: []loadstatus.QuotaUser{{Platform: "obv", Title: "OpenBesluitvorming"}}}}}
	f := &fake{answer: func(string, map[string]any, *callinfo.Info) invoke.Answer { return ok(markdownSearch) }}
	srv := serve(t, f, func(o *web.Options) {
		o.Status = func() loadstatus.Snapshot { return snap }
		o.Now = func() time.Time { return now }
		// The freshness's type is named in obk's words.
		o.Platforms = append(o.Platforms, web.Platform{ID: "obk", Title: "Officiële Bekendmakingen", SearchTool: "obk_search",
			Types: connector.TypeLabels{{Type: "publication", NL: "Publicatie", EN: "Publication"}}})
	})
	_, body, _ := get(t, srv.URL+"/status")
	mustContain(t, body, "elke minuut", "1 verzoek wacht")
	_, body, _ = get(t, srv.URL+"/status?lang=en")
	mustContain(t, body, "Every minute", "1 request waiting")
	_, body, _ = get(t, srv.URL+"/?q=x&p=obv&lang=en")
	if mustContain(t, body, "1 result<"); strings.Contains(body, "1 results") {
		t.Error("1 results")
	}
}

// TestStatusPageInDutch: a platform's state, reason, freshness and limit
// source are worded by the page; the English check message and error
// text stay out of sight (the error behind a disclosure).
func TestStatusPageInDutch(t *testing.T) {
	now := time.Date(2026, 6, 30, 10, 0, 0, 0, time.UTC)
	snap := loadstatus.Snapshot{IntervalSeconds: 300, Platforms: []loadstatus.Status{
		{Platform: "obk", Title: "Officiële Bekendmakingen", State: loadstatus.Up, Reason: loadstatus.Answered, Message: "Officiële Bekendmakingen answered in 4 ms",
			CheckedAt: now.Add(-time.Minute), LatencyMS: 4, Freshness: &loadstatus.Freshness{Newest: "2026-06-29", NewestOf: "publication"}},
		{Platform: "ori", Title: "Open Raadsinformatie", State: loadstatus.Down, Reason: loadstatus.NoAnswer, Message: "Open Raadsinformatie does not answer: dial tcp: connection refused",
			Detail: "dial tcp: connection refused", CheckedAt: now.Add(-time.Minute), DownSince: now.Add(-time.Minute), Failures: 1, FreshnessError: "the platform answered HTTP 500"},
		{Platform: "tk", Title: "Tweede Kamer", State: loadstatus.Unknown, Reason: loadstatus.NotChecked, Message: "not checked yet"},
	}, Quotas: []loadstatus.Quota{
		{Quota: "zoek.officielebekendmakingen.nl", Limited: true, Units: 10, PerSeconds: 30, Source: "the manifest of obk (service zoek)", SourcePlatform: "obk", SourceService: "zoek",
			LimitFrom: "published", LimitWhere: "zoek.officielebekendmakingen.nl", LimitNote: "The search site states it.", LimitNoteNL: "De zoeksite noemt het.",
			Shared: true, Cluster: "fallback", Connectors: []loadstatus.QuotaUser{{Platform: "obk", Title: "Officiële Bekendmakingen", Service: "zoek"}, {Platform: "tk", Title: "Tweede Kamer", Service: "obk"}}},
	}}
	f := &fake{answer: func(string, map[string]any, *callinfo.Info) invoke.Answer { return ok(markdownSearch) }}
	srv := serve(t, f, func(o *web.Options) {
		o.Status = func() loadstatus.Snapshot { return snap }
		o.Now = func() time.Time { return now }
		// The freshness's type is named in obk's words.
		o.Platforms = append(o.Platforms, web.Platform{ID: "obk", Title: "Officiële Bekendmakingen", SearchTool: "obk_search",
			Types: connector.TypeLabels{{Type: "publication", NL: "Publicatie", EN: "Publication"}}})
	})
	_, body, _ := get(t, srv.URL+"/status")
	text := visible(body)
	if m := englishWords.FindAllString(text, -1); len(m) > 0 {
		t.Errorf("English on the Dutch status page: %q\n%s", m, text)
	}
	mustContain(t, text, "Antwoordde in 4 ms.", "nieuwste publicatie: 29 juni 2026", "Antwoordt niet.", "Nog niet gecontroleerd.",
		"De actualiteit kon niet worden opgevraagd.", "gepubliceerd door het platform (zoek.officielebekendmakingen.nl)", "De zoeksite noemt het.",
		"Gepubliceerd door het platform: zoek.officielebekendmakingen.nl", "Officiële Bekendmakingen en Tweede Kamer", "Replica's: Redis onbereikbaar")
	if strings.Contains(text, "The search site states it.") {
		t.Error("the Dutch page shows the manifest's English note on the limit")
	}
	mustContain(t, body, `<p lang="en">dial tcp: connection refused</p>`)
	_, body, _ = get(t, srv.URL+"/status?lang=en")
	mustContain(t, visible(body), "Answered in 4 ms.", "newest publication: 29 June 2026", "Does not answer.", "published by the platform (zoek.officielebekendmakingen.nl)", "The search site states it.")
}

// TestNoFullTextLinkWithoutText: a platform whose document tool reads only
// some categories (OpenTK: Document and Verslag) offers "volledige tekst"
// only for those; an activity links to its own page instead of to a
// document page that can only fail. It catches the page offering a
// full-text link for every result.
func TestNoFullTextLinkWithoutText(t *testing.T) {
	f := &fake{answer: func(tool string, _ map[string]any, _ *callinfo.Info) invoke.Answer {
		return ok(map[string]any{"platform": "opentk", "has_more": false, "offset": 0, "results": []map[string]any{
			{"id": "2024D1", "type": "Document", "title": "Brief over stikstof", "url": "https://berthub.eu/tkconv/document.html?nummer=2024D1"},
			{"id": "2024A9", "type": "Activiteit", "title": "Commissiedebat stikstof", "url": "https://berthub.eu/tkconv/activiteit.html?nummer=2024A9"},
		}})
	}}
	srv := serve(t, f, func(o *web.Options) {
		o.Platforms = append(o.Platforms, web.Platform{ID: "opentk", Title: "OpenTK", SearchTool: "opentk_search", DocumentTool: "opentk_get_document",
			DocumentArg: "nummer", DocumentCategories: []string{"Document", "Verslag"}, Profile: &connector.SearchProfile{Tool: "search", QueryArg: "query", MaxLimit: 50}})
	})
	_, body, _ := get(t, srv.URL+"/?q=stikstof&p=opentk")
	if !strings.Contains(body, "/document?id=2024D1") {
		t.Errorf("the document lacks its full-text link:\n%s", body)
	}
	if strings.Contains(body, "/document?id=2024A9") {
		t.Errorf("the activity offers a full-text link to a text that does not exist:\n%s", body)
	}
	mustContain(t, body, `<a href="https://berthub.eu/tkconv/activiteit.html?nummer=2024A9" rel="noopener noreferrer external">Commissiedebat stikstof</a>`)
}

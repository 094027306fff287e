package obv_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

const base = "https://openbesluitvorming.nl"

func TestManifestValid(t *testing.T) {
	m := sdktest.CheckManifest(t, obv.Plugin())
	if s, _ := m.Service(obv.Service); s.Units != 60 {
		t.Errorf("api limit = %v units, want 60", s.Units)
	}
}

func TestSearchCost(t *testing.T) {
	for _, c := range []struct {
		limit int
		want  float64
	}{{-1, 1}, {0, 1}, {1, 1}, {24, 1}, {25, 2}, {48, 2}, {49, 3}, {100, 5}, {1441, 61}} {
		if got := obv.SearchCost(c.limit); got != c.want {
			t.Errorf("SearchCost(%d) = %v, want %v", c.limit, got, c.want)
		}
	}
}

func TestSearch(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/api/search?*", 200, "../../testdata/obv/obv-search.json").
		Handle(base+"/api/sources", 200, "../../testdata/obv/obv-sources.json")
	res := sdktest.Call(t, obv.Plugin(), h, "search", `{"query":"begroting","organization":"soest","limit":48,"offset":24}`)
	var sr sdk.SearchResult
	sdktest.Decode(t, res, &sr)
	reqs := h.Requests()
	if len(reqs) != 2 || reqs[0].URL != base+"/api/sources" || reqs[0].CacheClass != connector.ClassList {
		t.Fatalf("requests %+v, want the source list (to read organization) and the search", reqs)
	}
	r := reqs[1]
	if r.URL != base+"/api/search?limit=48&offset=24&organization=soest&query=begroting" || r.Cost != 2 || r.Service != "api" || r.CacheClass != connector.ClassSearch {
		t.Errorf("request = %+v", r)
	}
	if len(sr.Results) != 2 || !sr.HasMore || sr.Total == nil || *sr.Total != 42 || !sr.TotalIsApproximate || sr.Offset != 24 {
		t.Fatalf("result = %+v", sr)
	}
	first := sr.Results[0]
	if first.ID != "document:notubiz:gemeente:soest:12345" || first.Date != "2024-11-07" || first.Organization != "Gemeente Soest" ||
		first.Snippet != "De begroting voor 2024 bedraagt..." || first.Extra["obv"]["matched_page"] != float64(3) {
		t.Errorf("first = %+v", first)
	}
	if got := sr.Results[1].Date; got != "2026-06-25" {
		t.Errorf("Dutch date without sortDate: %q, want 2026-06-25", got)
	}
	// The citation is the platform's reader page, never the API; a
	// placeholder download URL ("https://...") is not passed on.
	if first.URL != "https://openbesluitvorming.nl/?organization=soest&view=document%3Anotubiz%3Agemeente%3Asoest%3A12345" {
		t.Errorf("url = %q, want the reader page", first.URL)
	}
	if _, ok := first.Extra["obv"]["download_url"]; ok {
		t.Errorf("placeholder download URL passed on: %v", first.Extra["obv"])
	}
	if got := first.Extra["obv"]["api_url"]; got != base+"/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A12345" {
		t.Errorf("api_url = %v", got)
	}
}

// TestCitationIsAPageOnHTTPS holds obv to the citation rule: every url is
// a page a person opens (the reader, not the JSON API), on https, and
// search and get_document give the same one for an entity. It catches a
// meeting or motion linked to /api/entities, or the two tools disagreeing.
func TestCitationIsAPageOnHTTPS(t *testing.T) {
	h := sdktest.NewHost(t).
		Handle(base+"/api/search?*", 200, "../../testdata/obv/obv-search.json").
		HandleBody(base+"/api/entities/meeting%3Anotubiz%3Agemeente%3Aputten%3A1423776", 200,
			[]byte(`{"entityId":"meeting:notubiz:gemeente:putten:1423776","entityType":"Meeting","title":"Raadsvergadering","agenda":[{"id":"a1","title":"Stikstof","number":"1"}]}`)).
		Handle(base+"/api/entities/motion*", 200, "../../testdata/obv/obv-entity-motion.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "search", `{"query":"stikstof"}`), &sr)
	for _, r := range sr.Results {
		if !strings.HasPrefix(r.URL, "https://openbesluitvorming.nl/?") || strings.Contains(r.URL, "/api/") {
			t.Errorf("%s: url %q is not the reader page", r.ID, r.URL)
		}
	}
	meeting := sr.Results[1]
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "get_document", `{"entity_id":"meeting:notubiz:gemeente:putten:1423776"}`), &d)
	if d.URL != meeting.URL {
		t.Errorf("get_document url %q, search url %q: one entity, two citations", d.URL, meeting.URL)
	}
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "get_document", `{"entity_id":"motion:ibabs:gemeente:houten:..."}`), &d)
	if d.URL != "https://openbesluitvorming.nl/?organization=houten&view=motion%3Aibabs%3Agemeente%3Ahouten%3A..." {
		t.Errorf("motion url = %q", d.URL)
	}
	// An id without the source segment still gets a page that opens it:
	// the reader needs a search to stand on.
	if got := obv.PageURL("odd:1", "Raadsvoorstel"); got != "https://openbesluitvorming.nl/?query=Raadsvoorstel&view=odd%3A1" {
		t.Errorf("PageURL(odd:1) = %q", got)
	}
}

func TestSearchErrors(t *testing.T) {
	cases := []struct{ name, args, want string }{
		{"neither", `{}`, "give query or organization"},
		{"limit", `{"query":"x","limit":101}`, `"limit"`},
		{"date", `{"query":"x","date_from":"7-11-2024"}`, `"date_from"`},
		{"order", `{"query":"x","date_from":"2025-01-01","date_to":"2024-01-01"}`, "after date_to"},
		{"type", `{"query":5}`, `"query"`},
		{"unknown", `{"query":"x","colour":"red"}`, "colour"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			res := sdktest.Call(t, obv.Plugin(), h, "search", c.args)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want a tool error naming %s", res, c.want)
			}
			if n := len(h.Requests()); n != 0 {
				t.Errorf("bad arguments reached the platform (%d requests)", n)
			}
		})
	}
}

func TestSearchPlatformErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"400", 400, `{"error":"Onbekende organisatie: xyz"}`, "HTTP 400: Onbekende organisatie: xyz"},
		{"500", 500, `{"error": "Zoeken mislukt. Probeer het opnieuw of meld deze fout met het request ID.", "request_id": "3f9c1a2b"}`, "Zoeken mislukt"},
		{"malformed", 200, `{"results": [`, "not the expected JSON"},
		{"wrong shape", 200, `{"foo": 1}`, "lacks results"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t).HandleBody(base+"/api/search?*", c.status, []byte(c.body)).Handle(base+"/api/sources", 200, "../../testdata/obv/obv-sources.json")
			res := sdktest.Call(t, obv.Plugin(), h, "search", `{"organization":"xyz"}`)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want tool error containing %q", res, c.want)
			}
		})
	}
	h := sdktest.NewHost(t).HandleErr(base+"/api/search?*", &connector.FetchError{Kind: connector.FetchUnavailable, Message: "connection reset"})
	res := sdktest.Call(t, obv.Plugin(), h, "search", `{"query":"x"}`)
	if !res.IsError || !strings.Contains(res.Text, "connection reset") {
		t.Errorf("fetch error: %+v", res)
	}
}

// endPhrase closes the long test documents: Dutch characters (é, ë, ï, ü)
// must reach the last page intact.
const endPhrase = "Slot: één reünie met Zoë, naïef maar gemeend."

const longID = "document:ibabs:gemeente:utrecht:990101"

// longEntity is an OpenBesluitvorming document entity in the platform's
// shape (testdata/obv/obv-entity-document.json) whose markdownText is over
// 1 MB, with quotes and backslashes the answer escapes.
func longEntity(t *testing.T) []byte {
	var md strings.Builder
	md.WriteString("# Rapport rekenkamercommissie\n\n")
	for i := 0; md.Len() < 1_200_000; i++ {
		fmt.Fprintf(&md, "## %d. Bevinding\n\nDe raad bespreekt het café, de ijsbaan en één \"naïeve\" coördinatie (zie C:\\stukken\\%d).\n\n", i, i)
	}
	md.WriteString(endPhrase)
	b, err := json.Marshal(map[string]any{
		"entityId": longID, "entityType": "Document", "entityTypeLabel": "Document", "title": "Rapport rekenkamercommissie: één reünie",
		"organization": "Utrecht", "date": "27 juni 2024", "sortDate": "2024-06-27 00:00:00", "markdownText": md.String(),
		"downloadUrl": "https://utrecht.bestuurlijkeinformatie.nl/Agenda/Document/990101", "contentType": "application/pdf",
		"pdfUrl": "https://utrecht.bestuurlijkeinformatie.nl/Agenda/Document/990101", "meetingId": "meeting:ibabs:gemeente:utrecht:99010",
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGetDocumentLongKept: a document of over 1 MB is decoded once, its
// pages come from the host after that, its last page ends with the
// document's last phrase, and a kept page is what a fresh extraction
// gives.
func TestGetDocumentLongKept(t *testing.T) {
	body := longEntity(t)
	h := sdktest.NewHost(t).HandleBody(base+"/api/entities/document%3Aibabs%3Agemeente%3Autrecht%3A990101", 200, body)
	args := func(p int) string { return fmt.Sprintf(`{"entity_id":%q,"page":%d}`, longID, p) }
	docs := sdktest.ReadDocument(t, obv.Plugin(), h, "get_document", args)
	first, last := docs[0], docs[len(docs)-1]
	want := sdk.Document{
		Platform: "obv", ID: longID, Type: "Document", Title: "Rapport rekenkamercommissie: één reünie", Date: "2024-06-27",
		Organization: "Gemeente Utrecht", URL: "https://openbesluitvorming.nl/?organization=utrecht&view=document%3Aibabs%3Agemeente%3Autrecht%3A990101", Format: "markdown",
		Page: 1, Pages: first.Pages, Text: first.Text,
		Extra: map[string]map[string]any{"obv": {"entity_type_label": "Document", "meeting_id": "meeting:ibabs:gemeente:utrecht:99010", "content_type": "application/pdf",
			"download_url": "https://utrecht.bestuurlijkeinformatie.nl/Agenda/Document/990101", "api_url": base + "/api/entities/document%3Aibabs%3Agemeente%3Autrecht%3A990101"}},
	}
	if diff := cmp.Diff(want, first); diff != "" || first.Pages < 50 || !strings.HasPrefix(first.Text, "# Rapport rekenkamercommissie\n\n## 0. Bevinding") {
		t.Fatalf("page 1 of %d (-want +got):\n%s", first.Pages, diff)
	}
	if !strings.HasSuffix(last.Text, endPhrase) || !strings.Contains(last.Text, `één "naïeve" coördinatie (zie C:\stukken\`) {
		t.Errorf("last page %d ends %q", last.Page, last.Text[max(0, len(last.Text)-120):])
	}
	var all strings.Builder
	for _, d := range docs {
		all.WriteString(d.Text)
	}
	var e struct{ MarkdownText string }
	if err := json.Unmarshal(body, &e); err != nil || all.String() != e.MarkdownText {
		t.Errorf("the pages joined (%d bytes) are not the markdownText (%d bytes): %v", all.Len(), len(e.MarkdownText), err)
	}
	if n := h.TextsKept(); n != 1 {
		t.Errorf("the text was extracted %d times, want once", n)
	}
	if r := h.Requests(); len(r) != 1 || r[0].CacheClass != connector.ClassDocument || r[0].Cost != 1 {
		t.Errorf("%d fetches for %d pages, want 1 (%+v)", len(r), len(docs), r)
	}
	if n := h.TextPagesServed(); n != len(docs)-1 {
		t.Errorf("%d pages served from the kept text, want %d", n, len(docs)-1)
	}

	// A kept page equals the same page extracted afresh.
	mid := len(docs) / 2
	h.ForgetTexts()
	var fresh sdk.Document
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "get_document", args(mid)), &fresh)
	if diff := cmp.Diff(docs[mid-1], fresh); diff != "" {
		t.Errorf("kept page %d differs from a fresh extraction (-kept +fresh):\n%s", mid, diff)
	}
	if n := h.TextsKept(); n != 2 {
		t.Errorf("after ForgetTexts: %d extractions, want 2", n)
	}
	res := sdktest.Call(t, obv.Plugin(), h, "get_document", args(999))
	if !res.IsError || !strings.Contains(res.Text, fmt.Sprintf("has %d page(s)", len(docs))) {
		t.Errorf("page out of range: %+v", res)
	}
}

// TestGetDocumentOptionalPartsFailSoft: an agenda, recordings or title of
// another shape are left out with a note; the rest of the entity reads.
func TestGetDocumentOptionalPartsFailSoft(t *testing.T) {
	body := `{"entityId":"meeting:notubiz:gemeente:soest:1","entityType":"Meeting","title":{"nl":"Raad"},"organization":"Soest","sortDate":"2024-11-07 20:00:00",
 "agenda":[{"id":"a1","title":"Opening","number":"1","documents":[],"agenda_items":[]}],
 "motions":[{"name":"M1 Woningbouw","result":"aangenomen","tally":{"in_favour":"twintig","against":11}}],
 "recordings":[{"id":"r1","media_type":"video","duration_seconds":"3:25:04"}]}`
	h := sdktest.NewHost(t).HandleBody(base+"/api/entities/meeting%3Anotubiz%3Agemeente%3Asoest%3A1", 200, []byte(body))
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "get_document", `{"entity_id":"meeting:notubiz:gemeente:soest:1"}`), &d)
	if d.Text != "## Agenda\n- 1 Opening\n" || d.Title != "" || d.Date != "2024-11-07" || d.Organization != "Gemeente Soest" {
		t.Errorf("document = %+v", d)
	}
	notes := fmt.Sprint(d.Extra["obv"]["notes"])
	for _, want := range []string{"title of this entity is unreadable", "motions of this entity is unreadable", "recordings of this entity is unreadable"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %s lack %q", notes, want)
		}
	}
	// The core stays strict: without entityId it is a tool error.
	h = sdktest.NewHost(t).HandleBody(base+"/api/entities/meeting%3Anotubiz%3Agemeente%3Asoest%3A1", 200, []byte(`{"title":"Raad"}`))
	if res := sdktest.Call(t, obv.Plugin(), h, "get_document", `{"entity_id":"meeting:notubiz:gemeente:soest:1"}`); !res.IsError || !strings.Contains(res.Text, "lacks entityId") {
		t.Errorf("no entityId: %+v", res)
	}
}

func TestGetMeetingAndMotion(t *testing.T) {
	h := sdktest.NewHost(t).
		Handle(base+"/api/entities/meeting%3Anotubiz%3Agemeente%3Asoest%3A830424", 200, "../../testdata/obv/obv-entity-meeting.json").
		Handle(base+"/api/entities/motion*", 200, "../../testdata/obv/obv-entity-motion.json").
		HandleBody(base+"/api/entities/document%3Ax%3Anope", 404, []byte(`{"error":"Not found"}`))
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "get_document", `{"entity_id":"meeting:notubiz:gemeente:soest:830424"}`), &d)
	for _, want := range []string{"## Agenda", "Raadsvoorstel begroting 2024", "M1 Woningbouw Soesterberg: aangenomen (voor 20, tegen 11)", "[0:00:00] Goedenavond"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("meeting text lacks %q:\n%s", want, d.Text)
		}
	}
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "get_document", `{"entity_id":"motion:ibabs:gemeente:houten:..."}`), &d)
	if d.Title != "045-2022 M Essenkade verhogen duurzaamheid" || !strings.Contains(d.Text, "Kasius, S. (Partij ITH): tegen") {
		t.Errorf("motion = %+v", d)
	}
	res := sdktest.Call(t, obv.Plugin(), h, "get_document", `{"entity_id":"document:x:nope"}`)
	if !res.IsError || !strings.Contains(res.Text, "no entity") {
		t.Errorf("404: %+v", res)
	}
}

func TestListSources(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/api/sources?implemented=true", 200, "../../testdata/obv/obv-sources.json")
	var l sdk.ListResult
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "list_sources", `{}`), &l)
	if l.Count != 1 || l.Items[0].ID != "soest" || l.Items[0].Type != "gemeente" || h.Requests()[0].CacheClass != connector.ClassList {
		t.Errorf("sources = %+v", l)
	}
}

// testdata/obv/obv-status.json is reconstructed from the platform's
// published StatusResponse type (web/status_api.ts, src/types.ts of
// OpenBesluitvorming); values are illustrative.
func TestStatus(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/api/status", 200, "../../testdata/obv/obv-status.json")
	var sr obv.StatusResult
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "status", `{}`), &sr)
	r := h.Requests()[0]
	if r.URL != base+"/api/status" || r.Cost != 1 || r.CacheClass != obv.ClassStatus || r.Service != obv.Service {
		t.Errorf("request = %+v", r)
	}
	if sr.GeneratedAt != "2026-06-30T08:00:00.000Z" || sr.WindowHours != 36 || !sr.IndexActivityAvailable {
		t.Errorf("header = %+v", sr)
	}
	wantCounts := map[string]int{"failing": 1, "stale": 1, "ok": 1, "discontinued": 1}
	if diff := cmp.Diff(wantCounts, sr.Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	// Default: problems only, worst first.
	var keys []string
	for _, s := range sr.Sources {
		keys = append(keys, s.Key)
	}
	if diff := cmp.Diff([]string{"houten", "lopik"}, keys); diff != "" {
		t.Errorf("problem sources (-want +got):\n%s", diff)
	}
	if len(sr.Suppliers) != 2 || sr.Suppliers[0].State != "degraded" || sr.Suppliers[0].FailedCount != 4 {
		t.Errorf("suppliers = %+v", sr.Suppliers)
	}
	if len(sr.Notes) != 2 || !strings.Contains(sr.Notes[0], "Houten (houten, via ibabs): failing") || !strings.Contains(sr.Notes[0], "3 days before") {
		t.Errorf("notes = %q", sr.Notes)
	}
}

func TestStatusFilters(t *testing.T) {
	for _, c := range []struct {
		args string
		want []string
		note string
	}{
		{`{"source":"soest"}`, []string{"soest"}, "Soest (soest, via notubiz): current"},
		{`{"source":"SOEST"}`, []string{"soest"}, "newest meeting held 2026-07-09"},
		{`{"source":"haaren"}`, []string{"haaren"}, "succeeded by Land van Cuijk"},
		{`{"state":"all"}`, []string{"houten", "lopik", "soest", "haaren"}, ""},
		{`{"state":"ok"}`, []string{"soest"}, ""},
		{`{"supplier":"notubiz","state":"all"}`, []string{"soest", "haaren"}, ""},
		{`{"source":"soest","state":"failing"}`, nil, ""},
	} {
		h := sdktest.NewHost(t).Handle(base+"/api/status", 200, "../../testdata/obv/obv-status.json")
		var sr obv.StatusResult
		sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "status", c.args), &sr)
		var keys []string
		for _, s := range sr.Sources {
			keys = append(keys, s.Key)
		}
		if diff := cmp.Diff(c.want, keys); diff != "" {
			t.Errorf("%s: sources (-want +got):\n%s", c.args, diff)
		}
		if c.note != "" && (len(sr.Notes) == 0 || !strings.Contains(sr.Notes[0], c.note)) {
			t.Errorf("%s: notes %q lack %q", c.args, sr.Notes, c.note)
		}
	}
}

func TestStatusErrors(t *testing.T) {
	for _, c := range []struct{ name, args, body, want string }{
		{"unknown source", `{"source":"nergens"}`, "", `no source "nergens"`},
		{"unknown supplier", `{"supplier":"acme"}`, "", `argument "supplier": "acme" is not a value it accepts; accepted: "ibabs", "notubiz"`},
		{"bad state", `{"state":"sleepy"}`, "", `argument "state"`},
		{"wrong shape", `{}`, `{"generatedAt":"x"}`, "lacks sources"},
		{"malformed", `{}`, `{"sources": [`, "not the expected JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			if c.body != "" {
				h.HandleBody(base+"/api/status", 200, []byte(c.body))
			} else {
				h.Handle(base+"/api/status", 200, "../../testdata/obv/obv-status.json")
			}
			res := sdktest.Call(t, obv.Plugin(), h, "status", c.args)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want a tool error containing %q", res, c.want)
			}
		})
	}
	h := sdktest.NewHost(t).HandleBody(base+"/api/status", 500, []byte(`{"error":"status ophalen mislukt"}`))
	if res := sdktest.Call(t, obv.Plugin(), h, "status", `{}`); !res.IsError || !strings.Contains(res.Text, "HTTP 500: status ophalen mislukt") {
		t.Errorf("500: %+v", res)
	}
}

// TestDocumentBadPageNeverReachesThePlatform: a page below 1 is refused
// before the document is fetched (it used to be fetched, then refused).
func TestDocumentBadPageNeverReachesThePlatform(t *testing.T) {
	h := sdktest.NewHost(t)
	res := sdktest.Call(t, obv.Plugin(), h, "get_document", `{"entity_id":"document:notubiz:gemeente:soest:1","page":-2}`)
	if !res.IsError || !strings.Contains(res.Text, `"page": -2 is not a page number`) {
		t.Errorf("got %+v, want a tool error naming the page", res)
	}
	if n := len(h.Requests()); n != 0 {
		t.Errorf("a bad page reached the platform (%d requests)", n)
	}
}

// TestSearchOptionalPartsFailSoft: a result of another shape or without
// entityId, an unreadable matchedPage, total or hasMore cost that part
// and a note, not the search; only when no result is readable is it an
// error.
func TestSearchOptionalPartsFailSoft(t *testing.T) {
	body := `{"results":[
 {"entityId":"document:notubiz:gemeente:soest:1","entityType":"Document","title":"Eén","organization":"Soest","sortDate":"2024-11-07 00:00:00","matchedPage":"3"},
 {"entityType":"Document","title":"zonder id"},
 {"entityId":"document:notubiz:gemeente:soest:3","title":{"nl":"Drie"}},
 {"entityId":"document:notubiz:gemeente:soest:4","title":"Vier","pageCount":12}],
 "totalCount":"veel"}`
	h := sdktest.NewHost(t).HandleBody(base+"/api/search?*", 200, []byte(body))
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "search", `{"query":"x","limit":4}`), &sr)
	if len(sr.Results) != 2 || sr.Results[0].Title != "Eén" || sr.Results[0].Extra["obv"]["matched_page"] != nil ||
		sr.Results[1].Extra["obv"]["page_count"] != float64(12) || sr.Total != nil || !sr.HasMore {
		t.Errorf("result = %+v", sr)
	}
	notes := strings.Join(sr.Notes, "\n")
	for _, want := range []string{"gave no hasMore; has_more is inferred", "total is unreadable", "2 result(s) the platform sent in an unreadable shape are left out (result 2: no entityId)", "matched page or page count of some results is unreadable"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", sr.Notes, want)
		}
	}
	h = sdktest.NewHost(t).HandleBody(base+"/api/search?*", 200, []byte(`{"results":[{"title":"a"},{"entityId":5}],"hasMore":false}`))
	if res := sdktest.Call(t, obv.Plugin(), h, "search", `{"query":"x"}`); !res.IsError || !strings.Contains(res.Text, "none of the platform's 2 results is readable") {
		t.Errorf("no readable result: %+v", res)
	}
}

// TestStatusOptionalPartsFailSoft: a source row without sourceKey, an
// unreadable suppliers list and a missing windowHours are left out with
// notes; only a status without one readable source is an error.
func TestStatusOptionalPartsFailSoft(t *testing.T) {
	body := `{"generatedAt":"2026-06-30T08:00:00.000Z","indexActivityAvailable":true,"suppliers":"n/a","sources":[
 {"sourceKey":"soest","label":"Soest","supplier":"notubiz","state":"ok","lastSuccessAt":"2026-06-30T02:00:00.000Z"},
 {"label":"Zonder sleutel","state":"failing"},
 {"sourceKey":"houten","label":"Houten","supplier":"ibabs","state":"failing","indexedDocuments":"veel"}]}`
	h := sdktest.NewHost(t).HandleBody(base+"/api/status", 200, []byte(body))
	var sr obv.StatusResult
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "status", `{"state":"all"}`), &sr)
	if len(sr.Sources) != 1 || sr.Sources[0].Key != "soest" || len(sr.Suppliers) != 0 || sr.WindowHours != 0 || sr.Counts["ok"] != 1 || sr.Counts["failing"] != 0 {
		t.Errorf("status = %+v", sr)
	}
	notes := strings.Join(sr.Notes, "\n")
	for _, want := range []string{"imported successfully within the platform's window (its length unknown)", "lacks windowHours", "unreadable suppliers", "2 source row(s) of the platform are unreadable"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", sr.Notes, want)
		}
	}
	// The supplier filter still filters the sources without the list.
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "status", `{"supplier":"ibabs","state":"all"}`), &sr)
	if len(sr.Sources) != 0 {
		t.Errorf("supplier ibabs: sources %+v", sr.Sources)
	}
	h = sdktest.NewHost(t).HandleBody(base+"/api/status", 200, []byte(`{"windowHours":36,"suppliers":[],"sources":[{"label":"x"}]}`))
	if res := sdktest.Call(t, obv.Plugin(), h, "status", `{}`); !res.IsError || !strings.Contains(res.Text, "none of the platform's 1 sources is readable") {
		t.Errorf("no readable source: %+v", res)
	}
}

// PageURL writes its query by hand; it must be what url.Values encodes.
func TestPageURLIsURLValues(t *testing.T) {
	for _, c := range [][2]string{
		{"document:notubiz:gemeente:soest:12345", "Raadsvoorstel"}, {"odd:1", "Raadsvoorstel"}, {"odd:1", "  "},
		{"a:b:c::e", "t&u=v"}, {"x y:z/ä:gemeente:Den Haag?:1", "é & <b>"}, {"", ""}, {"motion:ibabs:provincie:Noord-Holland:7", ""},
	} {
		id, title := c[0], c[1]
		q := url.Values{}
		if parts := strings.Split(id, ":"); len(parts) >= 5 && parts[3] != "" {
			q.Set("organization", parts[3])
		} else {
			q.Set("query", firstNonEmptyTest(strings.TrimSpace(title), id))
		}
		q.Set("view", id)
		if got, want := obv.PageURL(id, title), obv.PageBase+"/?"+q.Encode(); got != want {
			t.Errorf("PageURL(%q, %q) = %q, want %q", id, title, got, want)
		}
	}
}

func firstNonEmptyTest(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

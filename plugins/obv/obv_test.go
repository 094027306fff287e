package obv_test

import (
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
	h := sdktest.NewHost(t).Handle(base+"/api/search?*", 200, "../../testdata/obv/obv-search.json")
	res := sdktest.Call(t, obv.Plugin(), h, "search", `{"query":"begroting","organization":"soest","limit":48,"offset":24}`)
	var sr sdk.SearchResult
	sdktest.Decode(t, res, &sr)
	reqs := h.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.URL != base+"/api/search?limit=48&offset=24&organization=soest&query=begroting" || r.Cost != 2 || r.Service != "api" || r.CacheClass != connector.ClassSearch {
		t.Errorf("request = %+v", r)
	}
	if len(sr.Results) != 2 || !sr.HasMore || sr.Total == nil || *sr.Total != 42 || !sr.TotalIsApproximate || sr.Offset != 24 {
		t.Fatalf("result = %+v", sr)
	}
	first := sr.Results[0]
	if first.ID != "document:notubiz:gemeente:soest:12345" || first.Date != "2024-11-07" || first.Organization != "Soest" ||
		first.Snippet != "De begroting voor 2024 bedraagt..." || first.Extra["obv"]["matched_page"] != float64(3) {
		t.Errorf("first = %+v", first)
	}
	if got := sr.Results[1].Date; got != "2026-06-25" {
		t.Errorf("Dutch date without sortDate: %q, want 2026-06-25", got)
	}
	if !strings.HasPrefix(first.URL, base+"/api/entities/document%3Anotubiz") {
		t.Errorf("placeholder download URL should fall back to the entity record, got %q", first.URL)
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
			h := sdktest.NewHost(t).HandleBody(base+"/api/search?*", c.status, []byte(c.body))
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

func TestGetDocumentPaging(t *testing.T) {
	long := strings.Repeat("Één regel over de begroting van Soest.\n", 30000) // ≈1.2 MB
	body := `{"entityId":"document:notubiz:gemeente:soest:12345","entityType":"Document","title":"Groot","organization":"Soest","sortDate":"2024-11-07 00:00:00","markdownText":` + quote(long) + `}`
	h := sdktest.NewHost(t).HandleBody(base+"/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A12345", 200, []byte(body))
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "get_document", `{"entity_id":"document:notubiz:gemeente:soest:12345","page":2}`), &d)
	if d.Page != 2 || d.Pages < 50 || len(d.Text) > sdk.TextPageSize || !strings.HasPrefix(d.Text, "Één") {
		t.Errorf("page %d of %d, %d bytes, starts %q", d.Page, d.Pages, len(d.Text), d.Text[:10])
	}
	r := h.Requests()[0]
	if r.CacheClass != connector.ClassDocument || r.Cost != 1 {
		t.Errorf("request = %+v", r)
	}
	res := sdktest.Call(t, obv.Plugin(), h, "get_document", `{"entity_id":"document:notubiz:gemeente:soest:12345","page":999}`)
	if !res.IsError || !strings.Contains(res.Text, `"page"`) {
		t.Errorf("page out of range: %+v", res)
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

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\n':
			b.WriteString(`\n`)
		case '"':
			b.WriteString(`\"`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
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
		{"unknown supplier", `{"supplier":"acme"}`, "", `no supplier "acme" (the platform has ibabs, notubiz)`},
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

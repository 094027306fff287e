package example_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/example"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

const base = "https://openbesluitvorming.nl"

// fetched is the one request a call made, as "URL service cost class".
func fetched(t *testing.T, h *sdktest.Host) string {
	t.Helper()
	r := h.Requests()
	if len(r) != 1 {
		t.Fatalf("%d requests, want 1: %+v", len(r), r)
	}
	return fmt.Sprintf("%s %s %v %s", r[0].URL, r[0].Service, r[0].Cost, r[0].CacheClass)
}

func TestManifest(t *testing.T) {
	m := sdktest.CheckManifest(t, example.Plugin())
	if s, ok := m.Service("api"); !ok || s.Units != 60 || s.Host != "openbesluitvorming.nl" || s.LimitOrigin() != connector.LimitPublished || s.LimitWhere == "" {
		t.Errorf("service api = %+v, want 60 units on openbesluitvorming.nl", s)
	}
	for _, tool := range m.Tools {
		var schema struct {
			AdditionalProperties *bool `json:"additionalProperties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
			t.Errorf("%s: schema lacks additionalProperties:false (%v)", tool.Name, err)
		}
		if tool.CostNote == "" {
			t.Errorf("%s: no cost note", tool.Name)
		}
	}
	if m.SearchProfile == nil || m.SearchFilter == nil || m.Freshness == nil || m.DescriptionNL == "" {
		t.Fatalf("manifest lacks a field the host reads: %+v", m)
	}
	// Validate is what the host runs: a profile naming no tool is refused.
	broken := m.Clone()
	broken.SearchProfile.Organization.ListTool = "list_organisations"
	if err := broken.Validate(); err == nil || !strings.Contains(err.Error(), "search_profile.organization.list_tool") {
		t.Errorf("a profile naming a missing list tool validated: %v", err)
	}
}

// TestSearchProfileAndFreshness: the arguments the host builds from the
// manifest (besluitbron_search's, the Laadstatus's) are ones the search
// tool takes, and give what the host reads.
func TestSearchProfileAndFreshness(t *testing.T) {
	m := example.Plugin().Manifest
	sp := m.SearchProfile
	args, _ := json.Marshal(map[string]any{sp.QueryArg: "klimaat", sp.Organization.Arg: "soest", sp.DateFromArg: "2024-01-01", sp.DateToArg: "2024-12-31", "limit": sp.MaxLimit})
	h := sdktest.NewHost(t).Handle(base+"/api/search?*", 200, "testdata/search.json")
	sdktest.Decode(t, sdktest.Call(t, example.Plugin(), h, sp.Tool, string(args)), &sdk.SearchResult{})
	if got, want := fetched(t, h), base+"/api/search?dateFrom=2024-01-01&dateTo=2024-12-31&limit=100&organization=soest&query=klimaat api 5 search"; got != want {
		t.Errorf("profile search fetched %s, want %s", got, want)
	}

	h = sdktest.NewHost(t).Handle(base+"/api/search?*", 200, "testdata/search.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, example.Plugin(), h, m.Freshness.Tool, string(m.Freshness.Arguments)), &sr)
	if got, want := fetched(t, h), base+"/api/search?limit=1&organization=amsterdam api 1 search"; got != want {
		t.Errorf("freshness fetched %s, want %s", got, want)
	}
	if len(sr.Results) == 0 || sr.Results[0].Date == "" {
		t.Errorf("freshness: no dated first result: %+v", sr)
	}
}

func TestSearch(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/api/search?*", 200, "testdata/search.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, example.Plugin(), h, "search",
		`{"query":" begroting ","organization":"soest","date_from":"2024-01-01","date_to":"2024-12-31","limit":48,"offset":24}`), &sr)
	if got, want := fetched(t, h), base+"/api/search?dateFrom=2024-01-01&dateTo=2024-12-31&limit=48&offset=24&organization=soest&query=begroting api 2 search"; got != want {
		t.Errorf("fetched %s\nwant    %s", got, want)
	}
	total := 42
	extra := func(label string) map[string]map[string]any {
		return map[string]map[string]any{"example": {"entity_type_label": label}}
	}
	want := sdk.SearchResult{
		Platform: "example", Total: &total, TotalIsApproximate: true, HasMore: true, Offset: 24,
		Results: []sdk.Item{
			// A dummy download link: the platform's record instead.
			{ID: "document:notubiz:gemeente:soest:12345", Type: "Document", Title: "Raadsvoorstel begroting 2024", Date: "2024-11-07", Organization: "Soest",
				Snippet: "De begroting voor 2024 bedraagt...", URL: base + "/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A12345", Extra: extra("Document")},
			// No sortDate: the Dutch date is read.
			{ID: "meeting:notubiz:gemeente:putten:1423776", Type: "Meeting", Title: "Raadsvergadering", Date: "2026-06-25", Organization: "Putten",
				Snippet: "… voor ons als SGP is daarbij het stikstof plan van de voet", URL: base + "/api/entities/meeting%3Anotubiz%3Agemeente%3Aputten%3A1423776", Extra: extra("Vergadering")},
			// A real https link is the citation; entities are unescaped.
			{ID: "document:notubiz:gemeente:soest:12346", Type: "Document", Title: "Raadsvoorstel woningbouwprogramma Soesterberg 2025-2030", Date: "2024-12-12", Organization: "Soest",
				Snippet: "Het college stelt voor de begroting & planning vast te stellen", URL: "https://soest.raadsinformatie.nl/document/12346/1/raadsvoorstel-woningbouwprogramma", Extra: extra("Document")},
			// An http link is not one: the platform's https record.
			{ID: "document:ibabs:gemeente:houten:88123", Type: "Document", Title: "Programmabegroting 2025 gemeente Houten", Date: "2024-11-07", Organization: "Houten",
				Snippet: "De programmabegroting 2025", URL: base + "/api/entities/document%3Aibabs%3Agemeente%3Ahouten%3A88123", Extra: extra("Document")},
		},
		Notes: []string{
			"1 result(s) without an entity id were left out.",
			"With a query, OpenBesluitvorming filters dates within a bounded relevance window: results for old date ranges may be incomplete.",
		},
	}
	if !reflect.DeepEqual(sr, want) {
		g, _ := json.MarshalIndent(sr, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("result:\n%s\nwant:\n%s", g, w)
	}
	for _, it := range sr.Results {
		if !strings.HasPrefix(it.URL, "https://") {
			t.Errorf("%s: url %q is not https", it.ID, it.URL)
		}
	}
}

func TestSearchDefaultsAndCost(t *testing.T) {
	for args, want := range map[string]string{
		`{"query":"stikstof"}`:                     "/api/search?limit=24&query=stikstof api 1 search",
		`{"organization":"soest","limit":25}`:      "/api/search?limit=25&organization=soest api 2 search",
		`{"query":"a b","limit":100}`:              "/api/search?limit=100&query=a+b api 5 search",
		`{"organization":"den-helder","offset":0}`: "/api/search?limit=24&organization=den-helder api 1 search",
	} {
		h := sdktest.NewHost(t).Handle(base+"/api/search?*", 200, "testdata/search.json")
		sdktest.Decode(t, sdktest.Call(t, example.Plugin(), h, "search", args), &sdk.SearchResult{})
		if got := fetched(t, h); got != base+want {
			t.Errorf("%s fetched %s, want %s", args, got, base+want)
		}
	}
}

// TestBadArguments: each bad argument is a tool error naming it, and
// costs no request.
func TestBadArguments(t *testing.T) {
	for _, c := range []struct{ tool, args, want string }{
		{"search", `{}`, "give query or organization"},
		{"search", `{"query":"   "}`, "give query or organization"},
		{"search", `{"query":"x","limit":0}`, `argument "limit"`},
		{"search", `{"query":"x","limit":101}`, `argument "limit"`},
		{"search", `{"query":"x","offset":-1}`, `argument "offset"`},
		{"search", `{"query":"x","date_from":"7-11-2024"}`, `argument "date_from"`},
		{"search", `{"query":"x","date_to":"2024-02-30"}`, `argument "date_to"`},
		{"search", `{"query":"x","date_from":"2025-01-01","date_to":"2024-01-01"}`, "date_from 2025-01-01 is after date_to 2024-01-01"},
		{"search", `{"query":5}`, `argument "query"`},
		{"search", `{"query":"x","colour":"red"}`, `"colour"`},
		{"get_document", `{"entity_id":"12345"}`, `argument "entity_id"`},
		{"get_document", `{"entity_id":"document:x:1","page":-1}`, `argument "page"`},
		{"get_document", `{"entity_id":"document:x:1","page":"2"}`, `argument "page"`},
		{"list_sources", `{"implemented":false}`, `"implemented"`},
		{"stats", `{"x":1}`, `"x"`},
	} {
		h := sdktest.NewHost(t)
		res := sdktest.Call(t, example.Plugin(), h, c.tool, c.args)
		if !res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%s %s: got %+v, want a tool error containing %s", c.tool, c.args, res, c.want)
		}
		if n := len(h.Requests()); n != 0 {
			t.Errorf("%s %s: a bad argument reached the platform (%d requests)", c.tool, c.args, n)
		}
	}
}

// TestBrokenResponses: a platform error, a broken or foreign answer and a
// failed exchange are tool errors saying what went wrong.
func TestBrokenResponses(t *testing.T) {
	calls := map[string]string{"search": `{"query":"x"}`, "get_document": `{"entity_id":"document:x:1"}`, "list_sources": `{}`, "stats": `{}`}
	for _, c := range []struct {
		tool   string
		status int
		body   string
		want   string
	}{
		{"search", 500, `{"error": "Zoeken mislukt. Probeer het opnieuw.", "request_id": "3f9c1a2b"}`, "search: upstream answered HTTP 500: Zoeken mislukt"},
		{"search", 400, `{"error":"Onbekende organisatie: xyz"}`, "HTTP 400: Onbekende organisatie: xyz"},
		{"search", 200, `{"results": [`, "search: the platform's response is not the expected JSON"},
		{"search", 200, `<html>onderhoud</html>`, "not the expected JSON"},
		{"search", 200, `{"hits": []}`, "search: the platform's response lacks results"},
		{"get_document", 404, `{"error":"Entiteit niet gevonden"}`, `get_document: no entity "document:x:1"`},
		{"get_document", 200, `{"title":"no id"}`, "get_document: the platform's response lacks entityId"},
		{"get_document", 200, `{"entityId":"document:x:1","markdownText":7}`, "get_document: the platform's response is not the expected JSON"},
		{"list_sources", 200, `{"organisations":[]}`, "list_sources: the platform's response lacks sources"},
		{"list_sources", 503, `{"error":"onderhoud"}`, "list_sources: upstream answered HTTP 503: onderhoud"},
		{"stats", 200, `{"documentCount": 1}`, "lacks documentCount or organizationCount"},
	} {
		h := sdktest.NewHost(t).HandleBody(base+"/*", c.status, []byte(c.body))
		res := sdktest.Call(t, example.Plugin(), h, c.tool, calls[c.tool])
		if !res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%s on HTTP %d %s: got %+v, want a tool error containing %q", c.tool, c.status, c.body, res, c.want)
		}
	}
	for tool, args := range calls {
		h := sdktest.NewHost(t).HandleErr(base+"/*", &connector.FetchError{Kind: connector.FetchUnavailable, Message: "connection reset by peer"})
		res := sdktest.Call(t, example.Plugin(), h, tool, args)
		if !res.IsError || res.Text != tool+": unavailable: connection reset by peer" {
			t.Errorf("%s on a failed exchange: %+v", tool, res)
		}
	}
}

func TestGetDocument(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/api/entities/*", 200, "testdata/entity-document.json")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, example.Plugin(), h, "get_document", `{"entity_id":"document:notubiz:gemeente:soest:12345"}`), &d)
	if got, want := fetched(t, h), base+"/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A12345 api 1 document"; got != want {
		t.Errorf("fetched %s, want %s", got, want)
	}
	want := sdk.Document{Platform: "example", ID: "document:notubiz:gemeente:soest:12345", Type: "Document", Title: "Raadsvoorstel begroting 2024",
		Date: "2024-11-07", Organization: "Soest", URL: base + "/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A12345",
		Format: "markdown", Page: 1, Pages: 1, Text: "# Raadsvoorstel begroting 2024\n\n..."}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("document = %+v\nwant       %+v", d, want)
	}
	// A meeting has no markdownText: the page says so.
	h2 := sdktest.NewHost(t).HandleBody(base+"/api/entities/meeting%3Anotubiz%3Agemeente%3Asoest%3A830424", 200,
		[]byte(`{"entityId":"meeting:notubiz:gemeente:soest:830424","entityType":"Meeting","title":"Raadsvergadering","agenda":[]}`))
	sdktest.Decode(t, sdktest.Call(t, example.Plugin(), h2, "get_document", `{"entity_id":"meeting:notubiz:gemeente:soest:830424"}`), &d)
	if d.Title != "Raadsvergadering" || d.Pages != 1 || !strings.HasPrefix(d.Text, "(No text of its own") {
		t.Errorf("meeting = %+v", d)
	}
	// Past the last page: an error naming the count, from the kept text.
	res := sdktest.Call(t, example.Plugin(), h, "get_document", `{"entity_id":"document:notubiz:gemeente:soest:12345","page":2}`)
	if !res.IsError || !strings.Contains(res.Text, `argument "page": 2 is out of range, the document has 1 page(s)`) || len(h.Requests()) != 1 {
		t.Errorf("page 2 of 1: %+v after %d requests", res, len(h.Requests()))
	}
}

// TestGetDocumentPages: a long text is fetched and decoded once; every
// later page comes from the text the host keeps, and the pages join up to
// the whole text.
func TestGetDocumentPages(t *testing.T) {
	var md strings.Builder
	for i := 0; md.Len() < 3*sdk.TextPageSize; i++ {
		fmt.Fprintf(&md, "## %d. Bevinding\n\nDe raad bespreekt één coördinatie.\n\n", i)
	}
	const id = "document:ibabs:gemeente:utrecht:990101"
	body, _ := json.Marshal(map[string]any{"entityId": id, "entityType": "Document", "title": "Rapport", "organization": "Utrecht",
		"date": "27 juni 2024", "markdownText": md.String(), "downloadUrl": "https://utrecht.bestuurlijkeinformatie.nl/Agenda/Document/990101"})
	h := sdktest.NewHost(t).HandleBody(base+"/api/entities/document%3Aibabs%3Agemeente%3Autrecht%3A990101", 200, body)
	docs := sdktest.ReadDocument(t, example.Plugin(), h, "get_document", func(p int) string { return fmt.Sprintf(`{"entity_id":%q,"page":%d}`, id, p) })
	var all strings.Builder
	for _, d := range docs {
		all.WriteString(d.Text)
	}
	if len(docs) < 4 || all.String() != md.String() || docs[0].URL != "https://utrecht.bestuurlijkeinformatie.nl/Agenda/Document/990101" || docs[0].Date != "2024-06-27" {
		t.Errorf("%d pages, joined %d of %d bytes, first %+v", len(docs), all.Len(), md.Len(), docs[0].URL)
	}
	if n, kept := len(h.Requests()), h.TextsKept(); n != 1 || kept != 1 {
		t.Errorf("%d fetches and %d extractions for %d pages, want 1 and 1", n, kept, len(docs))
	}
}

func TestListSources(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/api/sources*", 200, "testdata/sources.json")
	var l sdk.ListResult
	sdktest.Decode(t, sdktest.Call(t, example.Plugin(), h, "list_sources", `{}`), &l)
	if got, want := fetched(t, h), base+"/api/sources?implemented=true api 1 list"; got != want {
		t.Errorf("fetched %s, want %s", got, want)
	}
	if l.Platform != "example" || l.List != "sources" || l.Count != 3 || len(l.Items) != 3 {
		t.Fatalf("list = %+v", l)
	}
	want := sdk.Item{ID: "zuid-holland", Type: "provincie", Title: "Provincie Zuid-Holland", Organization: "Provincie Zuid-Holland",
		Extra: map[string]map[string]any{"example": {"supplier": "ibabs"}}}
	if !reflect.DeepEqual(l.Items[2], want) {
		t.Errorf("item = %+v\nwant   %+v", l.Items[2], want)
	}
}

func TestStats(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/api/stats", 200, "testdata/stats.json")
	var s example.Stats
	sdktest.Decode(t, sdktest.Call(t, example.Plugin(), h, "stats", `{}`), &s)
	if s != (example.Stats{Platform: "example", Documents: 3045470, Organizations: 124}) {
		t.Errorf("stats = %+v", s)
	}
	if got, want := fetched(t, h), base+"/api/stats api 1 stats"; got != want {
		t.Errorf("fetched %s, want %s", got, want)
	}
}

// FuzzResponses feeds random platform answers (seeded with testdata/)
// through every tool: the connector answers a tool error or a valid
// result, and never panics. go test runs the seeds; go test -fuzz explores.
func FuzzResponses(f *testing.F) {
	sdktest.FuzzResponses(f, example.Plugin(), []string{"testdata"},
		sdktest.FuzzCall{Tool: "search", Args: `{"query":"begroting","organization":"soest"}`},
		sdktest.FuzzCall{Tool: "get_document", Args: `{"entity_id":"document:notubiz:gemeente:soest:12345"}`},
		sdktest.FuzzCall{Tool: "list_sources", Args: `{}`},
		sdktest.FuzzCall{Tool: "stats", Args: `{}`},
	)
}

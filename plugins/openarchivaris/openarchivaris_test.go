package openarchivaris_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// The fixtures are constructed to the assumed API (see
// testdata/openarchivaris/README.md); these tests pin the mapping down,
// they do not prove it.

const (
	base = "https://openarchivaris.nl"
	td   = "../../testdata/openarchivaris/"
)

func TestManifestValid(t *testing.T) {
	m := sdktest.CheckManifest(t, openarchivaris.Plugin())
	s, ok := m.Service(openarchivaris.Service)
	if !ok || s.Units != 120 || time.Duration(s.Per) != time.Minute || !strings.Contains(s.Description, "unverified") {
		t.Errorf("service = %+v, want 120 per minute marked unverified", s)
	}
	for _, tool := range m.Tools {
		if !strings.HasPrefix(tool.Description, "UNVERIFIED") || tool.CostNote == "" {
			t.Errorf("tool %s must open with UNVERIFIED and have a cost note: %q", tool.Name, tool.Description)
		}
	}
}

func TestSearchURL(t *testing.T) {
	a := openarchivaris.SearchArgs{Query: " ijsbaan café ", GovernmentType: "gemeente", Government: "Gemeente Soest", DateFrom: "2024-01-01", DateTo: "2024-12-31", MinPages: 2, MaxPages: 50, Offset: 20}
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
	want := base + "/api/search?date_from=2024-01-01&date_to=2024-12-31&government=Gemeente+Soest&limit=20&max_pages=50&min_pages=2&offset=20&q=ijsbaan+caf%C3%A9&type=gemeente"
	if got := openarchivaris.SearchURL(base, a); got != want {
		t.Errorf("SearchURL =\n%s\nwant\n%s", got, want)
	}
	if got := openarchivaris.DocumentURL(base, "d:1/2"); got != base+"/api/documents/d:1%2F2" {
		t.Errorf("DocumentURL = %s", got)
	}
	if got := openarchivaris.GovernmentsURL(base, "waterschap"); got != base+"/api/governments?type=waterschap" {
		t.Errorf("GovernmentsURL = %s", got)
	}
}

func TestSearch(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/api/search?*", 200, td+"oa-search.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "search", `{"query":"ijsbaan","limit":2}`), &sr)
	r := h.Requests()[0]
	if r.URL != base+"/api/search?limit=2&q=ijsbaan" || r.Method != "GET" || r.Service != "api" || r.Cost != 1 || r.CacheClass != connector.ClassSearch {
		t.Errorf("request = %+v", r)
	}
	want := []sdk.Item{
		{ID: "d-2024-soest-000123", Type: "document", Title: "Raadsvoorstel herinrichting Kerkplein en café-terrassen", Date: "2024-11-07",
			Organization: "Gemeente Soest", Snippet: "...de ijsbaan op het Kerkplein & de terrassen...", URL: "https://soest.raadsinformatie.nl/document/123/raadsvoorstel.pdf",
			Keys:  map[string]string{"source_url": "https://soest.raadsinformatie.nl/document/123/raadsvoorstel.pdf"},
			Extra: map[string]map[string]any{"openarchivaris": {"author": "College van B&W", "pages": float64(12), "government_type": "gemeente", "api_url": base + "/api/documents/d-2024-soest-000123"}}},
		{ID: "d-2023-wsrl-000045", Type: "document", Title: "Waterbeheerprogramma: één overzicht", Date: "2023-03-01",
			Organization: "Waterschap Rivierenland", Snippet: "eerste fragment over ijs … tweede fragment", URL: base + "/documenten/d-2023-wsrl-000045",
			Extra: map[string]map[string]any{"openarchivaris": {"pages": float64(140), "government_type": "waterschap", "api_url": base + "/api/documents/d-2023-wsrl-000045"}}},
	}
	if d := cmp.Diff(want, sr.Results); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
	if sr.Total == nil || *sr.Total != 57 || !sr.HasMore || len(sr.Notes) != 1 || !strings.Contains(sr.Notes[0], "unverified") {
		t.Errorf("result = %+v", sr)
	}
}

func TestSearchVariantSpellings(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/api/search?*", 200, td+"oa-search-variant.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "search", `{"query":"ijsbaan","government":"Gemeente Soest"}`), &sr)
	if len(sr.Results) != 1 {
		t.Fatalf("result = %+v", sr)
	}
	it := sr.Results[0]
	if it.ID != "d-2024-soest-000123" || it.Date != "2024-11-07" || it.Organization != "Gemeente Soest" || it.Extra["openarchivaris"]["pages"] != float64(12) ||
		it.URL != "" || it.Extra["openarchivaris"]["api_url"] != base+"/api/documents/d-2024-soest-000123" {
		t.Errorf("item = %+v", it)
	}
	if sr.Total != nil || sr.HasMore || !strings.Contains(strings.Join(sr.Notes, " "), "no total") {
		t.Errorf("without a total: %+v", sr)
	}
}

func TestSearchEmpty(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/api/search?*", 200, td+"oa-search-empty.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "search", `{"query":"onvindbaar"}`), &sr)
	if sr.Results == nil || len(sr.Results) != 0 || sr.HasMore || *sr.Total != 0 {
		t.Errorf("empty = %+v", sr)
	}
}

func TestSearchBadArguments(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"no query", `{}`, `"query"`},
		{"blank", `{"query":" "}`, `"query"`},
		{"type", `{"query":"x","government_type":"Gemeente!"}`, `"government_type"`},
		{"pages", `{"query":"x","min_pages":10,"max_pages":2}`, "min_pages 10 is above max_pages 2"},
		{"negative pages", `{"query":"x","min_pages":-1}`, `"min_pages"`},
		{"date", `{"query":"x","date_to":"31-12-2024"}`, `"date_to"`},
		{"order", `{"query":"x","date_from":"2025-01-01","date_to":"2024-01-01"}`, "after date_to"},
		{"limit", `{"query":"x","limit":51}`, `"limit"`},
		{"offset", `{"query":"x","offset":10001}`, `"offset"`},
		{"government", `{"query":"x","government":"` + strings.Repeat("ij", 61) + `"}`, `"government"`},
		{"unknown", `{"query":"x","mode":"advanced"}`, "mode"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			res := sdktest.Call(t, openarchivaris.Plugin(), h, "search", c.args)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want a tool error naming %s", res, c.want)
			}
			if n := len(h.Requests()); n != 0 {
				t.Errorf("bad arguments reached the platform (%d requests)", n)
			}
		})
	}
}

func TestPlatformErrors(t *testing.T) {
	for _, c := range []struct {
		name, file, body string
		status           int
		want             string
	}{
		{"html instead of json", td + "oa-spa.html", "", 200, "HTML page came back where JSON was expected"},
		{"no such endpoint", td + "oa-spa.html", "", 404, "assumed endpoint may not exist"},
		{"500", td + "oa-error-500.json", "", 500, "HTTP 500: Interne fout bij het zoeken"},
		{"429", td + "oa-429.json", "", 429, "too many (HTTP 429): Te veel verzoeken"},
		{"not json", "", "results: none", 200, "mapping is unverified"},
		{"other shape", "", `{"hits": {"total": 3, "hits": []}}`, 200, "no list under results, items, documents, hits, data (the answer has fields hits)"},
		{"scalar", "", `"ok"`, 200, "is a JSON string"},
		{"record without id", "", `{"results":[{"title":"x"}]}`, 200, "result 1: Open Archivaris answered in a shape"},
		{"record not object", "", `{"results":["x"]}`, 200, "result 1 is not an object"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			if c.file != "" {
				h.Handle(base+"/api/search?*", c.status, c.file)
			} else {
				h.HandleBody(base+"/api/search?*", c.status, []byte(c.body))
			}
			res := sdktest.Call(t, openarchivaris.Plugin(), h, "search", `{"query":"x"}`)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want a tool error containing %q", res, c.want)
			}
		})
	}
	h := sdktest.NewHost(t).HandleErr(base+"/api/search?*", &connector.FetchError{Kind: connector.FetchUnavailable, Message: "tls handshake timeout"})
	if res := sdktest.Call(t, openarchivaris.Plugin(), h, "search", `{"query":"x"}`); !res.IsError || !strings.Contains(res.Text, "tls handshake timeout") {
		t.Errorf("fetch error: %+v", res)
	}
}

func TestGetDocument(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/api/documents/d-2024-soest-000123", 200, td+"oa-document.json")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "get_document", `{"id":"d-2024-soest-000123"}`), &d)
	want := sdk.Document{
		Platform: "openarchivaris", ID: "d-2024-soest-000123", Type: "document", Title: "Raadsvoorstel herinrichting Kerkplein en café-terrassen",
		Date: "2024-11-07", Organization: "Gemeente Soest", URL: "https://soest.raadsinformatie.nl/document/123/raadsvoorstel.pdf", Format: "text",
		Page: 1, Pages: 1, Text: "Raadsvoorstel\n\nHet college stelt de raad voor het Kerkplein opnieuw in te richten. Eén ijsbaan in de winter; café-terrassen in de zomer.",
		Extra: map[string]map[string]any{"openarchivaris": {"author": "College van B&W", "pages": float64(12), "government_type": "gemeente", "api_url": base + "/api/documents/d-2024-soest-000123"}},
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("document (-want +got):\n%s", diff)
	}
	if r := h.Requests()[0]; r.CacheClass != connector.ClassDocument || r.Service != "api" {
		t.Errorf("request = %+v", r)
	}
}

func TestGetDocumentLargeAndWithoutText(t *testing.T) {
	text := strings.Repeat("Eén regel over de ijsbaan en het café van Soest.\n", 22000) // ≈1.1 MB
	body := fmt.Sprintf(`{"id":"big","title":"Groot","text":%q}`, text)
	h := sdktest.NewHost(t).
		HandleBody(base+"/api/documents/big", 200, []byte(body)).
		HandleBody(base+"/api/documents/scan", 200, []byte(`{"id":"scan","titel":"Scan","html":"<p>x</p>"}`)).
		HandleBody(base+"/api/documents/markup", 200, []byte(`{"id":"markup","content":"<p>Één <b>alinea</b></p>"}`))
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "get_document", `{"id":"big","page":3}`), &d)
	if d.Page != 3 || d.Pages < 50 || len(d.Text) > sdk.TextPageSize || !strings.HasPrefix(d.Text, "Eén regel") {
		t.Errorf("page %d of %d, %d bytes", d.Page, d.Pages, len(d.Text))
	}
	res := sdktest.Call(t, openarchivaris.Plugin(), h, "get_document", fmt.Sprintf(`{"id":"big","page":%d}`, d.Pages+1))
	if !res.IsError || !strings.Contains(res.Text, `"page"`) {
		t.Errorf("out of range: %+v", res)
	}
	d = sdk.Document{}
	sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "get_document", `{"id":"scan"}`), &d)
	if !strings.Contains(d.Text, "gave no text") || d.Title != "Scan" || d.URL != "" || d.Extra["openarchivaris"]["api_url"] != base+"/api/documents/scan" {
		t.Errorf("without text: %+v", d)
	}
	d = sdk.Document{}
	sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "get_document", `{"id":"markup"}`), &d)
	if d.Text != "Één alinea" {
		t.Errorf("markup text = %q", d.Text)
	}
}

// endPhrase closes the long test documents: Dutch characters (é, ë, ï, ü)
// must reach the last page intact.
const endPhrase = "Slot: één reünie met Zoë, naïef maar gemeend."

// longDocument is a document answer in the assumed shape
// (testdata/openarchivaris/oa-document.json) whose text is over 1 MB, with
// the same text as HTML under content, a lower-priority text key the text
// must not come from, and quotes and backslashes the answer escapes.
func longDocument(t *testing.T, wrapper string) []byte {
	var text strings.Builder
	for i := 0; text.Len() < 1_200_000; i++ {
		fmt.Fprintf(&text, "%d. De raad bespreekt het café, de ijsbaan en één \"naïeve\" coördinatie (zie C:\\stukken\\%d).\n", i, i)
	}
	text.WriteString(endPhrase)
	doc := map[string]any{
		"id": "d-2024-utrecht-990101", "title": "Rapport rekenkamercommissie: één reünie", "date": "2024-06-27",
		"government": "Gemeente Utrecht", "governmentType": "gemeente", "author": "Afdeling Juridische Zaken", "pages": 412,
		"url": "https://utrecht.bestuurlijkeinformatie.nl/Woo/Document/990101", "text": text.String(),
		"content": "<p>" + strings.ReplaceAll(text.String(), "\n", "</p><p>") + "</p>",
	}
	b, err := json.Marshal(map[string]any{wrapper: doc})
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
	for _, wrapper := range []string{"document", "data"} {
		t.Run(wrapper, func(t *testing.T) {
			body := longDocument(t, wrapper)
			h := sdktest.NewHost(t).HandleBody(base+"/api/documents/d-2024-utrecht-990101", 200, body)
			args := func(p int) string { return fmt.Sprintf(`{"id":"d-2024-utrecht-990101","page":%d}`, p) }
			docs := sdktest.ReadDocument(t, openarchivaris.Plugin(), h, "get_document", args)
			first, last := docs[0], docs[len(docs)-1]
			want := sdk.Document{
				Platform: "openarchivaris", ID: "d-2024-utrecht-990101", Type: "document", Title: "Rapport rekenkamercommissie: één reünie",
				Date: "2024-06-27", Organization: "Gemeente Utrecht", URL: "https://utrecht.bestuurlijkeinformatie.nl/Woo/Document/990101", Format: "text",
				Page: 1, Pages: first.Pages, Text: first.Text,
				Extra: map[string]map[string]any{"openarchivaris": {"author": "Afdeling Juridische Zaken", "pages": float64(412), "government_type": "gemeente", "api_url": base + "/api/documents/d-2024-utrecht-990101"}},
			}
			if diff := cmp.Diff(want, first); diff != "" || first.Pages < 50 || !strings.HasPrefix(first.Text, "0. De raad bespreekt het café") {
				t.Fatalf("page 1 of %d (-want +got):\n%s", first.Pages, diff)
			}
			if !strings.HasSuffix(last.Text, endPhrase) || !strings.Contains(last.Text, `één "naïeve" coördinatie (zie C:\stukken\`) {
				t.Errorf("last page %d ends %q", last.Page, last.Text[max(0, len(last.Text)-120):])
			}
			var all strings.Builder
			for _, d := range docs {
				all.WriteString(d.Text)
			}
			var doc map[string]struct{ Text string }
			if err := json.Unmarshal(body, &doc); err != nil || all.String() != doc[wrapper].Text {
				t.Errorf("the pages joined (%d bytes) are not the text (%d bytes): %v", all.Len(), len(doc[wrapper].Text), err)
			}
			if n := h.TextsKept(); n != 1 {
				t.Errorf("the text was extracted %d times, want once", n)
			}
			if n := len(h.Requests()); n != 1 {
				t.Errorf("%d fetches for %d pages, want 1", n, len(docs))
			}
			if n := h.TextPagesServed(); n != len(docs)-1 {
				t.Errorf("%d pages served from the kept text, want %d", n, len(docs)-1)
			}

			// A kept page equals the same page extracted afresh.
			mid := len(docs) / 2
			h.ForgetTexts()
			var fresh sdk.Document
			sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "get_document", args(mid)), &fresh)
			if diff := cmp.Diff(docs[mid-1], fresh); diff != "" {
				t.Errorf("kept page %d differs from a fresh extraction (-kept +fresh):\n%s", mid, diff)
			}
			if n := h.TextsKept(); n != 2 {
				t.Errorf("after ForgetTexts: %d extractions, want 2", n)
			}
		})
	}
}

// TestSearchUnreadableResultsFailSoft: a result that is not an object or
// has no id is left out with a note; the others are listed.
func TestSearchUnreadableResultsFailSoft(t *testing.T) {
	body := `{"total":4,"results":[{"id":"a","title":"Eén"},"b",{"titel":"zonder id"},{"id":"d","title":"Vier"}]}`
	h := sdktest.NewHost(t).HandleBody(base+"/api/search?*", 200, []byte(body))
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "search", `{"query":"x","limit":4}`), &sr)
	if len(sr.Results) != 2 || sr.Results[0].ID != "a" || sr.Results[1].ID != "d" || sr.HasMore {
		t.Errorf("result = %+v", sr)
	}
	if notes := strings.Join(sr.Notes, "\n"); !strings.Contains(notes, "2 result(s) Open Archivaris sent in an unreadable shape are left out") || !strings.Contains(notes, "result 2 is not an object") {
		t.Errorf("notes = %q", sr.Notes)
	}
}

func TestGetDocumentErrors(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{`{}`, `"id"`},
		{`{"id":"../etc"}`, `"id"`},
		{`{"id":"a b"}`, `"id"`},
		{`{"id":"x","page":-1}`, `"page"`},
	} {
		h := sdktest.NewHost(t)
		res := sdktest.Call(t, openarchivaris.Plugin(), h, "get_document", c.args)
		if !res.IsError || !strings.Contains(res.Text, c.want) || len(h.Requests()) != 0 {
			t.Errorf("%s: got %+v, want a tool error naming %s and no request", c.args, res, c.want)
		}
	}
	h := sdktest.NewHost(t).
		HandleBody(base+"/api/documents/gone", 404, []byte(`{"error":"Document niet gevonden"}`)).
		HandleBody(base+"/api/documents/odd", 200, []byte(`{"document":{"titel":"zonder id"}}`))
	if res := sdktest.Call(t, openarchivaris.Plugin(), h, "get_document", `{"id":"gone"}`); !res.IsError || !strings.Contains(res.Text, "not found (HTTP 404): Document niet gevonden") {
		t.Errorf("404: %+v", res)
	}
	if res := sdktest.Call(t, openarchivaris.Plugin(), h, "get_document", `{"id":"odd"}`); !res.IsError || !strings.Contains(res.Text, "without an id") {
		t.Errorf("no id: %+v", res)
	}
}

func TestListGovernments(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/api/governments", 200, td+"oa-governments.json")
	var l sdk.ListResult
	sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "list_governments", `{}`), &l)
	want := sdk.ListResult{Platform: "openarchivaris", List: "governments", Count: 3, Items: []sdk.Item{
		{ID: "soest", Type: "gemeente", Title: "Gemeente Soest", Organization: "Gemeente Soest"},
		{ID: "wsrl", Type: "waterschap", Title: "Waterschap Rivierenland", Organization: "Waterschap Rivierenland"},
		{ID: "Provinciale Staten van Fryslân", Type: "provincie", Title: "Provinciale Staten van Fryslân", Organization: "Provinciale Staten van Fryslân"},
	}}
	if d := cmp.Diff(want, l); d != "" {
		t.Errorf("list (-want +got):\n%s", d)
	}
	if r := h.Requests()[0]; r.CacheClass != connector.ClassList {
		t.Errorf("request = %+v", r)
	}

	h = sdktest.NewHost(t).
		HandleBody(base+"/api/governments?type=waterschap", 200, []byte(`["Waterschap Rivierenland"]`)).
		HandleBody(base+"/api/governments?type=provincie", 200, []byte(`{"data":[{"id":"x"}]}`))
	sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "list_governments", `{"government_type":"waterschap"}`), &l)
	if l.Count != 1 || l.Items[0].ID != "Waterschap Rivierenland" {
		t.Errorf("bare list of names: %+v", l)
	}
	if res := sdktest.Call(t, openarchivaris.Plugin(), h, "list_governments", `{"government_type":"provincie"}`); !res.IsError || !strings.Contains(res.Text, "government 1 has no name") {
		t.Errorf("nameless: %+v", res)
	}
	h = sdktest.NewHost(t)
	if res := sdktest.Call(t, openarchivaris.Plugin(), h, "list_governments", `{"government_type":"Water!"}`); !res.IsError || !strings.Contains(res.Text, `"government_type"`) || len(h.Requests()) != 0 {
		t.Errorf("bad type: %+v", res)
	}
}

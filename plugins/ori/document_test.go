package ori_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const docURL = base + "/ori_*/_search?_source_excludes=text_pages&q=_id%3A6074541&size=2"

func TestGetDocument(t *testing.T) {
	h := sdktest.NewHost(t).Handle(docURL, 200, td+"ori-document.json")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), orgs(t, h), "get_document", `{"id":"6074541"}`), &d)
	r := h.Requests()[0]
	if r.Method != "GET" || r.Service != ori.Service || r.Cost != 1 || r.CacheClass != connector.ClassDocument {
		t.Errorf("request = %+v", r)
	}
	want := sdk.Document{
		Platform: "ori", ID: "6074541", Type: "MediaObject", Title: "Bijlage 1 - Verslag vorige vergadering", Date: "2025-06-26",
		Organization: "rotterdam", URL: "https://api1.ibabs.eu/publicdownload.aspx?site=rotterdam&id=100", Format: "markdown",
		Page: 1, Pages: 1,
		Text: "--- pagina 1 ---\n\n# Verslag vorige vergadering\n\nDe burgemeester opent de vergadering. Café-eigenaren en ijsbanen: ëën punt.\n\n--- pagina 2 ---\n\n## Rondvraag\n\nGeen vragen.",
		Extra: map[string]map[string]any{"ori": {
			"index": "ori_rotterdam_20250629013104", "content_type": "application/pdf", "file_name": "Bijlage 1.pdf",
			"size_in_bytes": float64(1024000), "is_referenced_by": "6074539", "has_organization_name": "6070001", "date_modified": "2025-06-20T10:15:00",
			"organization_key": "rotterdam", "resolver_url": "https://api.openraadsinformatie.nl/v1/resolve/rotterdam/100", "id_uri": "https://id.openraadsinformatie.nl/6074541",
		}},
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("document (-want +got):\n%s", diff)
	}
}

// endPhrase closes the long test documents: Dutch characters (é, ë, ï, ü)
// must reach the last page intact.
const endPhrase = "Slot: één reünie met Zoë, naïef maar gemeend."

// longHit is an ORI answer like the 2.2 MB hit that exhausted the
// WebAssembly instance: one MediaObject with md_text and text both, 100
// pages each (ORI's extraction maximum), over 1 MB of text each. Lines
// hold quotes, brackets and backslashes, which the answer escapes.
func longHit(t *testing.T, second bool) ([]byte, map[string]any) {
	md, plain := make([]any, 100), make([]any, 100)
	for i := range md {
		line := fmt.Sprintf("Regel %d: de raad bespreekt de ijsbaan, het café en één \"naïeve\" coördinatie [bijlage {%d}] met C:\\stukken.\n", i, i)
		md[i] = fmt.Sprintf("## Pagina %d\n\n%s", i+1, strings.Repeat(line, 120))
		plain[i] = strings.Repeat(line, 120)
	}
	md[99] = md[99].(string) + endPhrase
	plain[99] = plain[99].(string) + endPhrase
	src := map[string]any{
		"@type": "MediaObject", "@id": "6074541", "name": "Rapport rekenkamercommissie: één reünie",
		"file_name": "Rapport.pdf", "original_url": "https://utrecht.bestuurlijkeinformatie.nl/Agenda/Document/6074541",
		"url": "https://api.openraadsinformatie.nl/v1/resolve/utrecht/6074541", "content_type": "application/pdf",
		"size_in_bytes": float64(2300000), "date_modified": "2024-06-27T10:00:00", "last_discussed_at": "2024-06-27T19:30:00",
		"has_organization_name": "7200001", "md_text": md, "text": plain,
		"was_generated_by": map[string]any{"@type": "Activity", "app_semver": "1.x"},
	}
	hits := []any{map[string]any{"_index": "ori_utrecht_20250629013104", "_type": "_doc", "_id": "6074541", "_score": 1.0, "_source": src}}
	if second {
		hits = append(hits, map[string]any{"_index": "ori_utrecht_20240101000000", "_type": "_doc", "_id": "6074541", "_score": 1.0, "_source": src})
	}
	b, err := json.Marshal(map[string]any{"took": 20, "timed_out": false, "_shards": map[string]any{"total": 331, "successful": 331, "failed": 0},
		"hits": map[string]any{"total": map[string]any{"value": len(hits), "relation": "eq"}, "max_score": 1.0, "hits": hits}})
	if err != nil {
		t.Fatal(err)
	}
	return b, src
}

// TestGetDocumentLongKept: a 2.2 MB hit is decoded once, its pages come
// from the host after that, its last page ends with the document's last
// phrase, and a kept page is what a fresh extraction gives.
func TestGetDocumentLongKept(t *testing.T) {
	body, src := longHit(t, false)
	if len(body) < 2_000_000 {
		t.Fatalf("fixture is only %d bytes", len(body))
	}
	h := sdktest.NewHost(t).HandleBody(docURL, 200, body)
	args := func(p int) string { return fmt.Sprintf(`{"id":"6074541","page":%d}`, p) }
	docs := sdktest.ReadDocument(t, ori.Plugin(), orgs(t, h), "get_document", args)
	first, last := docs[0], docs[len(docs)-1]
	if first.Format != "markdown" || first.Pages < 50 || first.Title != "Rapport rekenkamercommissie: één reünie" || first.Date != "2024-06-27" ||
		first.Organization != "utrecht" || first.URL != "https://utrecht.bestuurlijkeinformatie.nl/Agenda/Document/6074541" ||
		first.Extra["ori"]["size_in_bytes"] != float64(2300000) || !strings.HasPrefix(first.Text, "--- pagina 1 ---\n\n## Pagina 1") {
		t.Fatalf("page 1 = %+v", first)
	}
	if !strings.HasSuffix(last.Text, endPhrase) || !strings.Contains(last.Text, "Regel 99: de raad bespreekt de ijsbaan, het café en één \"naïeve\" coördinatie [bijlage {99}]") {
		t.Errorf("last page %d ends %q", last.Page, last.Text[max(0, len(last.Text)-80):])
	}
	var all strings.Builder
	for _, d := range docs {
		all.WriteString(d.Text)
	}
	want, format, err := ori.RenderText(src)
	if err != nil || format != "markdown" || all.String() != want {
		t.Errorf("the pages joined differ from RenderText of the hit (%d and %d bytes, %s, %v)", all.Len(), len(want), format, err)
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
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), orgs(t, h), "get_document", args(mid)), &fresh)
	if diff := cmp.Diff(docs[mid-1], fresh); diff != "" {
		t.Errorf("kept page %d differs from a fresh extraction (-kept +fresh):\n%s", mid, diff)
	}
	if n := h.TextsKept(); n != 2 {
		t.Errorf("after ForgetTexts: %d extractions, want 2", n)
	}
	res := sdktest.Call(t, ori.Plugin(), orgs(t, h), "get_document", args(len(docs)+1))
	if !res.IsError || !strings.Contains(res.Text, fmt.Sprintf("has %d page(s)", len(docs))) {
		t.Errorf("page out of range: %+v", res)
	}
}

// TestGetDocumentLongDuplicate: the same long item in two indexes (ORI
// re-indexed) reads the first hit's text and names the second index.
func TestGetDocumentLongDuplicate(t *testing.T) {
	body, _ := longHit(t, true)
	h := sdktest.NewHost(t).HandleBody(docURL, 200, body)
	docs := sdktest.ReadDocument(t, ori.Plugin(), orgs(t, h), "get_document", func(p int) string { return fmt.Sprintf(`{"id":"6074541","page":%d}`, p) })
	notes, _ := docs[0].Extra["ori"]["notes"].([]any)
	if len(notes) != 1 || !strings.Contains(fmt.Sprint(notes[0]), "(ori_utrecht_20250629013104, ori_utrecht_20240101000000)") {
		t.Errorf("notes = %v", notes)
	}
	if last := docs[len(docs)-1]; !strings.HasSuffix(last.Text, endPhrase) || h.TextsKept() != 1 {
		t.Errorf("last page ends %q; %d extractions", last.Text[max(0, len(last.Text)-80):], h.TextsKept())
	}
}

// TestGetDocumentBrokenMarkdown: an md_text of another shape costs the
// markdown, not the document: the plain text follows, with a note.
func TestGetDocumentBrokenMarkdown(t *testing.T) {
	body := []byte(`{"hits":{"total":1,"hits":[{"_index":"ori_soest_20250629013104","_id":"6074541","_source":{"@type":"MediaObject","name":"Raadsvoorstel","md_text":[{"page":1}],"text":["Eén pagina.","Twee pagina's."]}}]}}`)
	h := sdktest.NewHost(t).HandleBody(docURL, 200, body)
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), orgs(t, h), "get_document", `{"id":"6074541"}`), &d)
	notes, _ := d.Extra["ori"]["notes"].([]any)
	if d.Format != "text" || d.Text != "--- pagina 1 ---\n\nEén pagina.\n\n--- pagina 2 ---\n\nTwee pagina's." ||
		len(notes) != 1 || !strings.Contains(fmt.Sprint(notes[0]), "md_text") {
		t.Errorf("document = %+v", d)
	}
	// Without a readable text either, it is a tool error naming the field.
	body = []byte(`{"hits":{"total":1,"hits":[{"_index":"ori_soest_20250629013104","_id":"6074541","_source":{"md_text":5,"text":[{"page":1}]}}]}}`)
	h = sdktest.NewHost(t).HandleBody(docURL, 200, body)
	if res := sdktest.Call(t, ori.Plugin(), orgs(t, h), "get_document", `{"id":"6074541"}`); !res.IsError || !strings.Contains(res.Text, "field text: page 1 is a map") {
		t.Errorf("no readable text: %+v", res)
	}
}

func TestGetDocumentTextOnlyInOneOrganization(t *testing.T) {
	u := base + "/ori_soest_2*/_search?_source_excludes=text_pages&q=_id%3A7001234&size=2"
	h := sdktest.NewHost(t).Handle(u, 200, td+"ori-document-textonly.json")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), orgs(t, h), "get_document", `{"id":"7001234","organization":"soest"}`), &d)
	if d.Format != "text" || d.Text != "Eén pagina platte tekst." || d.Organization != "Gemeente Soest" {
		t.Errorf("document = %+v", d)
	}
	if notes, _ := d.Extra["ori"]["notes"].([]any); len(notes) != 1 || !strings.Contains(fmt.Sprint(notes[0]), "more than one index") {
		t.Errorf("duplicate id not noted: %v", d.Extra)
	}
}

func TestGetDocumentWithoutText(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/ori_*/_search?_source_excludes=text_pages&q=_id%3A7001300&size=2", 200, td+"ori-document-meeting.json")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), orgs(t, h), "get_document", `{"id":"7001300"}`), &d)
	want := "(ORI holds no extracted text for this item; its fields follow.)\n@id: 7001300\n@type: Meeting\nclassification: Raad\nname: Gemeenteraad\nstart_date: 2025-06-26T20:00:00+02:00\nstatus: EventScheduled\n"
	if d.Text != want || d.Date != "2025-06-26" {
		t.Errorf("text = %q\nwant %q", d.Text, want)
	}
}

func TestGetDocumentErrors(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"missing id", `{}`, `"id"`},
		{"id not numeric", `{"id":"document:notubiz:1"}`, `"id"`},
		{"id query injection", `{"id":"1 OR *"}`, `"id"`},
		{"organization", `{"id":"1","organization":"*"}`, `"organization"`},
		{"page", `{"id":"1","page":-2}`, `"page"`},
		{"page type", `{"id":"1","page":"2"}`, `"page"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			res := sdktest.Call(t, ori.Plugin(), orgs(t, h), "get_document", c.args)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want a tool error naming %s", res, c.want)
			}
			if n := len(h.Requests()); n != 0 {
				t.Errorf("bad arguments reached the platform (%d requests)", n)
			}
		})
	}
	for _, c := range []struct {
		name, file, body string
		status           int
		want             string
	}{
		{"not found", td + "ori-search-empty.json", "", 200, `no ORI item with id "6074541"`},
		{"bad text", td + "ori-document-badtext.json", "", 200, "field text: page 1 is a map"},
		{"no source", "", `{"hits":{"hits":[{"_index":"ori_x_2025","_id":"6074541"}]}}`, 200, "lacks _source"},
		{"gone", td + "ori-gone.html", "", 404, "switched off"},
		{"es error", td + "ori-error-400.json", "", 400, "Elasticsearch answered HTTP 400"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			if c.file != "" {
				h.Handle(docURL, c.status, c.file)
			} else {
				h.HandleBody(docURL, c.status, []byte(c.body))
			}
			res := sdktest.Call(t, ori.Plugin(), orgs(t, h), "get_document", `{"id":"6074541"}`)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want a tool error containing %q", res, c.want)
			}
		})
	}
}

func TestListOrganizations(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/ori_*/_search", 200, td+"ori-organizations.json")
	var l sdk.ListResult
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), h, "list_organizations", `{}`), &l)
	r := h.Requests()[0]
	if r.Method != "POST" || r.CacheClass != connector.ClassList || r.Service != ori.Service {
		t.Errorf("request = %+v", r)
	}
	wantBody := map[string]any{
		"size":    float64(500),
		"query":   map[string]any{"bool": map[string]any{"must": map[string]any{"match_all": map[string]any{}}, "filter": map[string]any{"terms": map[string]any{"classification": []any{"municipality", "province", "water"}}}}},
		"_source": map[string]any{"includes": []any{"name", "classification", "@type", "@id"}},
	}
	if d := cmp.Diff(wantBody, body(t, r.Body)); d != "" {
		t.Errorf("body (-want +got):\n%s", d)
	}
	want := sdk.ListResult{Platform: "ori", List: "organizations", Count: 3, Items: []sdk.Item{
		{ID: "den_helder", Type: "municipality", Title: "Den Helder", Organization: "Den Helder", Extra: map[string]map[string]any{"ori": {"index": "ori_den_helder_20190507105200", "ori_id": "4000001"}}},
		{ID: "soest", Type: "municipality", Title: "Soest", Organization: "Soest", Extra: map[string]map[string]any{"ori": {"index": "ori_soest_20250629013104", "ori_id": "7000001"}}},
		{ID: "zuid_holland", Type: "province", Title: "Provincie Zuid-Holland", Organization: "Provincie Zuid-Holland", Extra: map[string]map[string]any{"ori": {"index": "ori_zuid_holland_20250629013104", "ori_id": "8000001"}}},
	}}
	if d := cmp.Diff(want, l); d != "" {
		t.Errorf("list (-want +got):\n%s", d)
	}

	h = sdktest.NewHost(t).Handle(base+"/ori_*/_search", 200, td+"ori-search-empty.json")
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), h, "list_organizations", `{"classification":"water"}`), &l)
	if got := body(t, h.Requests()[0].Body)["query"]; !strings.Contains(fmt.Sprint(got), "[water]") || l.Count != 0 || l.Items == nil {
		t.Errorf("water only: query %v, list %+v", got, l)
	}

	h = sdktest.NewHost(t)
	res := sdktest.Call(t, ori.Plugin(), h, "list_organizations", `{"classification":"gemeente"}`)
	if !res.IsError || !strings.Contains(res.Text, `"classification"`) || len(h.Requests()) != 0 {
		t.Errorf("bad classification: %+v", res)
	}

	h = sdktest.NewHost(t).HandleErr(base+"/ori_*/_search", &connector.FetchError{Kind: connector.FetchUnavailable, Message: "connection refused"})
	res = sdktest.Call(t, ori.Plugin(), h, "list_organizations", `{}`)
	if !res.IsError || !strings.Contains(res.Text, "connection refused") || !strings.Contains(res.Text, "obv") {
		t.Errorf("unreachable: %+v", res)
	}
}

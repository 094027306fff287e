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
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), h, "get_document", `{"id":"6074541"}`), &d)
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
		}},
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("document (-want +got):\n%s", diff)
	}
}

func TestGetDocumentLarge(t *testing.T) {
	// About 1.2 MB over 100 pages, ORI's extraction maximum.
	pages := make([]string, 100)
	for i := range pages {
		pages[i] = strings.Repeat(fmt.Sprintf("Regel %d over de ijsbaan en het café van Soest, één van vele.\n", i), 190)
	}
	src := map[string]any{"@type": "MediaObject", "name": "Begroting", "text": pages}
	b, err := json.Marshal(map[string]any{"hits": map[string]any{"total": 1, "hits": []any{map[string]any{"_index": "ori_soest_20250629013104", "_id": "6074541", "_source": src}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 1_000_000 {
		t.Fatalf("fixture is only %d bytes", len(b))
	}
	h := sdktest.NewHost(t).HandleBody(docURL, 200, b)
	var first, last sdk.Document
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), h, "get_document", `{"id":"6074541"}`), &first)
	if first.Format != "text" || first.Pages < 50 || len(first.Text) > sdk.TextPageSize || !strings.HasPrefix(first.Text, "--- pagina 1 ---\n\nRegel 0") {
		t.Fatalf("page 1 of %d: %d bytes, format %s, starts %q", first.Pages, len(first.Text), first.Format, first.Text[:40])
	}
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), h, "get_document", fmt.Sprintf(`{"id":"6074541","page":%d}`, first.Pages)), &last)
	if last.Page != first.Pages || !strings.Contains(last.Text, "--- pagina 100 ---") || !strings.HasSuffix(last.Text, "één van vele.") {
		t.Errorf("last page %d: ends %q", last.Page, last.Text[max(0, len(last.Text)-40):])
	}
	res := sdktest.Call(t, ori.Plugin(), h, "get_document", fmt.Sprintf(`{"id":"6074541","page":%d}`, first.Pages+1))
	if !res.IsError || !strings.Contains(res.Text, `"page"`) {
		t.Errorf("page out of range: %+v", res)
	}
}

func TestGetDocumentTextOnlyInOneOrganization(t *testing.T) {
	u := base + "/ori_soest_2*/_search?_source_excludes=text_pages&q=_id%3A7001234&size=2"
	h := sdktest.NewHost(t).Handle(u, 200, td+"ori-document-textonly.json")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), h, "get_document", `{"id":"7001234","organization":"soest"}`), &d)
	if d.Format != "text" || d.Text != "Eén pagina platte tekst." || d.Organization != "soest" {
		t.Errorf("document = %+v", d)
	}
	if note, _ := d.Extra["ori"]["note"].(string); !strings.Contains(note, "more than one index") {
		t.Errorf("duplicate id not noted: %v", d.Extra)
	}
}

func TestGetDocumentWithoutText(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/ori_*/_search?_source_excludes=text_pages&q=_id%3A7001300&size=2", 200, td+"ori-document-meeting.json")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), h, "get_document", `{"id":"7001300"}`), &d)
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
			res := sdktest.Call(t, ori.Plugin(), h, "get_document", c.args)
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
			res := sdktest.Call(t, ori.Plugin(), h, "get_document", `{"id":"6074541"}`)
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

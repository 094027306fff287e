package ori_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

const (
	base = "https://api.openraadsinformatie.nl/v1/elastic"
	td   = "../../testdata/ori/"
)

func TestManifestValid(t *testing.T) {
	m := sdktest.CheckManifest(t, ori.Plugin())
	if s, ok := m.Service(ori.Service); !ok || s.Limited() {
		t.Errorf("service %q = %+v, want declared without a limit (none observed)", ori.Service, s)
	}
	for _, tool := range m.Tools {
		if !strings.Contains(tool.Description, "switched off") || !strings.Contains(tool.Description, "obv") {
			t.Errorf("tool %s: description must warn of the shutdown and name obv:\n%s", tool.Name, tool.Description)
		}
		if tool.CostNote == "" {
			t.Errorf("tool %s: no cost note", tool.Name)
		}
	}
	if len(m.Resources) != 1 || m.Resources[0].URITemplate != "besluitbron://ori/document/{+id}" {
		t.Errorf("resources = %+v", m.Resources)
	}
}

func TestIndexPattern(t *testing.T) {
	for _, c := range []struct{ key, want, err string }{
		{"", "ori_*", ""},
		{"soest", "ori_soest_2*", ""},
		{"horst", "ori_horst_2*", ""},
		{"den_helder", "ori_den_helder_2*", ""},
		{"Soest", "", `"organization"`},
		{"soest*", "", `"organization"`},
		{"../_cluster", "", `"organization"`},
		{"bergen op zoom", "", `"organization"`},
	} {
		got, err := ori.IndexPattern(c.key)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("IndexPattern(%q) error = %v, want one naming %s", c.key, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("IndexPattern(%q) = %q, %v; want %q", c.key, got, err, c.want)
		}
	}
}

func TestIndexKey(t *testing.T) {
	for in, want := range map[string]string{
		"ori_soest_20250629013104":         "soest",
		"ori_den_helder_20190507105200":    "den_helder",
		"ori_horst_aan_de_maas_2019050710": "horst_aan_de_maas",
		"ori_odd":                          "odd",
	} {
		if got := ori.IndexKey(in); got != want {
			t.Errorf("IndexKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// body decodes a request body so it can be compared regardless of spacing.
func body(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("request body is not JSON: %v\n%s", err, b)
	}
	return m
}

func TestSearchAllOrganizations(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/ori_*/_search", 200, td+"ori-search.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), orgs(t, h), "search", `{"query":"politie"}`), &sr)
	reqs := h.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Service != ori.Service || r.Cost != 1 || r.CacheClass != connector.ClassSearch || r.Header["Content-Type"] != "application/json" {
		t.Errorf("request = %+v", r)
	}
	want := map[string]any{
		"query": map[string]any{"bool": map[string]any{
			"must": map[string]any{"simple_query_string": map[string]any{
				"query": "politie", "fields": []any{"text", "title", "description", "name"}, "default_operator": "and",
			}},
			"filter": []any{},
		}},
		"_source":   map[string]any{"excludes": []any{"text", "md_text", "text_pages"}},
		"size":      float64(20),
		"from":      float64(0),
		"sort":      []any{map[string]any{"_score": map[string]any{"order": "desc"}}},
		"highlight": map[string]any{"pre_tags": []any{"<mark>"}, "post_tags": []any{"</mark>"}, "fields": map[string]any{"text": map[string]any{}, "title": map[string]any{}, "name": map[string]any{}, "description": map[string]any{}}, "fragment_size": float64(160), "number_of_fragments": float64(2)},
	}
	if d := cmp.Diff(want, body(t, r.Body)); d != "" {
		t.Errorf("body (-want +got):\n%s", d)
	}
	if sr.Total == nil || *sr.Total != 10000 || !sr.TotalIsApproximate || !sr.HasMore || len(sr.Results) != 1 {
		t.Fatalf("result = %+v", sr)
	}
	want1 := sdk.Item{
		ID: "6074541", Type: "MediaObject", Title: "Bijlage 1 - Verslag vorige vergadering", Date: "2025-06-26",
		Organization: "rotterdam", Snippet: "... inzet van de politie bij ...",
		URL: "https://api1.ibabs.eu/publicdownload.aspx?site=rotterdam&id=...",
		Extra: map[string]map[string]any{"ori": {
			"index": "ori_rotterdam_20250629013104", "score": 17.43, "content_type": "application/pdf", "file_name": "Bijlage 1.pdf",
			"size_in_bytes": float64(1024000), "is_referenced_by": "6074539", "has_organization_name": "6070001",
			"resolver_url":     "https://api.openraadsinformatie.nl/v1/resolve/...",
			"organization_key": "rotterdam", "id_uri": "https://id.openraadsinformatie.nl/6074541",
		}},
	}
	if d := cmp.Diff(want1, sr.Results[0]); d != "" {
		t.Errorf("item (-want +got):\n%s", d)
	}
}

func TestSearchOneOrganization(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/ori_soest_2*/_search", 200, td+"ori-search-soest.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), orgs(t, h), "search",
		`{"query":"ijsbaan café","organization":"soest","type":"document","date_from":"2025-01-01","date_to":"2025-12-31","sort":"date_desc","limit":2,"offset":20}`), &sr)
	got := body(t, h.Requests()[0].Body)
	wantQuery := map[string]any{"bool": map[string]any{
		"must": map[string]any{"simple_query_string": map[string]any{
			"query": "ijsbaan café", "fields": []any{"text", "title", "description", "name"}, "default_operator": "and",
		}},
		"filter": []any{
			map[string]any{"range": map[string]any{"last_discussed_at": map[string]any{"gte": "2025-01-01", "lte": "2025-12-31"}}},
			map[string]any{"bool": map[string]any{"minimum_should_match": float64(1), "should": []any{
				map[string]any{"term": map[string]any{"@type": "MediaObject"}},
				map[string]any{"term": map[string]any{"@type.keyword": "MediaObject"}},
			}}},
		},
	}}
	if d := cmp.Diff(wantQuery, got["query"]); d != "" {
		t.Errorf("query (-want +got):\n%s", d)
	}
	wantSort := []any{
		map[string]any{"last_discussed_at": map[string]any{"order": "desc", "unmapped_type": "date"}},
		map[string]any{"_score": map[string]any{"order": "desc"}},
	}
	if d := cmp.Diff(wantSort, got["sort"]); d != "" || got["size"] != float64(2) || got["from"] != float64(20) {
		t.Errorf("sort (-want +got):\n%s\nsize %v from %v", d, got["size"], got["from"])
	}
	if sr.Offset != 20 || !sr.HasMore || *sr.Total != 42 || sr.TotalIsApproximate || len(sr.Results) != 2 {
		t.Fatalf("result = %+v", sr)
	}
	doc, meeting := sr.Results[0], sr.Results[1]
	if doc.Title != "Raadsvoorstel herinrichting Sint-Janskerkhof en ëxtra ruimte voor fietsen" || doc.Organization != "Gemeente Soest" || doc.Extra["ori"]["organization_key"] != "soest" ||
		doc.URL != "https://soest.raadsinformatie.nl/document/12345/1/raadsvoorstel" {
		t.Errorf("document = %+v", doc)
	}
	if want := "... de ijsbaan bij het café & de kerk ... … tweede ijsbaan fragment … Raadsvoorstel ijsbaan"; doc.Snippet != want {
		t.Errorf("snippet = %q, want %q", doc.Snippet, want)
	}
	if meeting.Type != "Meeting" || meeting.Date != "2025-06-26" || meeting.URL != "" || meeting.Extra["ori"]["id_uri"] != "https://id.openraadsinformatie.nl/7001300" || meeting.Snippet != "" ||
		meeting.Extra["ori"]["classification"] != "Raad" {
		t.Errorf("meeting = %+v", meeting)
	}
}

func TestSearchOrganizationOnly(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/ori_soest_2*/_search", 200, td+"ori-search-empty.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), orgs(t, h), "search", `{"organization":"soest"}`), &sr)
	got := body(t, h.Requests()[0].Body)
	if d := cmp.Diff(map[string]any{"match_all": map[string]any{}}, got["query"].(map[string]any)["bool"].(map[string]any)["must"]); d != "" {
		t.Errorf("must (-want +got):\n%s", d)
	}
	if _, ok := got["highlight"]; ok {
		t.Error("highlight without a query")
	}
	if s := got["sort"].([]any)[0].(map[string]any); s["last_discussed_at"] == nil {
		t.Errorf("without a query the default sort should be by date, got %v", got["sort"])
	}
	if sr.Results == nil || len(sr.Results) != 0 || sr.HasMore || sr.Total == nil || *sr.Total != 0 {
		t.Errorf("empty result = %+v", sr)
	}
}

func TestSearchUnknownOrganization(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/ori_atlantis_2*/_search", 200, td+"ori-search-noindex.json")
	res := sdktest.Call(t, ori.Plugin(), orgs(t, h), "search", `{"query":"x","organization":"atlantis"}`)
	if !res.IsError || !strings.Contains(res.Text, `"atlantis" matches no ORI index`) {
		t.Errorf("got %+v", res)
	}
}

func TestSearchPartial(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/ori_*/_search", 200, td+"ori-search-partial.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), orgs(t, h), "search", `{"query":"notulen","limit":1}`), &sr)
	if sr.Total == nil || *sr.Total != 1 || sr.HasMore || len(sr.Notes) != 1 || !strings.Contains(sr.Notes[0], "incomplete") {
		t.Errorf("result = %+v", sr)
	}
}

func TestSearchSunsetHeader(t *testing.T) {
	b := []byte(`{"timed_out":false,"_shards":{"total":5,"failed":0},"hits":{"total":{"value":0,"relation":"eq"},"hits":[]}}`)
	h := sdktest.NewHost(t, sdktest.Route{Match: base + "/ori_*/_search", Response: connector.FetchResponse{
		Status: 200, Body: b, Header: map[string]string{"sunset": "Sat, 01 Nov 2026 00:00:00 GMT"},
	}})
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), orgs(t, h), "search", `{"query":"x"}`), &sr)
	if len(sr.Notes) != 1 || !strings.Contains(sr.Notes[0], "01 Nov 2026") || !strings.Contains(sr.Notes[0], "obv") {
		t.Errorf("notes = %q", sr.Notes)
	}
}

func TestSearchBadArguments(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"neither", `{}`, "give query or organization"},
		{"blank query", `{"query":"   "}`, "give query or organization"},
		{"limit", `{"query":"x","limit":51}`, `"limit"`},
		{"negative offset", `{"query":"x","offset":-1}`, `"offset"`},
		{"window", `{"query":"x","offset":9990,"limit":20}`, "exceeds 10000"},
		{"date", `{"query":"x","date_from":"1-1-2024"}`, `"date_from"`},
		{"impossible date", `{"query":"x","date_to":"2024-02-31"}`, `"date_to"`},
		{"order", `{"query":"x","date_from":"2025-01-01","date_to":"2024-01-01"}`, "after date_to"},
		{"type", `{"query":"x","type":"motion"}`, `"type"`},
		{"sort", `{"query":"x","sort":"random"}`, `"sort"`},
		{"organization", `{"query":"x","organization":5}`, `"organization"`},
		{"wrong type", `{"query":5}`, `"query"`},
		{"unknown", `{"query":"x","index":"ori_*"}`, "index"},
		{"long", `{"query":"` + strings.Repeat("ij", 251) + `"}`, `"query"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			res := sdktest.Call(t, ori.Plugin(), orgs(t, h), "search", c.args)
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
	read := func(name string) string { return string(mustRead(t, td+name)) }
	for _, c := range []struct {
		name, body string
		status     int
		want       []string
	}{
		{"es 400", read("ori-error-400.json"), 400, []string{"Elasticsearch answered HTTP 400", "search_phase_execution_exception", `Failed to parse query ["open]`}},
		{"es 500", `{"error":{"type":"circuit_breaking_exception","reason":"[parent] Data too large"},"status":500}`, 500, []string{"HTTP 500", "Data too large"}},
		{"nginx 403", read("ori-403.html"), 403, []string{"switched off", "obv_search", "403"}},
		{"gone 404", read("ori-gone.html"), 404, []string{"switched off", "obv_search", "HTTP 404"}},
		{"gone 410", ``, 410, []string{"switched off", "(empty body)"}},
		{"redirect", ``, 301, []string{"switched off", "HTTP 301"}},
		{"bad gateway", `<html><body>502 Bad Gateway</body></html>`, 502, []string{"switched off"}},
		{"html 200", read("ori-gone.html"), 200, []string{"switched off", "not JSON", "<!DOCTYPE html>"}},
		{"other 4xx", `plain text`, 429, []string{"HTTP 429", "plain text"}},
		{"malformed", `{"hits": {`, 200, []string{"not the expected JSON"}},
		{"wrong shape", `{"took": 1}`, 200, []string{"lacks hits.hits"}},
		{"hit without id", `{"hits":{"total":1,"hits":[{"_index":"ori_x_2024","_source":{}}]}}`, 200, []string{"without _id"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t).HandleBody(base+"/ori_*/_search", c.status, []byte(c.body))
			res := sdktest.Call(t, ori.Plugin(), orgs(t, h), "search", `{"query":"x"}`)
			if !res.IsError {
				t.Fatalf("got %+v, want a tool error", res)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("error %q lacks %q", res.Text, w)
				}
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		h := sdktest.NewHost(t).HandleErr(base+"/ori_*/_search", &connector.FetchError{Kind: connector.FetchUnavailable, Message: "dial tcp: lookup api.openraadsinformatie.nl: no such host"})
		res := sdktest.Call(t, ori.Plugin(), orgs(t, h), "search", `{"query":"x"}`)
		if !res.IsError || !strings.Contains(res.Text, "no such host") || !strings.Contains(res.Text, "obv connector") {
			t.Errorf("got %+v", res)
		}
	})
	t.Run("queue timeout is not a shutdown", func(t *testing.T) {
		h := sdktest.NewHost(t).HandleErr(base+"/ori_*/_search", &connector.FetchError{Kind: connector.FetchQueueTimeout, Message: "no room before the deadline"})
		res := sdktest.Call(t, ori.Plugin(), orgs(t, h), "search", `{"query":"x"}`)
		if !res.IsError || !strings.Contains(res.Text, "no room") || strings.Contains(res.Text, "switched off") {
			t.Errorf("got %+v", res)
		}
	})
}

// TestSearchOptionalPartsFailSoft: a highlight, a _score or a _shards
// report of another shape, or a hit without _id, costs that part and a
// note, not the search.
func TestSearchOptionalPartsFailSoft(t *testing.T) {
	b := []byte(`{"timed_out":false,"_shards":"all fine","hits":{"total":{"value":3,"relation":"eq"},"hits":[
 {"_index":"ori_soest_20250629013104","_id":"1","_score":"hoog","_source":{"@type":"MediaObject","name":"Eén"},"highlight":{"text":"<mark>ijsbaan</mark>"}},
 {"_index":"ori_soest_20250629013104","_source":{"name":"zonder id"}},
 {"_index":"ori_soest_20250629013104","_id":"3","_score":2.5,"_source":{"name":"Drie"},"highlight":{"name":["<mark>Drie</mark>"]}}]}}`)
	h := sdktest.NewHost(t).HandleBody(base+"/ori_*/_search", 200, b)
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), orgs(t, h), "search", `{"query":"ijsbaan"}`), &sr)
	if len(sr.Results) != 2 || sr.Results[0].ID != "1" || sr.Results[0].Snippet != "" || sr.Results[0].Extra["ori"]["score"] != nil ||
		sr.Results[1].Snippet != "Drie" || sr.Results[1].Extra["ori"]["score"] != 2.5 || sr.HasMore {
		t.Errorf("results = %+v, has_more %v", sr.Results, sr.HasMore)
	}
	for _, want := range []string{"report of timeouts and failed shards is unreadable", "1 hit(s) without an ORI id", "snippets of 1 hit(s) are left out", "scores of 1 hit(s) are left out"} {
		if !strings.Contains(strings.Join(sr.Notes, "\n"), want) {
			t.Errorf("notes %q lack %q", sr.Notes, want)
		}
	}
}

package opentk_test

import (
	"encoding/json"
	"fmt"
	"mime"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

const (
	base      = "https://berthub.eu/tkconv"
	searchURL = base + "/search"
	td        = "../../testdata/opentk/"
)

func TestManifestValid(t *testing.T) {
	m := sdktest.CheckManifest(t, opentk.Plugin())
	for _, name := range []string{opentk.ServiceSearch, opentk.ServicePages} {
		s, ok := m.Service(name)
		if !ok || s.Limited() || !strings.Contains(s.Description, "no strict limit") {
			t.Errorf("service %s = %+v, want no declared limit (the seed: no strict limit), said so", name, s)
		}
	}
	for _, tool := range m.Tools {
		if tool.CostNote == "" {
			t.Errorf("tool %s: no cost note", tool.Name)
		}
	}
	search := m.Tools[0]
	for _, w := range []string{"280", "no paging", "apply within those", "partial"} {
		if !strings.Contains(search.Description, w) {
			t.Errorf("search description lacks %q", w)
		}
	}
}

// form decodes a recorded multipart request body into its fields.
func form(t *testing.T, r connector.FetchRequest) map[string]string {
	t.Helper()
	mt, params, err := mime.ParseMediaType(r.Header["Content-Type"])
	if err != nil || mt != "multipart/form-data" {
		t.Fatalf("Content-Type %q: %v", r.Header["Content-Type"], err)
	}
	rd := multipart.NewReader(strings.NewReader(string(r.Body)), params["boundary"])
	f, err := rd.ReadForm(1 << 20)
	if err != nil {
		t.Fatalf("body is not multipart: %v", err)
	}
	out := map[string]string{}
	for k, v := range f.Value {
		out[k] = strings.Join(v, ",")
	}
	if len(f.File) != 0 {
		t.Errorf("unexpected file parts %v", f.File)
	}
	return out
}

func TestSearch(t *testing.T) {
	h := sdktest.NewHost(t).Handle(searchURL, 200, td+"opentk-search.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "search", `{"query":"klimaatbeleid"}`), &sr)
	reqs := h.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Service != opentk.ServiceSearch || r.Cost != 1 || r.CacheClass != connector.ClassSearch {
		t.Errorf("request = %+v", r)
	}
	if d := cmp.Diff(map[string]string{"q": "klimaatbeleid", "twomonths": "false", "soorten": "alles"}, form(t, r)); d != "" {
		t.Errorf("form (-want +got):\n%s", d)
	}
	if sr.Total == nil || *sr.Total != 3 || sr.TotalIsApproximate || sr.HasMore || len(sr.Results) != 3 {
		t.Fatalf("result = %+v", sr)
	}
	// date_desc by default: the activity (2024-11-20) first.
	var ids []string
	for _, it := range sr.Results {
		ids = append(ids, it.ID)
	}
	if d := cmp.Diff([]string{"2024A05123", "2024D41173", "d7a7c3de-0000-4000-8000-000000000000"}, ids); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	want := sdk.Item{
		ID: "2024D41173", Type: "Document", Title: "Motie van het lid X over klimaatbeleid", Date: "2024-10-15", Organization: "Tweede Kamer",
		Snippet: "...het klimaatbeleid van het kabinet...", URL: base + "/document.html?nummer=2024D41173",
		Keys:  map[string]string{"tk_document_number": "2024D41173"},
		Extra: map[string]map[string]any{"opentk": {"score": -12.345678, "bijgewerkt": "2024-10-16T09:12:03", "full_text": true}},
	}
	if d := cmp.Diff(want, sr.Results[1]); d != "" {
		t.Errorf("document (-want +got):\n%s", d)
	}
	if len(sr.Notes) != 1 || !strings.Contains(sr.Notes[0], "returned 3 row(s)") {
		t.Errorf("notes = %q", sr.Notes)
	}
}

func TestSearchFormIsStable(t *testing.T) {
	a1 := opentk.SearchArgs{Query: " ijsselbrug ", Kind: "motions", LastTwoMonths: true, Offset: 40, Sort: "relevance", Category: "Document"}
	a2 := opentk.SearchArgs{Query: "ijsselbrug", Kind: "motions", LastTwoMonths: true}
	u1, b1, c1, err1 := opentk.SearchForm(base, &a1)
	u2, b2, c2, err2 := opentk.SearchForm(base, &a2)
	if err1 != nil || err2 != nil || u1 != u2 || string(b1) != string(b2) || c1 != c2 {
		t.Errorf("two searches for the same rows differ:\n%q %q\n%q\n%q", u1, u2, b1, b2)
	}
	if !strings.Contains(c1, "boundary="+opentk.Boundary) || a1.Limit != 20 {
		t.Errorf("content type %q, defaults %+v", c1, a1)
	}
}

func TestSearchSlicingAndFilters(t *testing.T) {
	h := sdktest.NewHost(t).Handle(searchURL, 200, td+"opentk-search-mixed.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "search", `{"query":"ijsselbrug","kind":"questions","last_two_months":true,"sort":"relevance","limit":2,"offset":1}`), &sr)
	if d := cmp.Diff(map[string]string{"q": "ijsselbrug", "twomonths": "true", "soorten": "vragenantwoorden"}, form(t, h.Requests()[0])); d != "" {
		t.Errorf("form (-want +got):\n%s", d)
	}
	// By relevance: Verslag -30.1, Document -20.5, Activiteit -9.87, ...
	if len(sr.Results) != 2 || sr.Results[0].ID != "2025D01234" || sr.Results[1].ID != "2024A05123" || !sr.HasMore || *sr.Total != 6 || sr.Offset != 1 {
		t.Fatalf("result = %+v", sr)
	}
	doc := sr.Results[0]
	if doc.Title != "Motie van het lid Ëlmaz over de ijsselbrug en café-terrassen" || doc.Snippet != "...de ijsselbrug bij Zwolle & Kampen..." ||
		doc.Extra["opentk"]["soort"] != "Motie" || doc.Extra["opentk"]["titel"] != "Motie van het lid Ëlmaz" {
		t.Errorf("document = %+v", doc)
	}
	var slow bool
	for _, n := range sr.Notes {
		slow = slow || strings.Contains(n, "1003 ms")
	}
	if !slow {
		t.Errorf("a search at OpenTK's time cap must warn of partial results: %q", sr.Notes)
	}

	sr = sdk.SearchResult{}
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "search", `{"query":"ijsselbrug","date_from":"2024-11-01","date_to":"2024-12-31","sort":"date_asc"}`), &sr)
	var got []string
	for _, it := range sr.Results {
		got = append(got, it.Type+" "+it.Date)
	}
	if d := cmp.Diff([]string{"Activiteit 2024-11-20", "Toezegging 2024-11-21"}, got); d != "" || *sr.Total != 2 || sr.HasMore {
		t.Errorf("date filter (-want +got):\n%s\n%+v", d, sr)
	}
	if !strings.Contains(strings.Join(sr.Notes, " "), "applied by this connector to the 6 returned rows; 2 matched") {
		t.Errorf("notes = %q", sr.Notes)
	}

	sr = sdk.SearchResult{}
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "search", `{"query":"ijsselbrug","category":"OODocument"}`), &sr)
	if len(sr.Results) != 1 {
		t.Fatalf("category filter: %+v", sr)
	}
	oo := sr.Results[0]
	if oo.Organization != "Ministerie van Infrastructuur en Waterstaat" || oo.Date != "" || oo.URL != base+"/oo.html?nummer=oep-abc123" || oo.Extra["opentk"]["full_text"] != false {
		t.Errorf("Woo document = %+v", oo)
	}

	sr = sdk.SearchResult{}
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "search", `{"query":"ijsselbrug","category":"PersoonGeschenk","sort":"indexed"}`), &sr)
	if g := sr.Results[0]; g.URL != base+"/persoon.html?nummer=1234#0b5d6c7e-1111-4222-8333-444455556666" || g.Extra["opentk"]["persoonnummer"] != float64(1234) {
		t.Errorf("gift = %+v", g)
	}

	sr = sdk.SearchResult{}
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "search", `{"query":"ijsselbrug","offset":200}`), &sr)
	if len(sr.Results) != 0 || sr.Results == nil || sr.HasMore || *sr.Total != 6 {
		t.Errorf("offset past the rows: %+v", sr)
	}
	if n := len(h.Requests()); n != 5 {
		t.Errorf("%d upstream requests for 5 calls", n)
	}
}

func TestSearchCap(t *testing.T) {
	var rows []map[string]any
	for i := range opentk.MaxRows {
		rows = append(rows, map[string]any{
			"nummer": fmt.Sprintf("2024D%05d", i), "datum": fmt.Sprintf("2024-%02d-%02dT00:00:00", 1+i%12, 1+i%28), "score": -float64(i),
			"category": "Document", "onderwerp": "Stikstof", "snip": "<b>stikstof</b>", "relurl": fmt.Sprintf("get/2024D%05d", i), "bijgewerkt": "", "persoonnummer": -1,
		})
	}
	b, _ := json.Marshal(map[string]any{"results": rows, "milliseconds": 420.5})
	h := sdktest.NewHost(t).HandleBody(searchURL, 200, b)
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "search", `{"query":"stikstof","limit":100,"offset":200,"sort":"indexed"}`), &sr)
	if len(sr.Results) != 80 || sr.HasMore || *sr.Total != 280 || !sr.TotalIsApproximate || sr.Results[0].ID != "2024D00200" {
		t.Fatalf("result: %d results, has_more %v, total %v approx %v", len(sr.Results), sr.HasMore, *sr.Total, sr.TotalIsApproximate)
	}
	if !strings.Contains(strings.Join(sr.Notes, " "), "cap of 280 rows") {
		t.Errorf("notes = %q", sr.Notes)
	}
}

func TestSearchEmpty(t *testing.T) {
	h := sdktest.NewHost(t).Handle(searchURL, 200, td+"opentk-search-empty.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "search", `{"query":"\"geen enkel resultaat\""}`), &sr)
	if sr.Results == nil || len(sr.Results) != 0 || sr.HasMore || sr.Total == nil || *sr.Total != 0 || sr.TotalIsApproximate {
		t.Errorf("empty = %+v", sr)
	}
	if got := form(t, h.Requests()[0])["q"]; got != `"geen enkel resultaat"` {
		t.Errorf("phrase query sent as %q", got)
	}
}

func TestSearchBadArguments(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"no query", `{}`, `"query"`},
		{"blank query", `{"query":"  "}`, `"query"`},
		{"long query", `{"query":"` + strings.Repeat("ë", 251) + `"}`, `"query"`},
		{"kind", `{"query":"x","kind":"moties"}`, `"kind"`},
		{"category", `{"query":"x","category":"Motie"}`, `"category"`},
		{"date", `{"query":"x","date_from":"2024/01/01"}`, `"date_from"`},
		{"order", `{"query":"x","date_from":"2025-01-01","date_to":"2024-01-01"}`, "after date_to"},
		{"sort", `{"query":"x","sort":"score"}`, `"sort"`},
		{"limit", `{"query":"x","limit":101}`, `"limit"`},
		{"offset", `{"query":"x","offset":280}`, `"offset"`},
		{"two months type", `{"query":"x","last_two_months":"yes"}`, `"last_two_months"`},
		{"unknown", `{"query":"x","page":2}`, "page"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			res := sdktest.Call(t, opentk.Plugin(), h, "search", c.args)
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
		name, file, body string
		status           int
		want             []string
	}{
		{"fts syntax", td + "opentk-500-fts.html", "", 500, []string{"HTTP 500", `fts5: syntax error near "AND"`, "check the query syntax"}},
		{"overloaded", "", "<html><body><h1>503 Service Unavailable</h1></body></html>", 503, []string{"HTTP 503", "503 Service Unavailable"}},
		{"html instead of json", "", "<!DOCTYPE html><html><body>Search</body></html>", 200, []string{"not the expected JSON", "<!DOCTYPE html>"}},
		{"malformed", "", `{"results":[`, 200, []string{"not the expected JSON"}},
		{"wrong shape", "", `{"milliseconds": 3}`, 200, []string{"lacks results"}},
		{"row without nummer", "", `{"results":[{"category":"Document","datum":"2024-01-01"}]}`, 200, []string{"row 1", "lacks nummer"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			if c.file != "" {
				h.Handle(searchURL, c.status, c.file)
			} else {
				h.HandleBody(searchURL, c.status, []byte(c.body))
			}
			res := sdktest.Call(t, opentk.Plugin(), h, "search", `{"query":"a AND"}`)
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
	h := sdktest.NewHost(t).HandleErr(searchURL, &connector.FetchError{Kind: connector.FetchQueueTimeout, Message: "the search limit leaves no room before the deadline"})
	res := sdktest.Call(t, opentk.Plugin(), h, "search", `{"query":"x"}`)
	if !res.IsError || !strings.Contains(res.Text, "queue_timeout") {
		t.Errorf("fetch error: %+v", res)
	}
}

// TestSearchSoftFailures: a row without nummer or category is left out
// with a note, a field of another type is left out of its row with a
// note, and a search time in another form is named; the other rows are
// answered.
func TestSearchSoftFailures(t *testing.T) {
	body := `{"milliseconds":"veel","results":[` +
		`{"nummer":"2024D1","category":"Document","datum":"2024-10-01T00:00:00","onderwerp":"Motie over de ijsselbrug","score":"hoog"},` +
		`{"category":"Document","datum":"2024-10-02"},` +
		`{"nummer":7,"category":"Document"},` +
		`{"nummer":"2024D4","category":"Document","datum":"2024-10-04T00:00:00","onderwerp":"Brief over het café","persoonnummer":12}]}`
	h := sdktest.NewHost(t).HandleBody(searchURL, 200, []byte(body))
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "search", `{"query":"ijsselbrug"}`), &sr)
	if len(sr.Results) != 2 || sr.Results[0].ID != "2024D4" || sr.Results[1].ID != "2024D1" || sr.Results[1].Extra["opentk"]["score"] != nil ||
		sr.Results[0].Extra["opentk"]["persoonnummer"] != float64(12) || *sr.Total != 2 {
		t.Fatalf("results = %+v", sr)
	}
	want := []string{
		"OpenTK has no paging: it returned 4 row(s) (at most 280); offset, limit and sort were applied by this connector to those rows.",
		"2 of the 4 rows could not be read and were left out (row 2 of OpenTK's answer lacks nummer or category).",
		"OpenTK sent rows with score in an unexpected form; left out.",
		"OpenTK's answer gave its search time in an unexpected form, so whether it cut the search short under load is unknown.",
	}
	if diff := cmp.Diff(want, sr.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

package opentk_test

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestCitationIsAPageOnHTTPS holds opentk to the citation rule: every url
// is a page of OpenTK a person opens, on https (not a rendition like
// /getdoc or /getraw, nor the /get redirect a row names), and
// opentk_search and opentk_get_document cite the same page for the same
// Document or Verslag.
func TestCitationIsAPageOnHTTPS(t *testing.T) {
	verslag := "d7a7c3de-0000-4000-8000-000000000000"
	h := sdktest.NewHost(t).
		Handle(searchURL, 200, td+"opentk-search-mixed.json").
		Handle(base+"/getdoc/2025D01234", 200, td+"opentk-getdoc-2024D41173.html").
		HandleBody(base+"/document.html?nummer=2025D01234", 404, []byte("Found nothing in document.html!!")).
		Handle(base+"/verslag.html?vergaderingid="+verslag, 200, td+"opentk-verslag.html")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "search", `{"query":"ijsselbrug","limit":100}`), &sr)
	if len(sr.Results) < 6 {
		t.Fatalf("%d results, want the fixture's six categories", len(sr.Results))
	}
	cited := map[string]string{}
	for _, r := range sr.Results {
		rest, ok := strings.CutPrefix(r.URL, "https://berthub.eu/tkconv/")
		if !ok || strings.HasPrefix(rest, "get") || !strings.Contains(rest, ".html") {
			t.Errorf("%s %s: url %q is not an OpenTK page on https", r.Type, r.ID, r.URL)
		}
		cited[r.Type+" "+r.ID] = r.URL
	}
	for _, c := range []struct{ category, nummer string }{{"Document", "2025D01234"}, {"Verslag", verslag}} {
		var d sdk.Document
		sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "get_document", `{"nummer":"`+c.nummer+`","category":"`+c.category+`"}`), &d)
		if want := cited[c.category+" "+c.nummer]; d.URL != want || want == "" {
			t.Errorf("%s %s: get_document url %q, search url %q: one item, two citations", c.category, c.nummer, d.URL, want)
		}
	}
	if got := cited["Document 2025D01234"]; got != "https://berthub.eu/tkconv/document.html?nummer=2025D01234" {
		t.Errorf("document url = %q", got)
	}
}

package ori_test

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestFind: after page 1 of a 2.2 MB hit, a find answers from the kept
// text, names the page of the original PDF each match is on (ORI's text
// has one string per page, marked "--- pagina N ---") and links the
// original at that page.
func TestFind(t *testing.T) {
	body, src := longHit(t, false)
	h := orgs(t, sdktest.NewHost(t).HandleBody(docURL, 200, body))
	first, found := sdktest.FindAfterRead(t, ori.Plugin(), h, "get_document", `{"id":"6074541"}`,
		`{"id":"6074541","find":"\"een reunie met zoe, naief\""}`)
	original := src["original_url"].(string)
	f := found.Find
	if f.Matches != 1 || len(f.Pages) != 1 || f.Pages[0].Page != first.Pages || f.Pages[0].SourcePage != 100 || f.Pages[0].Link != original+"#page=100" {
		t.Fatalf("find: %+v", f)
	}
	// A line on every page of the original: every text page listed, each
	// snippet naming its PDF page.
	_, found = sdktest.FindAfterRead(t, ori.Plugin(), h, "get_document", `{"id":"6074541"}`, `{"id":"6074541","find":"\"regel 57:\""}`)
	f = found.Find
	if f.Matches != 120 || len(f.Pages) == 0 || f.Pages[0].SourcePage != 58 {
		t.Fatalf("find: %+v", f)
	}
	for _, p := range f.Pages {
		for _, s := range p.Snippets {
			if s.SourcePage != 58 || !strings.Contains(s.Text, "Regel 57:") {
				t.Errorf("page %d: snippet %+v", p.Page, s)
			}
		}
	}
}

package opentk_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestFind: after page 1 of a rendition of more than 1 MB of text, a find
// answers from the kept text (no request, no parse of the HTML) and
// names the last page for the closing phrase, found folded.
func TestFind(t *testing.T) {
	// OpenTK's page of the document (its title and date) is read along
	// with page 1; here it is missing, which page 1 survives.
	h := sdktest.NewHost(t).HandleBody(base+"/getdoc/2025D00001", 200, []byte(getdoc())).
		HandleBody(base+"/document.html?nummer=2025D00001", 404, []byte("Found nothing in document.html!!"))
	first, found := sdktest.FindAfterRead(t, opentk.Plugin(), h, "get_document", `{"id":"2025D00001"}`,
		`{"id":"2025D00001","find":"\"financiele reunie en een naieve coordinatie\""}`)
	if f := found.Find; f.Matches != 1 || len(f.Pages) != 1 || f.Pages[0].Page != first.Pages {
		t.Fatalf("find: %+v", f)
	}
	if n := len(h.Requests()); n != 2 {
		t.Errorf("%d requests, want 2 (page 1's rendition and document page; the find none)", n)
	}
}

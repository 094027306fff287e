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
	h := sdktest.NewHost(t).HandleBody(base+"/getdoc/2025D00001", 200, []byte(getdoc()))
	first, found := sdktest.FindAfterRead(t, opentk.Plugin(), h, "get_document", `{"id":"2025D00001"}`,
		`{"id":"2025D00001","find":"\"financiele reunie en een naieve coordinatie\""}`)
	if f := found.Find; f.Matches != 1 || len(f.Pages) != 1 || f.Pages[0].Page != first.Pages {
		t.Fatalf("find: %+v", f)
	}
	if n := len(h.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (page 1's)", n)
	}
}

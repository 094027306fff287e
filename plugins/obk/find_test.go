package obk_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestFind: after page 1 of a Handelingen of more than 1 MB of text, a
// find answers from the kept text, neither fetching the XML (one of the
// 10 requests per 30 s) nor parsing it again, and names the last page
// for the closing phrase, found without its accents.
func TestFind(t *testing.T) {
	const id = "h-tk-20232024-99-1"
	h := sdktest.NewHost(t).HandleBody(zoek+"/"+id+".xml", 200, []byte(handelingen())).
		HandleBody(obk.RecordURL(obk.SRUBase, id), 200, []byte(noRecord))
	first, found := sdktest.FindAfterRead(t, obk.Plugin(), h, "get_document", fmt.Sprintf(`{"id":%q}`, id),
		fmt.Sprintf(`{"id":%q,"find":"\"Financiele Reunie en een naieve coordinatie\""}`, id))
	f := found.Find
	if f.Matches != 1 || len(f.Pages) != 1 || f.Pages[0].Page != first.Pages || len(f.Pages[0].Snippets) != 1 ||
		!strings.Contains(f.Pages[0].Snippets[0].Text, "de financiële reünie en een naïeve coördinatie.") {
		t.Fatalf("find: %+v", f)
	}
	if !strings.Contains(found.Text, fmt.Sprintf("1 match(es) on 1 of %d page(s): %d.", first.Pages, first.Pages)) {
		t.Errorf("text %q", found.Text)
	}
}

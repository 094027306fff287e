package obv_test

import (
	"fmt"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestFind: after page 1 of an entity of more than 1 MB of markdown, a
// find answers from the kept text (no request, no decoding) and names
// the last page for the closing phrase, found folded.
func TestFind(t *testing.T) {
	h := sdktest.NewHost(t).HandleBody(base+"/api/entities/document%3Aibabs%3Agemeente%3Autrecht%3A990101", 200, longEntity(t))
	first, found := sdktest.FindAfterRead(t, obv.Plugin(), h, "get_document", fmt.Sprintf(`{"id":%q}`, longID),
		fmt.Sprintf(`{"id":%q,"find":"\"een reunie met zoe, naief\""}`, longID))
	if f := found.Find; f.Matches != 1 || len(f.Pages) != 1 || f.Pages[0].Page != first.Pages {
		t.Fatalf("find: %+v", f)
	}
	if n := len(h.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (page 1's)", n)
	}
}

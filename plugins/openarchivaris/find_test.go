package openarchivaris_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestFind: after page 1 of a document of more than 1 MB of text, a find
// answers from the kept text and names the last page for the closing
// phrase, found folded.
func TestFind(t *testing.T) {
	h := sdktest.NewHost(t).HandleBody(base+"/api/documents/d-2024-utrecht-990101", 200, longDocument(t, "document"))
	first, found := sdktest.FindAfterRead(t, openarchivaris.Plugin(), h, "get_document", `{"id":"d-2024-utrecht-990101"}`,
		`{"id":"d-2024-utrecht-990101","find":"\"EEN REUNIE met Zoe\" naief"}`)
	if f := found.Find; f.Matches != 2 || len(f.Pages) != 1 || f.Pages[0].Page != first.Pages {
		t.Fatalf("find: %+v", f)
	}
	if n := len(h.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (page 1's)", n)
	}
}

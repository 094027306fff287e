package example_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/example"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestFind: after page 1, a find answers from the text the host keeps
// (no request) with the page that holds the words, whatever their case
// and accents.
func TestFind(t *testing.T) {
	var md strings.Builder
	for i := 0; md.Len() < 3*sdk.TextPageSize; i++ {
		fmt.Fprintf(&md, "## %d. Bevinding\n\nDe raad bespreekt één coördinatie.\n\n", i)
	}
	md.WriteString("Slot: de Ĳsselbrug en het café.")
	const id = "document:ibabs:gemeente:utrecht:990101"
	body, _ := json.Marshal(map[string]any{"entityId": id, "entityType": "Document", "title": "Rapport", "markdownText": md.String()})
	h := sdktest.NewHost(t).HandleBody(base+"/api/entities/document%3Aibabs%3Agemeente%3Autrecht%3A990101", 200, body)
	first, found := sdktest.FindAfterRead(t, example.Plugin(), h, "get_document", `{"entity_id":"`+id+`"}`, `{"entity_id":"`+id+`","find":"ijsselbrug CAFE"}`)
	if f := found.Find; f.Matches != 2 || len(f.Pages) != 1 || f.Pages[0].Page != first.Pages {
		t.Fatalf("find: %+v", f)
	}
	if n := len(h.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (page 1's)", n)
	}
}

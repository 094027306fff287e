package openarchivaris_test

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestSearchAllWords: the issue-28 case. The platform also sends a
// document with only some of the words; it is left out and counted.
func TestSearchAllWords(t *testing.T) {
	h := sdktest.NewHost(t).Handle("https://openarchivaris.nl/api/search?*", 200, "../../testdata/openarchivaris/oa-search-some-words.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "search", `{"query":"Parlementaire enquete uitvoering en herstel","limit":3}`), &sr)
	var ids []string
	for _, it := range sr.Results {
		ids = append(ids, it.ID)
	}
	if strings.Join(ids, " ") != "d-2025-tk-000871 d-2024-zwolle-000077" {
		t.Errorf("results %v, want the two holding every word", ids)
	}
	if notes := strings.Join(sr.Notes, " "); !strings.Contains(notes, "1 of the 3 results") || !strings.Contains(notes, "lack parlementaire, enquete") {
		t.Errorf("notes %q", sr.Notes)
	}
	// One word: the platform's match (or synonym) stands.
	h = sdktest.NewHost(t).Handle("https://openarchivaris.nl/api/search?*", 200, "../../testdata/openarchivaris/oa-search-some-words.json")
	sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "search", `{"query":"fraudebeleid","limit":3}`), &sr)
	if len(sr.Results) != 3 {
		t.Errorf("one word: %d results, want all 3", len(sr.Results))
	}
}

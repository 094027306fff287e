package ori_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestCitationIsAPageOnHTTPS holds ori to the citation rule: a url is the
// supplier's original on https, never ORI's API, resolver or id URI (they
// stay in extra.ori) and never http; an item without one has no url; and
// search and get_document cite the same link for an item.
func TestCitationIsAPageOnHTTPS(t *testing.T) {
	raw, err := os.ReadFile(td + "ori-search-soest.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Hits struct {
			Hits []map[string]any `json:"hits"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(raw, &rec); err != nil || len(rec.Hits.Hits) == 0 {
		t.Fatalf("fixture: %v", err)
	}
	// One more hit whose supplier links on http.
	plain := map[string]any{"_index": "ori_soest_20250629013104", "_id": "7001999", "_source": map[string]any{
		"@type": "MediaObject", "name": "Notulen", "original_url": "http://soest.example/notulen.pdf", "url": "https://api.openraadsinformatie.nl/v1/resolve/soest/x"}}
	rec.Hits.Hits = append(rec.Hits.Hits, plain)
	search, _ := json.Marshal(map[string]any{"hits": map[string]any{"total": map[string]any{"value": len(rec.Hits.Hits), "relation": "eq"}, "hits": rec.Hits.Hits}})
	h := sdktest.NewHost(t).HandleBody(base+"/ori_soest_2*/_search", 200, search)
	for _, hit := range rec.Hits.Hits {
		id := hit["_id"].(string)
		u, err := ori.DocumentURL(base, id, "")
		if err != nil {
			t.Fatal(err)
		}
		one, _ := json.Marshal(map[string]any{"hits": map[string]any{"total": map[string]any{"value": 1, "relation": "eq"}, "hits": []any{hit}}})
		h.HandleBody(u, 200, one)
	}
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), orgs(t, h), "search", `{"organization":"soest","limit":50}`), &sr)
	if len(sr.Results) != len(rec.Hits.Hits) {
		t.Fatalf("%d results, want %d", len(sr.Results), len(rec.Hits.Hits))
	}
	cited := 0
	for _, r := range sr.Results {
		if r.URL != "" {
			cited++
			if !strings.HasPrefix(r.URL, "https://") || strings.Contains(r.URL, "openraadsinformatie.nl") {
				t.Errorf("%s: url %q is not the supplier's original on https", r.ID, r.URL)
			}
		}
		var d sdk.Document
		sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), orgs(t, h), "get_document", `{"id":"`+r.ID+`"}`), &d)
		if d.URL != r.URL {
			t.Errorf("%s: get_document url %q, search url %q: one item, two citations", r.ID, d.URL, r.URL)
		}
		if d.Extra["ori"]["id_uri"] != "https://id.openraadsinformatie.nl/"+r.ID || r.Extra["ori"]["id_uri"] != d.Extra["ori"]["id_uri"] {
			t.Errorf("%s: id URI not kept in extra: %v", r.ID, d.Extra["ori"])
		}
	}
	if cited == 0 {
		t.Errorf("no result cites its original")
	}
	last := sr.Results[len(sr.Results)-1]
	if last.URL != "" || last.Extra["ori"]["original_url"] != "http://soest.example/notulen.pdf" || last.Extra["ori"]["resolver_url"] != "https://api.openraadsinformatie.nl/v1/resolve/soest/x" {
		t.Errorf("http original: url %q, extra %v", last.URL, last.Extra["ori"])
	}
}

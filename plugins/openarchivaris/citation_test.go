package openarchivaris_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestCitationIsAPageOnHTTPS holds openarchivaris to the citation rule: a
// url is a page on https (the record's own link, or a page of the site it
// names), never the assumed API address (kept in extra.openarchivaris),
// never http; a record without such a link has no url rather than a
// guessed one; and search and get_document cite the same for a document.
func TestCitationIsAPageOnHTTPS(t *testing.T) {
	records := []map[string]any{
		{"id": "a-https", "title": "Elders", "url": "https://soest.raadsinformatie.nl/document/1"},
		{"id": "b-page", "title": "Op de site", "url": "/documenten/b-page"},
		{"id": "c-api", "title": "API-pad", "url": "/api/documents/c-api"},
		{"id": "d-http", "title": "Onveilig", "url": "http://soest.example/d.pdf"},
		{"id": "e-none", "title": "Zonder link"},
	}
	want := map[string]string{
		"a-https": "https://soest.raadsinformatie.nl/document/1",
		"b-page":  "https://openarchivaris.nl/documenten/b-page",
	}
	search, _ := json.Marshal(map[string]any{"total": len(records), "results": records})
	h := sdktest.NewHost(t).HandleBody(base+"/api/search?*", 200, search)
	for _, r := range records {
		doc, _ := json.Marshal(map[string]any{"document": r})
		h.HandleBody(openarchivaris.DocumentURL(base, r["id"].(string)), 200, doc)
	}
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "search", `{"query":"link","limit":10}`), &sr)
	if len(sr.Results) != len(records) {
		t.Fatalf("%d results, want %d", len(sr.Results), len(records))
	}
	for _, r := range sr.Results {
		if r.URL != want[r.ID] {
			t.Errorf("%s: url %q, want %q", r.ID, r.URL, want[r.ID])
		}
		if r.URL != "" && (!strings.HasPrefix(r.URL, "https://") || strings.Contains(r.URL, "/api/")) {
			t.Errorf("%s: url %q is not a page on https", r.ID, r.URL)
		}
		if got := r.Extra["openarchivaris"]["api_url"]; got != openarchivaris.DocumentURL(base, r.ID) {
			t.Errorf("%s: api_url %v", r.ID, got)
		}
		var d sdk.Document
		sdktest.Decode(t, sdktest.Call(t, openarchivaris.Plugin(), h, "get_document", `{"id":"`+r.ID+`"}`), &d)
		if d.URL != r.URL {
			t.Errorf("%s: get_document url %q, search url %q: one document, two citations", r.ID, d.URL, r.URL)
		}
	}
	if got := sr.Results[3].Extra["openarchivaris"]["source_url"]; got != "http://soest.example/d.pdf" {
		t.Errorf("the http link is not kept in extra: %v", sr.Results[3].Extra)
	}
}

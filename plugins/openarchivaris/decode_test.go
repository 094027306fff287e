package openarchivaris

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// TestDecodeDocumentDecodesOnlyItsFields: of a document answer with three
// large values (the text, the same as HTML, and its pages one by one),
// only the text is decoded; the others are skipped.
func TestDecodeDocumentDecodesOnlyItsFields(t *testing.T) {
	text := strings.Repeat("Eén regel over de ijsbaan en het café van Soest.\n", 20000) // ≈1 MB
	body, err := json.Marshal(map[string]any{"document": map[string]any{
		"id": "big", "Title": "Groot", "text": text, "html": "<p>" + text + "</p>", "paginas_tekst": strings.Split(text, "\n"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r, err := decodeDocument(body)
	runtime.ReadMemStats(&after)
	if err != nil || r.ID != "big" || r.Title != "Groot" || r.Text != strings.TrimSpace(text) {
		t.Fatalf("record %q %q, %d bytes of text, %v", r.ID, r.Title, len(r.Text), err)
	}
	// encoding/json allocates a string with escapes twice (unquoted bytes,
	// then the string): one decoded text is about 2×, each further large
	// value decoded would add 2× more.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(text))*3 {
		t.Errorf("decoding allocated %d bytes for a text of %d: more than the text was decoded", alloc, len(text))
	}
}

// TestDecodeDocumentShapes: the record at the top or under document or
// data; a data that is not an object is no wrapper; the error for a
// record without an id lists the answer's keys, those not decoded too.
func TestDecodeDocumentShapes(t *testing.T) {
	for _, c := range []struct{ body, id, title, err string }{
		{`{"id":"a","titel":"Top"}`, "a", "Top", ""},
		{`{"document":{"documentId":"b","naam":"Binnen"},"id":"x"}`, "b", "Binnen", ""},
		{`{"data":{"uuid":"c","title":"Data"}}`, "c", "Data", ""},
		{`{"id":"d","title":"Datum als data","data":"2024-01-01"}`, "d", "Datum als data", ""},
		{`{"id":"e","title":"Lijst als data","data":[1,2]}`, "e", "Lijst als data", ""},
		{`{"document":{"docId":"f","html":"<p>x</p>"}}`, "", "", "a document without an id (looked for id, documentId, document_id, uuid, key; it has fields docId, html)"},
		{`[{"id":"g"}]`, "", "", "not a JSON object"},
	} {
		r, err := decodeDocument([]byte(c.body))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one containing %q", c.body, err, c.err)
			}
			continue
		}
		if err != nil || r.ID != c.id || r.Title != c.title {
			t.Errorf("%s: %q %q %v", c.body, r.ID, r.Title, err)
		}
	}
}

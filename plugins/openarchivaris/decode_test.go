package openarchivaris

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
)

// TestDecodeDocumentDecodesOneText: of a document answer with three
// large values (the text, the same as HTML under a lower-priority text
// key, and an unknown field), only the text is decoded.
func TestDecodeDocumentDecodesOneText(t *testing.T) {
	text := strings.Repeat("Eén regel over de ijsbaan en het café van Soest.\n", 20000) // ≈1 MB
	body, err := json.Marshal(map[string]any{"document": map[string]any{
		"id": "big", "title": "Groot", "text": text, "content": "<p>" + text + "</p>", "html": "<div>" + text + "</div>",
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

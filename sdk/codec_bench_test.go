package sdk_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// The codec's cost as a connector meets it, through the root package's
// faces: the same benchmarks measure the codec wherever its code lives,
// and next to json's own functions show what the fast paths save.

// softString decodes itself through sdk.Unmarshal, as obv's soft values do.
type softString struct{ V string }

func (s *softString) UnmarshalJSON(b []byte) error { return sdk.Unmarshal(b, &s.V) }

// entity is a platform's flat answer: strings, numbers, a pointer, values
// that decode themselves, and members it leaves out.
type entity struct {
	ID           string     `json:"id"`
	Type         string     `json:"type"`
	Title        softString `json:"title"`
	Date         softString `json:"date"`
	Organization softString `json:"organization"`
	URL          string     `json:"url"`
	Pages        int        `json:"pages"`
	Size         *int64     `json:"size"`
	Public       bool       `json:"public"`
}

var entityJSON = []byte(`{"id":"document:notubiz:gemeente:soest:12345","type":"Raadsvoorstel",` +
	`"title":"Raadsvoorstel herinrichting Van Weedestraat, één fase","date":"2024-11-07",` +
	`"organization":"Gemeente Soest","url":"https://example.org/documents/12345.pdf","pages":14,` +
	`"size":734012,"public":true,"score":0.93,"highlight":{"text":["Weedestraat"]}}`)

type toolArgs struct {
	EntityID string `json:"entity_id"`
	Page     int    `json:"page"`
	Find     string `json:"find"`
}

var argsJSON = json.RawMessage(`{"entity_id":"document:notubiz:gemeente:soest:12345","page":2,"find":"herinrichting"}`)

func BenchmarkUnmarshalEntity(b *testing.B) {
	b.SetBytes(int64(len(entityJSON)))
	for b.Loop() {
		var e entity
		if err := sdk.Unmarshal(entityJSON, &e); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalEntityJSON(b *testing.B) {
	b.SetBytes(int64(len(entityJSON)))
	for b.Loop() {
		var e entity
		if err := json.Unmarshal(entityJSON, &e); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeArgs(b *testing.B) {
	for b.Loop() {
		var a toolArgs
		if err := sdk.DecodeArgs(argsJSON, &a); err != nil {
			b.Fatal(err)
		}
	}
}

func benchDocument() connector.Document {
	return connector.Document{Platform: "obv", ID: "document:notubiz:gemeente:soest:12345", Type: "Raadsvoorstel",
		Title: "Raadsvoorstel herinrichting <Van Weedestraat>", Date: "2024-11-07", Organization: "Gemeente Soest",
		URL: "https://example.org/documents/12345.pdf", Format: "pdf", Page: 1, Pages: 3,
		Text:  strings.Repeat("De raad besluit tot herinrichting van de straat, één fase & daarna \"de rest\".\n", 250),
		Extra: map[string]map[string]any{"obv": {"source": "notubiz", "pages": 14, "public": true, "tags": []string{"verkeer", "wonen"}}}}
}

func benchSearch() connector.SearchResult {
	total := 1234
	r := connector.SearchResult{Platform: "obv", Total: &total, HasMore: true, Offset: 0}
	for i := range 10 {
		r.Results = append(r.Results, connector.Item{ID: fmt.Sprintf("document:notubiz:gemeente:soest:%d", i), Type: "Raadsvoorstel",
			Title: "Herinrichting Van Weedestraat", Date: "2024-11-07", Organization: "Gemeente Soest",
			Snippet: "… de raad besluit tot <em>herinrichting</em> van …", URL: "https://example.org/d.pdf",
			Keys:  map[string]string{"source_url": "example.org/d.pdf"},
			Extra: map[string]map[string]any{"obv": {"score": 0.93, "kind": "document"}}})
	}
	return r
}

func benchResult(b *testing.B, v any) {
	b.Helper()
	for b.Loop() {
		if _, err := sdk.Result(v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResultDocument(b *testing.B) { benchResult(b, benchDocument()) }

func BenchmarkResultDocumentJSON(b *testing.B) {
	d := benchDocument()
	for b.Loop() {
		if _, err := json.Marshal(d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResultSearch(b *testing.B) { benchResult(b, benchSearch()) }

func BenchmarkResultFlat(b *testing.B) {
	benchResult(b, struct {
		Platform      string `json:"platform"`
		Documents     int    `json:"documents"`
		Organizations int    `json:"organizations"`
		Note          string `json:"note,omitempty"`
	}{"obv", 3045470, 124, ""})
}

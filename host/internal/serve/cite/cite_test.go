package cite

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/besluitbron/besluitbron/sdk/cite"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

var day = time.Date(2026, 12, 5, 23, 30, 0, 0, time.UTC) // 6 December in Amsterdam

// TestAnnotate: each result of a search answer gains its cite, dated the
// call's day in Amsterdam; the rest of the connector's JSON stays byte
// for byte; a result with a cite of its own keeps it; the Book remembers
// every result; an answer that is no search passes unchanged.
func TestAnnotate(t *testing.T) {
	b := NewBook(func() time.Time { return day }, 2)
	in := `{"platform":"x","has_more":false,"offset":0,"results":[` +
		`{"id":"ECLI:NL:RBDHA:2024:19901","title":"Uitspraak","date":"2024-12-19","organization":"Rechtbank Den Haag","keys":{"ecli":"ECLI:NL:RBDHA:2024:19901"}},` +
		`{"id":"a","title":"Raadsvoorstel","cite":{"text":"own","retrieved":"2020-01-01"}},` +
		`{"id":"stcrt-2025-18220","title":"Regeling","keys":{"publication_id":"stcrt-2025-18220"}, "extra":{"x":{"results":[1]}}}],"notes":["n"]}`
	out := b.Annotate("x", connector.CallResult{Text: in, Structured: []byte(in)})
	if out.Text != string(out.Structured) {
		t.Fatalf("text and structured differ:\n%s\n%s", out.Text, out.Structured)
	}
	var sr struct {
		Results []struct {
			ID   string `json:"id"`
			Cite Cite   `json:"cite"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out.Structured, &sr); err != nil {
		t.Fatalf("%v: %s", err, out.Structured)
	}
	want := []Cite{
		{"Rechtbank Den Haag 19 december 2024, ECLI:NL:RBDHA:2024:19901", "2026-12-06"},
		{"own", "2020-01-01"},
		{"Stcrt. 2025, 18220", "2026-12-06"},
	}
	for i, w := range want {
		if sr.Results[i].Cite != w {
			t.Errorf("result %d: cite %+v, want %+v", i, sr.Results[i].Cite, w)
		}
	}
	// Taking the cites out again gives the connector's bytes.
	back := string(out.Structured)
	for _, w := range []Cite{want[0], want[2]} {
		c, _ := json.Marshal(w)
		back = strings.Replace(back, `,"cite":`+string(c), "", 1)
	}
	if back != in {
		t.Errorf("the connector's JSON changed:\n%s\n%s", back, in)
	}
	// The Book holds two: the first result was pushed out.
	if _, _, ok := b.Lookup("x", "ECLI:NL:RBDHA:2024:19901"); ok || b.Len() != 2 {
		t.Errorf("the Book kept %d results and the oldest: %v", b.Len(), ok)
	}
	if it, at, ok := b.Lookup("x", "stcrt-2025-18220"); !ok || it.Title != "Regeling" || !at.Equal(day) {
		t.Errorf("Lookup: %+v %v %v", it, at, ok)
	}
	for _, other := range []string{`{"platform":"x","id":"a","text":"results"}`, `{"results":[]}`, `[1]`, `{"results":"x"}`} {
		o := b.Annotate("x", connector.CallResult{Text: other, Structured: []byte(other)})
		if string(o.Structured) != other {
			t.Errorf("%s became %s", other, o.Structured)
		}
	}
}

// sampleEntries are one entry of each kind, with the characters BibTeX
// and RIS give a meaning in their fields.
func sampleEntries() []Entry {
	docs := []cite.Doc{
		{Keys: map[string]string{"ecli": "ECLI:NL:RBDHA:2024:19901"}, Title: "Uitspraak", Organization: "Rechtbank Den Haag", Date: "2024-12-19", URL: "https://uitspraken.example/ECLI:NL:RBDHA:2024:19901"},
		{Keys: map[string]string{"kamerstuk": "36800-VII-14"}, Title: "Brief {regering} 100% & meer_", Date: "2025-10-01"},
		{Keys: map[string]string{"publication_id": "gmb-2024-512034"}, Title: "Verordening #3 ~ ^", Organization: "Gemeente Soest", Date: "2024-06-01"},
		{Title: "Raadsvoorstel\nwoningbouw \\ Soest", Organization: "Gemeente Soest", Date: "2025-03-12", URL: "https://soest.example/doc?id=1&x={2}"},
	}
	var out []Entry
	for i, d := range docs {
		out = append(out, Entry{Platform: "p", Source: "Platform", ID: strings.Repeat("i", i+1), Work: cite.Describe(d), Retrieved: "2026-12-05"})
	}
	out[0].SHA256 = strings.Repeat("ab", 32)
	return out
}

// TestCSLJSONValidates: the CSL-JSON export passes the CSL input schema
// (testdata/csl-data.json), and the schema refuses what it must (a member
// it does not name), so the check can fail.
func TestCSLJSONValidates(t *testing.T) {
	rs := cslSchema(t)
	b, err := CSLJSON(sampleEntries())
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(v); err != nil {
		t.Errorf("CSL-JSON fails the schema: %v\n%s", err, b)
	}
	bad := []any{map[string]any{"id": "x", "type": "document", "cite": "not CSL"}}
	if err := rs.Validate(bad); err == nil {
		t.Error("the schema took a member it does not name")
	}
	t.Logf("%d entries, %d bytes of CSL-JSON", len(sampleEntries()), len(b))
}

// cslSchema is the CSL input schema, resolved.
func cslSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	raw, err := os.ReadFile("testdata/csl-data.json")
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestBibTeXAndRISShape: the fields a reference manager files by are
// there, escaped; every RIS record opens with TY and closes with ER.
func TestBibTeXAndRISShape(t *testing.T) {
	bib := BibTeX(sampleEntries())
	for _, want := range []string{"@misc{p-i,", `title = {Brief \{regering\} 100\% \& meer\_}`, "author = {{Rechtbank Den Haag}}", "urldate = {2026-12-05}",
		"url = {https://soest.example/doc?id=1&x=%7B2%7D}", `\textbackslash{}`, "text sha256: abab"} {
		if !strings.Contains(bib, want) {
			t.Errorf("BibTeX lacks %q:\n%s", want, bib)
		}
	}
	ris := RIS(sampleEntries())
	if n, m := strings.Count(ris, "TY  - "), strings.Count(ris, "ER  - \r\n"); n != 4 || m != 4 {
		t.Errorf("RIS has %d TY and %d ER:\n%s", n, m, ris)
	}
	for _, want := range []string{"TY  - CASE\r\n", "TY  - BILL\r\n", "TY  - STAT\r\n", "TY  - GEN\r\n", "Y2  - 2026/12/05/\r\n", "DA  - 2024/12/19/\r\n", "TI  - Raadsvoorstel woningbouw \\ Soest\r\n"} {
		if !strings.Contains(ris, want) {
			t.Errorf("RIS lacks %q:\n%s", want, ris)
		}
	}
	if _, err := Encode("endnote", nil); err == nil || !strings.Contains(err.Error(), "csl-json, bibtex, ris") {
		t.Errorf("unknown format: %v", err)
	}
}

// TestAlign: a passage is placed exactly, punctuation and accents aside,
// with its sentence; one word altered finds the closest passage and names
// the word on either side.
func TestAlign(t *testing.T) {
	text := "Inleiding.\nDe minister heeft de Kamer op 3 maart geïnformeerd over de\nvoortgang. De coördinatie van het stikstofbeleid ligt bij de provincie,\nzo schreef zij. Daarna volgde een debat."
	m := align(text, normWords("de coordinatie van het stikstofbeleid ligt bij de provincie zo schreef zij"))
	if !m.exact || m.sentence != "De coördinatie van het stikstofbeleid ligt bij de provincie, zo schreef zij." {
		t.Errorf("exact: %+v", m)
	}
	words := normWords("De coördinatie van het stikstofbeleid ligt bij het Rijk, zo schreef zij")
	m = align(text, words)
	if m.exact || m.score != len(words)-2 {
		t.Fatalf("altered: %+v (want %d of %d words)", m, len(words)-2, len(words))
	}
	if !strings.HasPrefix(m.text, "De coördinatie") || strings.Join(m.passageOnly, " ") != "het rijk" || strings.Join(m.textOnly, " ") != "de provincie" {
		t.Errorf("closest %q, passage only %q, text only %q", m.text, m.passageOnly, m.textOnly)
	}
	if m := align("", words); m.score != 0 {
		t.Errorf("empty page: %+v", m)
	}
}

// TestChunk: the parts of a long passage fit one find together.
func TestChunk(t *testing.T) {
	words := strings.Fields(strings.Repeat("woningbouwopgave ", 150))
	cs := chunk(words)
	if len(cs) == 0 || len(cs) > maxTerms || len(phrases(cs)) > maxFind {
		t.Errorf("%d chunks, %d bytes", len(cs), len(phrases(cs)))
	}
}

package host_test

// A find in a long document through MCP, with the real WebAssembly tk
// connector against the platform simulator's long Kamerstuk PDF: after
// the first page is read, a find answers from the text the host keeps,
// in one call, small, naming the page, and costing the platform nothing.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// maxFindAnswer is the most a find's answer may weigh (issue 28).
const maxFindAnswer = 30 << 10

// find calls a document tool with a find and decodes the answer, failing
// the test on an error; it returns the document and the bytes of its
// text content.
func find(t *testing.T, c *proofClient, d platformsim.LongDocument, query string) (connector.Document, int) {
	t.Helper()
	r := c.call(context.Background(), d.Platform, d.Platform+"_get_document", map[string]any{d.Arg: d.ID, "find": query})
	if r.err != nil {
		t.Fatalf("find %q: %v", query, r.err)
	}
	text := resultText(r.res)
	if r.res.IsError {
		t.Fatalf("find %q: tool error: %s", query, text)
	}
	var doc connector.Document
	b, _ := json.Marshal(r.res.StructuredContent)
	if err := json.Unmarshal(b, &doc); err != nil || doc.Find == nil {
		t.Fatalf("find %q: not a find's answer: %s (%v)", query, clipText(string(b), 300), err)
	}
	return doc, len(text)
}

// longTKPDF is the simulator's long Kamerstuk PDF (about 1.3 MB of text).
func longTKPDF(tb testing.TB) platformsim.LongDocument {
	for _, d := range platformsim.LongDocuments() {
		if d.Platform == "tk" && d.Size == "long" && d.Format == "PDF" {
			return d
		}
	}
	tb.Fatal("the simulator has no long tk PDF")
	return platformsim.LongDocument{}
}

// TestFindAfterReadingPageOne: read page 1 of a PDF of more than 1 MB of
// text, then find a phrase on its last page N: one call, an answer under
// 30 KB naming page N (and the PDF's page, linked), and no platform
// request during the find; a second find (the opening phrase, written
// without its accents) costs nothing either, and neither does a find of a
// phrase taken from page 40.
func TestFindAfterReadingPageOne(t *testing.T) {
	if proofRace() || testing.Short() {
		t.Skip("extracts a 1.3 MB PDF in WebAssembly")
	}
	t.Parallel()
	sim, simURL := proofSim(t)
	_, base, _ := proofHost(t, proofConfig(t, simURL, t.TempDir(), ""))
	c := newProofClient(t, base, "finder")
	defer c.close()
	d := longTKPDF(t)
	first := readPage(t, c, d, 1)
	if first.Pages < 50 {
		t.Fatalf("the document has %d pages; the test wants a long one", first.Pages)
	}
	before := upstreamRequests(sim)

	// The end phrase, as a reader types it: no accents, other case.
	end := sdk.Fold(d.EndPhrase)
	doc, size := find(t, c, d, `"`+strings.ToUpper(end[:40])+`"`)
	f := doc.Find
	if n := upstreamRequests(sim) - before; n != 0 {
		t.Errorf("the find made %d platform requests, want 0", n)
	}
	if size > maxFindAnswer {
		t.Errorf("the find's answer is %d bytes, at most %d", size, maxFindAnswer)
	}
	if f.Matches != 1 || len(f.Pages) != 1 || f.Pages[0].Page != first.Pages || doc.Pages != first.Pages {
		t.Fatalf("find: %+v, want one match on page %d", f, first.Pages)
	}
	p := f.Pages[0]
	if len(p.Snippets) != 1 || !strings.Contains(p.Snippets[0].Text, d.EndPhrase[:40]) {
		t.Errorf("snippets %+v lack %q", p.Snippets, d.EndPhrase)
	}
	pdfPages, _ := doc.Extra["tk"]["pdf_pages"].(float64)
	if p.SourcePage < 1 || p.SourcePage != int(pdfPages) || !strings.HasSuffix(p.Link, fmt.Sprintf("/resource#page=%d", p.SourcePage)) {
		t.Errorf("page %d of the PDF (it has %v), link %q", p.SourcePage, pdfPages, p.Link)
	}
	t.Logf("find on page %d of %d: %d bytes, %s", p.Page, first.Pages, size, doc.Text)

	// A second find: the start phrase without its accents.
	before = upstreamRequests(sim)
	doc, size = find(t, c, d, `"`+sdk.Fold(d.StartPhrase)+`"`)
	if n := upstreamRequests(sim) - before; n != 0 {
		t.Errorf("the second find made %d platform requests, want 0", n)
	}
	if f := doc.Find; size > maxFindAnswer || f.Matches != 1 || len(f.Pages) != 1 || f.Pages[0].Page != 1 {
		t.Errorf("second find (%d bytes): %+v", size, f)
	}

	// A phrase from the middle of page 40.
	p40 := readPage(t, c, d, 40)
	lines := strings.Split(strings.TrimSpace(p40.Text), "\n")
	phrase := strings.TrimSpace(lines[len(lines)/2])
	if len(phrase) > 60 {
		phrase = phrase[:strings.LastIndexByte(phrase[:60], ' ')]
	}
	before = upstreamRequests(sim)
	doc, size = find(t, c, d, `"`+phrase+`"`)
	if n := upstreamRequests(sim) - before; n != 0 {
		t.Errorf("the third find made %d platform requests, want 0", n)
	}
	on40 := false
	for _, p := range doc.Find.Pages {
		on40 = on40 || p.Page == 40
	}
	if !on40 || size > maxFindAnswer {
		t.Errorf("find %q (%d bytes): %+v, want page 40 among the pages", phrase, size, doc.Find)
	}
}

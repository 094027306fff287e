package tk_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestFindInPDF: after page 1 of a PDF of more than 1 MB of text, a find
// answers from the kept text (no download, no extraction), names the text
// page and the PDF's page of the phrase, and links the file at that page.
func TestFindInPDF(t *testing.T) {
	resource := base + "/Document(" + pdfID + ")/resource"
	h := sdktest.NewHost(t).Handle(metaURL(pdfID), 200, td+"tk-document-pdf.json").HandleBody(resource, 200, bigPDF())
	read := fmt.Sprintf(`{"id":%q}`, pdfID)
	first, found := sdktest.FindAfterRead(t, tk.Plugin(), h, "get_document", read, fmt.Sprintf(`{"id":%q,"find":"\"financiele reunie en een naieve coordinatie\""}`, pdfID))
	f := found.Find
	if f.Matches != 1 || len(f.Pages) != 1 || f.Pages[0].Page != first.Pages || f.Pages[0].SourcePage != 300 || f.Pages[0].Link != resource+"#page=300" {
		t.Fatalf("find: %+v", f)
	}
	if sn := f.Pages[0].Snippets; len(sn) != 1 || !strings.Contains(sn[0].Text, "Slotzin: het café, de financiële reünie en een naïeve coördinatie.") {
		t.Errorf("snippets %+v", sn)
	}
	// A second find, of a line on PDF page 123, is as free.
	_, found = sdktest.FindAfterRead(t, tk.Plugin(), h, "get_document", read, fmt.Sprintf(`{"id":%q,"find":"\"pagina 123 regel 7:\" ijsbaan"}`, pdfID))
	p := found.Find.Pages
	if len(p) != 1 || p[0].Matches < 2 || len(p[0].Snippets) == 0 {
		t.Fatalf("find: %+v", found.Find)
	}
	if sn := p[0].Snippets; !slices.ContainsFunc(sn, func(s sdk.Snippet) bool {
		return strings.Contains(s.Text, "Pagina 123 regel 7: de") && s.SourcePage == 123 && s.Link == resource+"#page=123"
	}) {
		t.Errorf("no snippet of the phrase: %+v", sn)
	}
	if n := h.TextsKept(); n != 1 {
		t.Errorf("%d extractions, want 1", n)
	}
}

// TestFindInOfficialXML: a Kamerstuk's text from its official XML marks
// no PDF pages, so a find names the text's pages only.
func TestFindInOfficialXML(t *testing.T) {
	var x strings.Builder
	x.WriteString(`<?xml version="1.0" encoding="utf-8"?><officiele-publicatie><kamerstuk><stuk><titel>Groot</titel><tekst>`)
	for i := range 12000 {
		fmt.Fprintf(&x, "<al>Alinea %d over de financiële positie van gemeenten.</al>\n", i)
	}
	x.WriteString(`<al>De Ĳsselbrug bij Zwolle krijgt één café.</al></tekst></stuk></kamerstuk></officiele-publicatie>`)
	h := sdktest.NewHost(t).Handle(metaURL(kstID), 200, td+"tk-document-kst.json").HandleBody(obkXML, 200, []byte(x.String()))
	first, found := sdktest.FindAfterRead(t, tk.Plugin(), h, "get_document", `{"id":"`+kstID+`"}`, `{"id":"`+kstID+`","find":"ijsselbrug cafe"}`)
	if p := found.Find.Pages; len(p) != 1 || p[0].Page != first.Pages || p[0].SourcePage != 0 || p[0].Link != "" {
		t.Errorf("find: %+v", found.Find)
	}
}

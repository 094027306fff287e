package tk_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

const (
	kstID  = "3f7a1c2e-5b6d-4e8f-9a0b-1c2d3e4f5a6b"
	pdfID  = "87f1dfa6-1f5a-4d6a-96da-72e52ad0ae45"
	docxID = "5d0c4b3a-2e1f-4a9b-8c7d-6e5f4a3b2c1d"
	obkXML = tk.OBKBaseURL + "/kst-33328-AI.xml"
)

func metaURL(id string) string {
	u, err := tk.DocumentURL(base, id)
	if err != nil {
		panic(err)
	}
	return u
}

// metaURLs are the metadata requests for id: expanded, selected, bare.
func metaURLs(id string) []string {
	u, err := tk.MetadataURLs(base, id)
	if err != nil {
		panic(err)
	}
	return u
}

func TestDocumentURL(t *testing.T) {
	const sel = "$select=Id%2CSoort%2CDocumentNummer%2CTitel%2COnderwerp%2CDatum%2CVergaderjaar%2COrganisatie%2CContentType%2CContentLength%2CVerwijderd&$expand=HuidigeDocumentVersie%28%24select%3DId%2CExterneIdentifier%2CExtensie%2CBestandsgrootte%2CVersienummer%29"
	for _, c := range []struct{ id, want string }{
		{"87F1DFA6-1F5A-4D6A-96DA-72E52AD0AE45", base + "/Document(87f1dfa6-1f5a-4d6a-96da-72e52ad0ae45)?" + sel},
		{"2024d41173", base + "/Document?$filter=DocumentNummer%20eq%20%272024D41173%27%20and%20Verwijderd%20eq%20false&" + sel + "&$top=2"},
	} {
		got, err := tk.DocumentURL(base, c.id)
		if err != nil || got != c.want {
			t.Errorf("DocumentURL(%s) = %s, %v\nwant %s", c.id, got, err, c.want)
		}
	}
	urls, err := tk.MetadataURLs(base, "2024D41173")
	wantURLs := []string{
		base + "/Document?$filter=DocumentNummer%20eq%20%272024D41173%27%20and%20Verwijderd%20eq%20false&" + sel + "&$top=2",
		base + "/Document?$filter=DocumentNummer%20eq%20%272024D41173%27%20and%20Verwijderd%20eq%20false&" + sel[:strings.Index(sel, "&$expand")] + "&$top=2",
		base + "/Document?$filter=DocumentNummer%20eq%20%272024D41173%27%20and%20Verwijderd%20eq%20false&$top=2",
	}
	if err != nil || !cmp.Equal(urls, wantURLs) {
		t.Errorf("MetadataURLs = %q, %v\nwant %q", urls, err, wantURLs)
	}
	for _, extid := range []string{"kst-33328-AI", "ah-tk-20232024-1244", "h-tk-20232024-12-3"} {
		if got := tk.OfficialXMLURL(extid); got != tk.OBKBaseURL+"/"+extid+".xml" {
			t.Errorf("OfficialXMLURL(%s) = %q", extid, got)
		}
	}
	for _, extid := range []string{"", "blg-1014762", "stcrt-2015-1", "kst-../../x", "kst-1?a=b"} {
		if got := tk.OfficialXMLURL(extid); got != "" {
			t.Errorf("OfficialXMLURL(%q) = %q, want none", extid, got)
		}
	}
}

func TestGetDocumentOfficialXML(t *testing.T) {
	h := sdktest.NewHost(t).
		Handle(metaURL(kstID), 200, td+"tk-document-kst.json").
		Handle(obkXML, 200, td+"obk-kst-33328-AI.xml")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+kstID+`"}`), &d)
	if d.ID != kstID || d.Type != "Verslag van een schriftelijk overleg" || d.Date != "2023-12-28" || d.Organization != "Tweede Kamer" ||
		d.URL != "https://www.tweedekamer.nl/kamerstukken/detail?id=2023D52517&did=2023D52517" || d.Format != "text" || d.Page != 1 || d.Pages != 1 ||
		d.Title != "Verslag van een schriftelijk overleg over de voortgang van de implementatie van de Wet open overheid" {
		t.Errorf("document = %+v", d)
	}
	if !strings.Contains(d.Text, "1. Hoe staat het met de financiële middelen?") {
		t.Errorf("text:\n%s", d.Text)
	}
	x := d.Extra["tk"]
	if x["text_source"] != "officielebekendmakingen_xml" || x["externe_identifier"] != "kst-33328-AI" || x["document_nummer"] != "2023D52517" ||
		x["resource_url"] != base+"/Document("+kstID+")/resource" || x["officielebekendmakingen_url"] != tk.OBKBaseURL+"/kst-33328-AI.html" {
		t.Errorf("extra = %v", x)
	}
	// The same document on Officiële Bekendmakingen and on OpenTK.
	if got := fmt.Sprint(x["counterparts"]); got != "[map[id:kst-33328-AI platform:obk tool:obk_get_document] map[id:2023D52517 platform:opentk tool:opentk_get_document]]" {
		t.Errorf("counterparts = %s", got)
	}
	reqs := h.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want metadata and XML", len(reqs))
	}
	if r := reqs[0]; r.Service != tk.ServiceOData || r.CacheClass != tk.ClassMetadata || r.Cost != 1 {
		t.Errorf("metadata request = %+v", r)
	}
	if r := reqs[1]; r.URL != obkXML || r.Service != tk.ServiceOBK || r.CacheClass != connector.ClassDocument || r.Cost != 1 {
		t.Errorf("XML request = %+v", r)
	}
}

func TestGetDocumentByNumber(t *testing.T) {
	h := sdktest.NewHost(t).
		Handle(metaURL("2023D52517"), 200, td+"tk-document-by-number.json").
		Handle(obkXML, 200, td+"obk-kst-33328-AI.xml")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"2023D52517"}`), &d)
	if d.ID != kstID || d.Extra["tk"]["text_source"] != "officielebekendmakingen_xml" {
		t.Errorf("document = %+v", d)
	}
	for _, c := range []struct{ name, body, want string }{
		{"none", `{"value":[]}`, `no document with number "2024D99999"`},
		{"two", `{"value":[{"Id":"a"},{"Id":"b"}]}`, "more than one document"},
		{"no value", `{}`, "lacks value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t).HandleBody(metaURL("2024D99999"), 200, []byte(c.body))
			res := sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"2024D99999"}`)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want %q", res, c.want)
			}
		})
	}
}

func TestGetDocumentFallsBackToPDF(t *testing.T) {
	pdf := makePDF([]string{"Verslag van een schriftelijk overleg", "Wet open overheid"})
	for _, c := range []struct {
		name  string
		route func(h *sdktest.Host)
		note  string
	}{
		{"not yet published", func(h *sdktest.Host) { h.HandleBody(obkXML, 404, []byte("<html>Niet gevonden</html>")) }, "not published there (HTTP 404)"},
		{"limit", func(h *sdktest.Host) {
			h.HandleErr(obkXML, &connector.FetchError{Kind: connector.FetchQueueTimeout, Message: "no room before the deadline"})
		}, "queue_timeout: no room before the deadline"},
		{"error page", func(h *sdktest.Host) { h.HandleBody(obkXML, 200, []byte("<!DOCTYPE html><html></html>")) }, "not an official publication (root <html>)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t).Handle(metaURL(kstID), 200, td+"tk-document-kst.json").
				HandleBody(base+"/Document("+kstID+")/resource", 200, pdf)
			c.route(h)
			var d sdk.Document
			sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+kstID+`"}`), &d)
			notes, _ := d.Extra["tk"]["notes"].([]any)
			if d.Extra["tk"]["text_source"] != "pdf" || d.URL != "https://www.tweedekamer.nl/kamerstukken/detail?id=2023D52517&did=2023D52517" ||
				d.Extra["tk"]["officielebekendmakingen_url"] != nil || len(notes) != 1 ||
				!strings.Contains(notes[0].(string), c.note) || !strings.Contains(d.Text, "Wet open overheid") {
				t.Errorf("document = %+v", d)
			}
		})
	}
}

func TestGetDocumentPDF(t *testing.T) {
	pdf := makePDF([]string{"Position paper VNG", "Eén loket voor ijsbanen en zwembaden"}, []string{"Slotopmerkingen: financiële ruimte"})
	h := sdktest.NewHost(t).
		Handle(metaURL(pdfID), 200, td+"tk-document-pdf.json").
		HandleBody(base+"/Document("+pdfID+")/resource", 200, pdf)
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+pdfID+`"}`), &d)
	if !strings.Contains(d.Text, "Eén loket voor ijsbanen en zwembaden") || !strings.Contains(d.Text, "[page 2]\nSlotopmerkingen: financiële ruimte") {
		t.Errorf("text:\n%s", d.Text)
	}
	x := d.Extra["tk"]
	if x["text_source"] != "pdf" || x["pdf_pages"] != float64(2) || x["externe_identifier"] != nil || d.Organization != "Vereniging van Nederlandse Gemeenten" ||
		d.URL != "https://www.tweedekamer.nl/kamerstukken/detail?id=2024D00000&did=2024D00000" || x["resource_url"] != base+"/Document("+pdfID+")/resource" {
		t.Errorf("document = %+v", d)
	}
	reqs := h.Requests()
	if len(reqs) != 2 || reqs[1].Service != tk.ServiceOData || reqs[1].CacheClass != connector.ClassDocument {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestGetDocumentUnreadableFiles(t *testing.T) {
	resource := base + "/Document(" + pdfID + ")/resource"
	for _, c := range []struct {
		name, body string
		want       []string
		format     string
	}{
		{"broken PDF", "%PDF-1.4\nthis is not really a PDF\n", []string{"a PDF file of 34 bytes", "the PDF could not be read", "Download it from " + resource}, "PDF"},
		{"scanned PDF", string(makePDF(nil)), []string{"no text layer (1 pages, probably scanned images)"}, "PDF"},
		{"DOC behind a PDF content type", "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1rest", []string{"a DOC file of 12 bytes", "cannot be extracted"}, "DOC"},
		{"ZIP", "PK\x03\x04rest", []string{"a ZIP file"}, "ZIP"},
		{"unknown bytes", "\x00\x01binary", []string{"in an unknown format"}, "unknown"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t).Handle(metaURL(pdfID), 200, td+"tk-document-pdf.json").HandleBody(resource, 200, []byte(c.body))
			var d sdk.Document
			sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+pdfID+`"}`), &d)
			for _, w := range c.want {
				if !strings.Contains(d.Text, w) {
					t.Errorf("text lacks %q: %s", w, d.Text)
				}
			}
			if d.Extra["tk"]["text_source"] != "none" || d.Extra["tk"]["file_format"] != c.format || d.Pages != 1 {
				t.Errorf("document = %+v", d)
			}
		})
	}
}

func TestGetDocumentOtherResources(t *testing.T) {
	resource := base + "/Document(" + pdfID + ")/resource"
	h := sdktest.NewHost(t).Handle(metaURL(pdfID), 200, td+"tk-document-pdf.json").
		HandleBody(resource, 200, []byte("<!DOCTYPE html><html><body>Onderhoud</body></html>"))
	res := sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+pdfID+`"}`)
	if !res.IsError || !strings.Contains(res.Text, "an HTML page instead of the document's file") {
		t.Errorf("HTML behind a PDF content type: %+v", res)
	}
	// An XML file of the platform itself (not an official publication), and
	// a record without title or subject.
	h = sdktest.NewHost(t).HandleBody(metaURL(pdfID), 200, []byte(`{"Id":"`+pdfID+`","Soort":"Verslag","DocumentNummer":"2024D12345","ContentType":"text/xml"}`)).
		HandleBody(resource, 200, []byte(`<?xml version="1.0"?><verslag><spreker>De voorzitter</spreker><tekst><alinea>Ik open de vergadering.</alinea></tekst></verslag>`))
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+pdfID+`"}`), &d)
	if d.Text != "De voorzitter\nIk open de vergadering.\n" || d.Extra["tk"]["text_source"] != "xml" || d.Title != "Verslag 2024D12345" {
		t.Errorf("XML resource = %+v", d)
	}
}

func TestGetDocumentDOCXIsNotDownloaded(t *testing.T) {
	h := sdktest.NewHost(t).Handle(metaURL(docxID), 200, td+"tk-document-docx.json")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+docxID+`"}`), &d)
	want := "This document's file is a DOCX file of 120 kB; its text cannot be extracted by this connector. Download it from " + base + "/Document(" + docxID + ")/resource"
	if d.Text != want || d.Extra["tk"]["file_format"] != "DOCX" || d.Extra["tk"]["content_length"] != float64(123456) {
		t.Errorf("document = %+v", d)
	}
	if n := len(h.Requests()); n != 1 {
		t.Errorf("%d requests, want only the metadata", n)
	}
}

func TestGetDocumentPaging(t *testing.T) {
	// ≈1.2 MB of official XML.
	var x strings.Builder
	x.WriteString(`<?xml version="1.0" encoding="utf-8"?><officiele-publicatie><kamerstuk><stuk><titel>Groot</titel><tekst>`)
	for i := 0; i < 12000; i++ {
		x.WriteString("<al>Één alinea over de financiële positie van gemeenten en de Woo (ijsbaan) nr. ")
		x.WriteString(strings.Repeat("x", 20))
		x.WriteString("</al>\n")
	}
	x.WriteString(`</tekst></stuk></kamerstuk></officiele-publicatie>`)
	h := sdktest.NewHost(t).
		Handle(metaURL(kstID), 200, td+"tk-document-kst.json").
		HandleBody(obkXML, 200, []byte(x.String()))
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+kstID+`","page":3}`), &d)
	if d.Page != 3 || d.Pages < 50 || len(d.Text) > sdk.TextPageSize || !strings.HasPrefix(d.Text, "Één alinea") {
		t.Errorf("page %d of %d, %d bytes, starts %q", d.Page, d.Pages, len(d.Text), d.Text[:20])
	}
	last := d.Pages
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+kstID+`","page":`+strconv.Itoa(last)+`}`), &d)
	if d.Page != last || !strings.HasSuffix(strings.TrimSpace(d.Text), "x") {
		t.Errorf("last page %d: %q", d.Page, d.Text[max(0, len(d.Text)-40):])
	}
	res := sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+kstID+`","page":9999}`)
	if !res.IsError || !strings.Contains(res.Text, `"page": 9999 is out of range`) {
		t.Errorf("page out of range: %+v", res)
	}
	if n := h.TextsKept(); n != 1 {
		t.Errorf("the XML was extracted %d times, want once", n)
	}
	xmlFetches := 0
	for _, r := range h.Requests() {
		if r.URL == obkXML {
			xmlFetches++
		}
	}
	if xmlFetches != 1 {
		t.Errorf("the XML was fetched %d times, want once", xmlFetches)
	}
}

func TestGetDocumentErrors(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"missing id", `{}`, `"id"`},
		{"bad id", `{"id":"no-such-id"}`, `"id": "no-such-id" is neither`},
		{"obk id", `{"id":"kst-36800-vii-14"}`, `kst-36800-vii-14 is an Officiële Bekendmakingen publication: call obk_get_document with id=kst-36800-VII-14`},
		{"obk citation", `{"id":"Stcrt. 2025, 18220"}`, `call obk_get_document with id=stcrt-2025-18220`},
		{"ecli", `{"id":"ecli:nl:hr:2024:123"}`, `call rechtspraak_get_document with id=ECLI:NL:HR:2024:123`},
		{"guid braces", `{"id":"guid'` + pdfID + `'"}`, `"id"`},
		{"page", `{"id":"` + pdfID + `","page":-1}`, `"page"`},
		{"page type", `{"id":"` + pdfID + `","page":"2"}`, `"page"`},
		{"unknown", `{"id":"` + pdfID + `","format":"pdf"}`, `"format"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			res := sdktest.Call(t, tk.Plugin(), h, "get_document", c.args)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want a tool error naming %s", res, c.want)
			}
			if n := len(h.Requests()); n != 0 {
				t.Errorf("bad arguments reached the platform (%d requests)", n)
			}
		})
	}
	resource := base + "/Document(" + pdfID + ")/resource"
	for _, c := range []struct {
		name   string
		status int
		body   string
		file   *struct {
			status int
			body   string
		}
		want string
	}{
		{"unknown id 404", 404, `{"error":{"code":"","message":"Not found"}}`, nil, "no document"},
		{"unknown id 204", 204, "", nil, "no document"},
		{"500", 500, `{"error":{"code":"","message":"An error has occurred."}}`, nil, "HTTP 500: An error has occurred."},
		{"malformed", 200, `{"Id": `, nil, "not the expected JSON"},
		{"no Id", 200, `{"Titel":"x"}`, nil, "lacks Id"},
		{"deleted", 200, `{"Id":"` + pdfID + `","Verwijderd":true}`, nil, "marked deleted"},
		{"file 429", 200, `{"Id":"` + pdfID + `","ContentType":"application/pdf"}`, &struct {
			status int
			body   string
		}{429, ""}, "downloading the file: upstream answered HTTP 429"},
		{"file missing", 200, `{"Id":"` + pdfID + `"}`, &struct {
			status int
			body   string
		}{404, ""}, "has no file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t).HandleBody(metaURL(pdfID), c.status, []byte(c.body))
			if c.file != nil {
				h.HandleBody(resource, c.file.status, []byte(c.file.body))
			}
			res := sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+pdfID+`"}`)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want %q", res, c.want)
			}
		})
	}
	h := sdktest.NewHost(t).Handle(metaURL(pdfID), 200, td+"tk-document-pdf.json").
		HandleErr(resource, &connector.FetchError{Kind: connector.FetchUnavailable, Message: "response larger than 20 MB"})
	res := sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+pdfID+`"}`)
	if !res.IsError || !strings.Contains(res.Text, "downloading the file: unavailable: response larger than 20 MB") {
		t.Errorf("oversized file: %+v", res)
	}
}

// bigPDF is a Kamerstuk-like PDF with more than 1 MB of text: 300 pages
// of 55 lines, the last line ending in a phrase with Dutch characters.
func bigPDF() []byte {
	pages := make([][]string, 300)
	for p := range pages {
		lines := make([]string, 55)
		for l := range lines {
			lines[l] = fmt.Sprintf("Pagina %d regel %d: de financiële positie van gemeenten en één ijsbaan per regio.", p+1, l+1)
		}
		pages[p] = lines
	}
	pages[299][54] = "Slotzin: het café, de financiële reünie en een naïeve coördinatie."
	return makePDF(pages...)
}

// TestGetDocumentLargePDF reads a PDF of more than 1 MB of text page by
// page: the file is downloaded and extracted once, the host keeps the
// text, and every later page, read from it, equals what a fresh
// extraction gives.
func TestGetDocumentLargePDF(t *testing.T) {
	resource := base + "/Document(" + pdfID + ")/resource"
	pdf := bigPDF()
	h := sdktest.NewHost(t).Handle(metaURL(pdfID), 200, td+"tk-document-pdf.json").HandleBody(resource, 200, pdf)
	docs := sdktest.ReadDocument(t, tk.Plugin(), h, "get_document", func(n int) string { return fmt.Sprintf(`{"id":%q,"page":%d}`, pdfID, n) })
	last := docs[len(docs)-1]
	total := 0
	for _, d := range docs {
		total += len(d.Text)
	}
	if total < 1<<20 || len(docs) < 50 {
		t.Errorf("%d bytes in %d pages, want more than 1 MB", total, len(docs))
	}
	if !strings.HasPrefix(docs[0].Text, "[page 1]\nPagina 1 regel 1: de financiële positie") ||
		!strings.Contains(last.Text, "Slotzin: het café, de financiële reünie en een naïeve coördinatie.") {
		t.Errorf("first page starts %.60q; last page ends %q", docs[0].Text, last.Text[max(0, len(last.Text)-100):])
	}
	if last.Extra["tk"]["pdf_pages"] != float64(300) || last.Extra["tk"]["text_source"] != "pdf" || last.URL != docs[0].URL || last.Extra["tk"]["resource_url"] != resource || last.Title != docs[0].Title {
		t.Errorf("last page = %+v", last.Extra)
	}
	if n := h.TextsKept(); n != 1 {
		t.Errorf("the PDF was extracted %d times, want once", n)
	}
	if n := h.TextPagesServed(); n != len(docs)-1 {
		t.Errorf("%d pages served from the kept text, want %d", n, len(docs)-1)
	}
	downloads := 0
	for _, r := range h.Requests() {
		if r.URL == resource {
			downloads++
		}
	}
	if downloads != 1 {
		t.Errorf("the file was downloaded %d times, want once", downloads)
	}
	// What a kept page says is what a fresh extraction says.
	for _, n := range []int{len(docs) / 2, len(docs)} {
		h.ForgetTexts()
		var fresh sdk.Document
		sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", fmt.Sprintf(`{"id":%q,"page":%d}`, pdfID, n)), &fresh)
		if diff := cmp.Diff(fresh, docs[n-1]); diff != "" {
			t.Errorf("page %d kept differs from a fresh extraction (-fresh +kept):\n%s", n, diff)
		}
	}
	if n := h.TextsKept(); n != 3 {
		t.Errorf("%d extractions, want 3 (one, then one after each ForgetTexts)", n)
	}
}

// expansionRefused is the platform's answer to $expand when the
// navigation property is gone.
const expansionRefused = `{"error":{"code":"","message":"Could not find a property named 'HuidigeDocumentVersie' on type 'TK.DA.GGM.OData.Document'."}}`

// kstPlain is the Kamerstuk's metadata as the platform gives it without
// the expansion.
const kstPlain = `{"Id":"` + kstID + `","Soort":"Verslag van een schriftelijk overleg","DocumentNummer":"2023D52517","Titel":"Wet open overheid",` +
	`"Onderwerp":"Verslag van een schriftelijk overleg over de Woo","Datum":"2023-12-28T00:00:00+01:00","Organisatie":"Tweede Kamer","ContentType":"application/pdf","ContentLength":187654,"Verwijderd":false}`

// TestGetDocumentExpansionRefused: when the platform refuses to expand
// HuidigeDocumentVersie, tk_get_document asks for less and reads the
// Kamer's own file, saying that the official XML twin could not be
// looked up; the same by document number.
func TestGetDocumentExpansionRefused(t *testing.T) {
	resource := base + "/Document(" + kstID + ")/resource"
	pdf := makePDF([]string{"Verslag van een schriftelijk overleg", "Eén vraag over de Woo"})
	for _, id := range []string{kstID, "2023D52517"} {
		t.Run(id, func(t *testing.T) {
			urls := metaURLs(id)
			plain := kstPlain
			if id != kstID {
				plain = `{"value":[` + kstPlain + `]}`
			}
			h := sdktest.NewHost(t).
				HandleBody(urls[0], 400, []byte(expansionRefused)).
				HandleBody(urls[1], 200, []byte(plain)).
				HandleBody(resource, 200, pdf)
			var d sdk.Document
			sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+id+`"}`), &d)
			x := d.Extra["tk"]
			notes, _ := x["notes"].([]any)
			if d.ID != kstID || d.Title != "Verslag van een schriftelijk overleg over de Woo" || d.Date != "2023-12-28" ||
				d.URL != "https://www.tweedekamer.nl/kamerstukken/detail?id=2023D52517&did=2023D52517" || x["resource_url"] != resource || x["text_source"] != "pdf" || !strings.Contains(d.Text, "Eén vraag over de Woo") || len(notes) != 1 {
				t.Fatalf("document = %+v", d)
			}
			for _, w := range []string{"official XML twin", "could not be looked up", "refused to expand", "HuidigeDocumentVersie", "HTTP 400: Could not find a property named 'HuidigeDocumentVersie'"} {
				if !strings.Contains(notes[0].(string), w) {
					t.Errorf("note lacks %q: %s", w, notes[0])
				}
			}
			var got []string
			for _, r := range h.Requests() {
				got = append(got, r.URL)
			}
			if want := []string{urls[0], urls[1], resource}; !cmp.Equal(got, want) {
				t.Errorf("requests = %q, want %q", got, want)
			}
		})
	}
}

// TestGetDocumentMetadataDrift: the requests after a refused expansion
// may fail too. A refused $select reads the whole entity; when nothing
// can be read, a document named by Id is still read from its file, with
// what is known; one named by number cannot be, and the error says why.
func TestGetDocumentMetadataDrift(t *testing.T) {
	resource := base + "/Document(" + kstID + ")/resource"
	pdf := makePDF([]string{"Eén vraag over de Woo"})
	selectRefused := `{"error":{"code":"","message":"Could not find a property named 'Onderwerp' on type 'TK.DA.GGM.OData.Document'."}}`
	urls := metaURLs(kstID)
	t.Run("select refused", func(t *testing.T) {
		h := sdktest.NewHost(t).
			HandleBody(urls[0], 400, []byte(expansionRefused)).
			HandleBody(urls[1], 400, []byte(selectRefused)).
			HandleBody(urls[2], 200, []byte(strings.Replace(kstPlain, `"Onderwerp"`, `"Onderwerpen"`, 1))).
			HandleBody(resource, 200, pdf)
		var d sdk.Document
		sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+kstID+`"}`), &d)
		notes, _ := d.Extra["tk"]["notes"].([]any)
		if d.Title != "Wet open overheid" || d.Type != "Verslag van een schriftelijk overleg" || len(notes) != 2 ||
			!strings.Contains(notes[1].(string), "also refused the selected metadata fields (upstream answered HTTP 400: Could not find a property named 'Onderwerp'") {
			t.Errorf("document = %+v", d)
		}
	})
	t.Run("nothing readable", func(t *testing.T) {
		h := sdktest.NewHost(t).
			HandleBody(urls[0], 400, []byte(expansionRefused)).
			HandleBody(urls[1], 400, []byte(selectRefused)).
			HandleBody(urls[2], 500, []byte(`{"error":{"code":"","message":"An error has occurred."}}`)).
			HandleBody(resource, 200, pdf)
		var d sdk.Document
		sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+strings.ToUpper(kstID)+`"}`), &d)
		notes, _ := d.Extra["tk"]["notes"].([]any)
		// Without metadata there is no document number, so no page to
		// cite: url stays empty, the file is extra.tk.resource_url.
		if d.ID != kstID || d.Title != kstID || d.URL != "" || d.Extra["tk"]["resource_url"] != resource || d.Extra["tk"]["text_source"] != "pdf" || !strings.Contains(d.Text, "Eén vraag") || len(notes) != 3 ||
			!strings.Contains(notes[2].(string), "metadata could not be read (get_document: upstream answered HTTP 500: An error has occurred.)") {
			t.Errorf("document = %+v", d)
		}
	})
	t.Run("by number", func(t *testing.T) {
		urls := metaURLs("2023D52517")
		h := sdktest.NewHost(t).
			HandleBody(urls[0], 400, []byte(expansionRefused)).
			HandleBody(urls[1], 400, []byte(selectRefused)).
			HandleBody(urls[2], 400, []byte(`{"error":{"code":"","message":"Could not find a property named 'DocumentNummer' on type 'TK.DA.GGM.OData.Document'."}}`))
		res := sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"2023D52517"}`)
		if !res.IsError || !strings.Contains(res.Text, "'DocumentNummer'") || !strings.Contains(res.Text, "'HuidigeDocumentVersie'") || !strings.Contains(res.Text, "Pass the document's Id (GUID)") {
			t.Errorf("got %+v", res)
		}
	})
	t.Run("unknown after refusal", func(t *testing.T) {
		h := sdktest.NewHost(t).
			HandleBody(urls[0], 400, []byte(expansionRefused)).
			HandleBody(urls[1], 404, []byte(`{"error":{"code":"","message":"Not found"}}`))
		res := sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+kstID+`"}`)
		if !res.IsError || !strings.Contains(res.Text, "no document") {
			t.Errorf("got %+v", res)
		}
	})
	t.Run("no version", func(t *testing.T) {
		h := sdktest.NewHost(t).HandleBody(urls[0], 200, []byte(kstPlain)).HandleBody(resource, 200, pdf)
		var d sdk.Document
		sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+kstID+`"}`), &d)
		notes, _ := d.Extra["tk"]["notes"].([]any)
		if len(notes) != 1 || !strings.Contains(notes[0].(string), "names no current version") {
			t.Errorf("document = %+v", d)
		}
	})
}

// TestGetDocumentTextKey: the kept text follows what decides it. By Id
// and by number the same document shares one text; when the expansion is
// refused for one lookup, its PDF text is not served to a lookup that
// does find the official XML.
func TestGetDocumentTextKey(t *testing.T) {
	resource := base + "/Document(" + kstID + ")/resource"
	h := sdktest.NewHost(t).
		HandleBody(metaURLs(kstID)[0], 400, []byte(expansionRefused)).
		HandleBody(metaURLs(kstID)[1], 200, []byte(kstPlain)).
		HandleBody(resource, 200, makePDF([]string{"Eén vraag over de Woo"})).
		Handle(metaURL("2023D52517"), 200, td+"tk-document-by-number.json").
		Handle(obkXML, 200, td+"obk-kst-33328-AI.xml")
	var byID, byNumber sdk.Document
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+kstID+`"}`), &byID)
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"2023D52517"}`), &byNumber)
	if byID.Extra["tk"]["text_source"] != "pdf" || byNumber.Extra["tk"]["text_source"] != "officielebekendmakingen_xml" || h.TextsKept() != 2 {
		t.Errorf("by id %v, by number %v, %d texts kept", byID.Extra["tk"]["text_source"], byNumber.Extra["tk"]["text_source"], h.TextsKept())
	}
	h = sdktest.NewHost(t).
		Handle(metaURL(kstID), 200, td+"tk-document-kst.json").
		Handle(metaURL("2023D52517"), 200, td+"tk-document-by-number.json").
		Handle(obkXML, 200, td+"obk-kst-33328-AI.xml")
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+kstID+`"}`), &byID)
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"2023D52517"}`), &byNumber)
	if h.TextsKept() != 1 || h.TextPagesServed() != 1 || !cmp.Equal(byID, byNumber) {
		t.Errorf("%d texts kept, %d pages served; by id %+v, by number %+v", h.TextsKept(), h.TextPagesServed(), byID, byNumber)
	}
}

// TestGetDocumentByKamerstuk: a Kamerstuk as cited is found by its
// dossier, addition and number (the filter tk_get_votes uses), and a
// document number in lower case by its number. It catches a citation
// refused or sent to the platform as written.
func TestGetDocumentByKamerstuk(t *testing.T) {
	const cited = "Kamerstukken II 2025/26, 36800-VII, nr. 14"
	urls := metaURLs(cited)
	want := base + "/Document?$filter=Verwijderd%20eq%20false%20and%20Volgnummer%20eq%2014%20and%20Kamerstukdossier%2Fany%28k%3Ak%2FNummer%20eq%2036800%20and%20k%2FToevoeging%20eq%20%27VII%27%29&"
	if !strings.HasPrefix(urls[0], want) || !strings.HasSuffix(urls[0], "&$top=2") {
		t.Errorf("MetadataURLs(%q)[0] = %s\nwant prefix %s", cited, urls[0], want)
	}
	for _, id := range []string{cited, "kamerstukken ii 2025/26 36800 vii nr 14", "2023d52517"} {
		h := sdktest.NewHost(t).
			Handle(metaURL(id), 200, td+"tk-document-by-number.json").
			Handle(obkXML, 200, td+"obk-kst-33328-AI.xml")
		var d sdk.Document
		sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+id+`"}`), &d)
		if d.ID != kstID || h.URLs()[0] != metaURL(id) {
			t.Errorf("%q: document %s, requests %v", id, d.ID, h.URLs())
		}
	}
}

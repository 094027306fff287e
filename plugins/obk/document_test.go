package obk_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sruRecord is an SRU answer with one publication's record, in the shape
// of testdata/obk/obk-sru-response.xml without its namespaces (the parser
// reads local names).
func sruRecord(id, title, date, creator, publication string) []byte {
	return []byte(`<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records><record><recordData><gzd><originalData><meta>` +
		`<owmskern><identifier>` + id + `</identifier><title>` + title + `</title><creator>` + creator + `</creator></owmskern>` +
		`<owmsmantel><date>` + date + `</date></owmsmantel><tpmeta><publicatienaam>` + publication + `</publicatienaam></tpmeta>` +
		`</meta></originalData><enrichedData><preferredUrl>` + zoek + "/" + id + `.html</preferredUrl></enrichedData></gzd></recordData></record></records></searchRetrieveResponse>`)
}

const noRecord = `<searchRetrieveResponse><numberOfRecords>0</numberOfRecords></searchRetrieveResponse>`

func TestGetDocumentStaatscourant(t *testing.T) {
	h := sdktest.NewHost(t).Handle(zoek+"/stcrt-2015-47076.xml", 200, td+"obk-stcrt-2015-47076.xml").
		HandleBody(obk.RecordURL(obk.SRUBase, "stcrt-2015-47076"), 200, sruRecord("stcrt-2015-47076", "Ter inzage: omgevingsvergunning", "2015-12-23", "Bergen (NH)", "Staatscourant"))
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "get_document", `{"id":"stcrt-2015-47076"}`), &d)
	r := h.Requests()[0]
	if r.Service != obk.ServiceZoek || r.Cost != 1 || r.CacheClass != connector.ClassDocument {
		t.Errorf("request = %+v", r)
	}
	want := sdk.Document{
		Platform: "obk", ID: "stcrt-2015-47076", Type: "Staatscourant", Title: "Ter inzage: omgevingsvergunning",
		Date: "2015-12-23", Organization: "Bergen (NH)",
		URL: zoek + "/stcrt-2015-47076.html", Format: "text", Page: 1, Pages: 1,
		Text: "STAATSCOURANT\n\nOfficiële uitgave van het Koninkrijk der Nederlanden sinds 1814.\n\nTer inzage: omgevingsvergunning\n\n" +
			"•Vennewatersweg 29, 1935 AS, Egmond-Binnen - bouw bedrijfswoning.\n\n" +
			"Dit ontwerpbesluit ligt vanaf 24 december 2015 zes weken ter inzage in het gemeentehuis van Bergen. Tijdens deze zes weken kunnen belanghebbenden hierover schriftelijk of mondeling hun zienswijze kenbaar maken bij het college van Bergen.\n\n" +
			"Bergen, 23 december 2015\n\nBurgemeester en wethouders van Bergen (NH)",
		Extra: map[string]map[string]any{"obk": {
			"xml_url": zoek + "/stcrt-2015-47076.xml", "pdf_url": zoek + "/stcrt-2015-47076.pdf", "root": "officiele-publicatie",
			"metadata_url": zoek + "/stcrt-2015-47076/metadata.xml",
		}},
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("document (-want +got):\n%s", diff)
	}
	if r := h.Requests()[1]; r.Service != obk.ServiceSRU || r.Cost != 1 || r.CacheClass != connector.ClassDocument {
		t.Errorf("record lookup = %+v", r)
	}
}

// TestGetDocumentMetadataFromSearchIndex: the publication XML has no date
// or publishing body, so get_document takes them from the record
// obk_search showed, and cites the same page. It catches a document
// without date or organisation, a citation that differs from search's,
// and a failed lookup that costs the text or is kept with it.
func TestGetDocumentMetadataFromSearchIndex(t *testing.T) {
	const id = "gmb-2023-174296"
	xml := []byte(`<officiele-publicatie><gemeenteblad><kop><titel>Melding asbest</titel></kop><al>Tekst.</al></gemeenteblad></officiele-publicatie>`)
	h := sdktest.NewHost(t).HandleBody(zoek+"/"+id+".xml", 200, xml).
		Handle(sru+"?*", 200, td+"obk-sru-response.xml")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "search", `{"query":"asbest"}`), &sr)
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "get_document", `{"id":"`+id+`"}`), &d)
	s := sr.Results[0]
	if s.ID != id || d.Date != s.Date || d.Organization != s.Organization || d.URL != s.URL || d.Date == "" || d.Organization == "" {
		t.Errorf("search gave %s %q %q %s; get_document %q %q %s", s.ID, s.Date, s.Organization, s.URL, d.Date, d.Organization, d.URL)
	}

	// The lookup fails: the text still comes, with a note, and the next
	// call tries again instead of keeping the failure with the text.
	h = sdktest.NewHost(t).HandleBody(zoek+"/"+id+".xml", 200, xml).
		HandleBody(sru+"?*", 503, []byte("<html><title>503 Service Unavailable</title></html>"))
	d = sdk.Document{}
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "get_document", `{"id":"`+id+`"}`), &d)
	if d.Text == "" || d.Date != "" || !strings.Contains(fmt.Sprint(d.Extra["obk"]["notes"]), "Date and publishing body are unknown") {
		t.Errorf("failed lookup: %+v", d)
	}
	// An exact route wins over the failing prefix route.
	h.HandleBody(obk.RecordURL(obk.SRUBase, id), 200, sruRecord(id, "Melding asbest", "2023-04-20", "Bergeijk", "Gemeenteblad"))
	d = sdk.Document{}
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "get_document", `{"id":"`+id+`","page":1}`), &d)
	if d.Date != "2023-04-20" || d.Organization != "Bergeijk" || d.Extra["obk"]["notes"] != nil {
		t.Errorf("after the platform recovered: %+v", d)
	}
	if n := h.TextsKept(); n != 1 {
		t.Errorf("the XML was extracted %d times, want once", n)
	}
}

func TestGetDocumentKamerstuk(t *testing.T) {
	h := sdktest.NewHost(t).Handle(zoek+"/kst-33328-AI.xml", 200, td+"obk-kst-33328-AI.xml").
		HandleBody(obk.RecordURL(obk.SRUBase, "kst-33328-AI"), 200, []byte(noRecord))
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "get_document", `{"id":"kst-33328-AI","page":1}`), &d)
	if d.Type != "Kamerstuk" || !strings.HasPrefix(d.Title, "Voorstel van wet van de leden Snels en Sneller") {
		t.Errorf("type %q, title %q", d.Type, d.Title)
	}
	for _, want := range []string{
		"Eerste Kamer der Staten-Generaal\nVergaderjaar 2023-2024\n\n33 328\n\n",
		"Nr. AI\n\nVERSLAG VAN EEN SCHRIFTELIJK OVERLEG [noot 1: Samenstelling: zie de bijlage.]\n\nVastgesteld 28 december 2023",
		"over de voortgang van de implementatie",
		"1. Vragen van de leden van de fractie van GroenLinks-PvdA\n\nDe leden vragen of de financiële gevolgen",
		"a. Hoeveel Woo-verzoeken zijn er ingediend?\n\nb. Wat is de gemiddelde doorlooptijd, in dagen, van één verzoek?",
		"Jaar | Verzoeken\n2022 | 1.204",
	} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, d.Text)
		}
	}
}

// handelingen is the XML of a long Handelingen (a sitting day of the
// Tweede Kamer) in the official-publication format, 1.9 MB with more than 1 MB
// of text; its last paragraph ends in a phrase with Dutch characters.
func handelingen() string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>
<officiele-publicatie xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="http://technische-documentatie.oep.overheid.nl/schema/op-xsd-2012-3">
  <metadata>
    <meta name="DC.title" content="Handelingen Tweede Kamer 2023-2024, vergadering 99, Stemmingen en debatten" />
    <meta name="DC.creator" content="Tweede Kamer der Staten-Generaal" />
    <meta name="DCTERMS.issued" scheme="OVERHEID.XSDdate" content="2024-06-14" />
    <meta name="OVERHEIDop.externMetadataRecord" content="https://zoek.officielebekendmakingen.nl/h-tk-20232024-99-1/metadata.xml" />
  </metadata>
  <handelingen>
    <kop><titel>Debat over de financiële positie van gemeenten</titel></kop>
    <agendapunt>
`)
	for i := 1; b.Len() < 1_900_000; i++ {
		fmt.Fprintf(&b, `      <spreekbeurt nieuw="ja"><spreker><voorvoegsels>De heer</voorvoegsels><naam><achternaam>Sprekër %d</achternaam></naam> (<politiek>VVD</politiek>):</spreker>
        <tekst><al>Voorzitter. Dit is bijdrage %d over de financiële ruimte van gemeenten, het café op de hoek en de coördinatie van één ijsbaan per regio.</al>
        <al>Ik vraag de minister om een reactie op de zorgen die in de Kamer leven over de uitvoerbaarheid.</al></tekst></spreekbeurt>
`, i, i)
	}
	b.WriteString(`      <spreekbeurt><spreker><voorvoegsels>De</voorvoegsels><naam><achternaam>voorzitter</achternaam></naam>:</spreker>
        <tekst><al>Slotzin: het café, de financiële reünie en een naïeve coördinatie.</al></tekst></spreekbeurt>
    </agendapunt>
  </handelingen>
</officiele-publicatie>
`)
	return b.String()
}

// TestGetDocumentLarge reads a Handelingen of more than 1 MB of text page
// by page: the XML is fetched and extracted once, the host keeps the text
// and its head, and a later page read from it equals what a fresh
// extraction gives.
func TestGetDocumentLarge(t *testing.T) {
	const id = "h-tk-20232024-99-1"
	h := sdktest.NewHost(t).HandleBody(zoek+"/"+id+".xml", 200, []byte(handelingen())).
		HandleBody(obk.RecordURL(obk.SRUBase, id), 200, []byte(noRecord))
	docs := sdktest.ReadDocument(t, obk.Plugin(), h, "get_document", func(n int) string { return fmt.Sprintf(`{"id":%q,"page":%d}`, id, n) })
	first, last := docs[0], docs[len(docs)-1]
	total := 0
	for _, d := range docs {
		total += len(d.Text)
	}
	if total < 1<<20 || len(docs) < 50 {
		t.Errorf("%d bytes in %d pages, want more than 1 MB", total, len(docs))
	}
	if first.Title != "Handelingen Tweede Kamer 2023-2024, vergadering 99, Stemmingen en debatten" || first.Date != "2024-06-14" ||
		first.Organization != "Tweede Kamer der Staten-Generaal" || first.Type != "Handelingen" ||
		!strings.HasPrefix(first.Text, "Debat over de financiële positie van gemeenten\n\nDe heer") {
		t.Errorf("first page = %+v", first)
	}
	if !strings.HasSuffix(last.Text, "Slotzin: het café, de financiële reünie en een naïeve coördinatie.") {
		t.Errorf("last page ends %q", last.Text[max(0, len(last.Text)-100):])
	}
	if last.Title != first.Title || last.Date != first.Date || last.Organization != first.Organization || !cmp.Equal(last.Extra, first.Extra) ||
		last.Extra["obk"]["metadata_url"] != zoek+"/"+id+"/metadata.xml" {
		t.Errorf("the last page's metadata differs from the first's: %+v", last)
	}
	if n := h.TextsKept(); n != 1 {
		t.Errorf("the XML was extracted %d times, want once", n)
	}
	if n := len(h.Requests()); n != 2 {
		t.Errorf("%d requests, want two (the XML and its SRU record, once)", n)
	}
	for _, n := range []int{len(docs) / 2, len(docs)} {
		h.ForgetTexts()
		var fresh sdk.Document
		sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "get_document", fmt.Sprintf(`{"id":%q,"page":%d}`, id, n)), &fresh)
		if diff := cmp.Diff(fresh, docs[n-1]); diff != "" {
			t.Errorf("page %d kept differs from a fresh extraction (-fresh +kept):\n%s", n, diff)
		}
	}
	res := sdktest.Call(t, obk.Plugin(), h, "get_document", fmt.Sprintf(`{"id":%q,"page":%d}`, id, len(docs)+1))
	if !res.IsError || !strings.Contains(res.Text, fmt.Sprintf(`"page": %d is out of range, the document has %d page(s)`, len(docs)+1, len(docs))) {
		t.Errorf("page out of range: %+v", res)
	}
}

func TestGetDocumentErrors(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"missing", `{}`, `"id"`},
		{"path", `{"id":"../etc/passwd"}`, `"id"`},
		{"query", `{"id":"kst-1?x=1"}`, `"id"`},
		{"url", `{"id":"https://zoek.officielebekendmakingen.nl/kst-1.html"}`, `"id"`},
		{"page", `{"id":"kst-33328-AI","page":-1}`, `"page"`},
		{"unknown", `{"id":"kst-33328-AI","format":"pdf"}`, `"format"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			res := sdktest.Call(t, obk.Plugin(), h, "get_document", c.args)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want a tool error naming %s", res, c.want)
			}
			if n := len(h.Requests()); n != 0 {
				t.Errorf("bad arguments reached the platform (%d requests)", n)
			}
		})
	}
	for _, c := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"404", 404, "<html><head><title>404 Not Found</title></head></html>", "has no XML for \"kst-1-2\""},
		{"503", 503, readFile(t, td+"obk-sru-503.html"), "HTTP 503: 503 Service Temporarily Unavailable"},
		{"429", 429, "Too Many Requests", "HTTP 429: Too Many Requests (the platform is busy"},
		{"html page", 200, "<!DOCTYPE html>\n<html><body>Zoeken</body></html>", "HTML page"},
		{"html root", 200, "<html><body>Zoeken</body></html>", "HTML page"},
		{"malformed", 200, "<officiele-publicatie><al>open", "malformed"},
		{"empty", 200, "", "empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t).HandleBody(zoek+"/kst-1-2.xml", c.status, []byte(c.body))
			res := sdktest.Call(t, obk.Plugin(), h, "get_document", `{"id":"kst-1-2"}`)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want tool error containing %q", res, c.want)
			}
		})
	}
}

func TestGetDocumentNoText(t *testing.T) {
	h := sdktest.NewHost(t).HandleBody(zoek+"/gmb-2020-1.xml", 200, []byte(`<officiele-publicatie><metadata><meta name="DC.title" content="Leeg"/></metadata></officiele-publicatie>`)).
		HandleBody(obk.RecordURL(obk.SRUBase, "gmb-2020-1"), 200, []byte(noRecord))
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "get_document", `{"id":"gmb-2020-1"}`), &d)
	if d.Title != "Leeg" || d.Type != "Gemeenteblad" || !strings.Contains(d.Text, "holds no text") {
		t.Errorf("document = %+v", d)
	}
}

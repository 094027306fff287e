package obk_test

import (
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

func TestGetDocumentStaatscourant(t *testing.T) {
	h := sdktest.NewHost(t).Handle(zoek+"/stcrt-2015-47076.xml", 200, td+"obk-stcrt-2015-47076.xml")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "get_document", `{"id":"stcrt-2015-47076"}`), &d)
	r := h.Requests()[0]
	if r.Service != obk.ServiceZoek || r.Cost != 1 || r.CacheClass != connector.ClassDocument {
		t.Errorf("request = %+v", r)
	}
	want := sdk.Document{
		Platform: "obk", ID: "stcrt-2015-47076", Type: "Staatscourant", Title: "Ter inzage: omgevingsvergunning",
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
}

func TestGetDocumentKamerstuk(t *testing.T) {
	h := sdktest.NewHost(t).Handle(zoek+"/kst-33328-AI.xml", 200, td+"obk-kst-33328-AI.xml")
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

func TestGetDocumentPaging(t *testing.T) {
	para := "<al>Één alinea over de financiële ijkwaarden van de Staatscourant, met tekens als ë, é en ij.</al>\n"
	body := `<?xml version="1.0" encoding="utf-8"?><officiele-publicatie><staatscourant><kop><titel>Groot besluit</titel></kop><tekst>` +
		strings.Repeat(para, 11000) + `</tekst></staatscourant></officiele-publicatie>` // ≈1.1 MB
	h := sdktest.NewHost(t).HandleBody(zoek+"/stcrt-2024-99999.xml", 200, []byte(body))
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "get_document", `{"id":"stcrt-2024-99999","page":2}`), &d)
	if d.Page != 2 || d.Pages < 40 || len(d.Text) > sdk.TextPageSize || !strings.HasPrefix(d.Text, "Één alinea") || d.Title != "Groot besluit" {
		t.Errorf("page %d of %d, %d bytes, title %q, starts %.20q", d.Page, d.Pages, len(d.Text), d.Title, d.Text)
	}
	last := sdktest.Call(t, obk.Plugin(), h, "get_document", `{"id":"stcrt-2024-99999","page":999}`)
	if !last.IsError || !strings.Contains(last.Text, `"page"`) {
		t.Errorf("page out of range: %+v", last)
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
	h := sdktest.NewHost(t).HandleBody(zoek+"/gmb-2020-1.xml", 200, []byte(`<officiele-publicatie><metadata><meta name="DC.title" content="Leeg"/></metadata></officiele-publicatie>`))
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "get_document", `{"id":"gmb-2020-1"}`), &d)
	if d.Title != "Leeg" || d.Type != "Gemeenteblad" || !strings.Contains(d.Text, "holds no text") {
		t.Errorf("document = %+v", d)
	}
}

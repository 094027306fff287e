package obk_test

import (
	"slices"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestGetDocumentCitedForms: a publication as people cite it, in any case
// and spacing, reads the publication by the platform's id. It catches the
// regression that refused Stcrt-2025-18220 (accepted before), and a
// citation that reaches the platform in the reader's spelling.
func TestGetDocumentCitedForms(t *testing.T) {
	xml := []byte(`<officiele-publicatie><staatscourant><kop><titel>Regeling</titel></kop><al>Tekst.</al></staatscourant></officiele-publicatie>`)
	for given, id := range map[string]string{
		"Stcrt-2025-18220":                           "stcrt-2025-18220",
		"Stcrt. 2025, 18220":                         "stcrt-2025-18220",
		"gmb. 2024,512034":                           "gmb-2024-512034",
		"Stb. 2024, 12":                              "stb-2024-12",
		"Kamerstukken II 2025/26, 36800-VII, nr. 14": "kst-36800-VII-14",
		"kst-36800-vii-14":                           "kst-36800-VII-14",
	} {
		h := sdktest.NewHost(t).HandleBody(zoek+"/"+id+".xml", 200, xml).
			HandleBody(obk.RecordURL(obk.SRUBase, id), 200, []byte(noRecord))
		var d sdk.Document
		sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "get_document", `{"id":"`+given+`"}`), &d)
		if d.ID != id || !slices.Contains(h.URLs(), zoek+"/"+id+".xml") {
			t.Errorf("%q: id %q, fetched %v; want %s", given, d.ID, h.URLs(), id)
		}
	}
}

// TestGetDocumentOtherPlatform: another platform's document is refused
// without a request, naming the tool and the id to pass.
func TestGetDocumentOtherPlatform(t *testing.T) {
	for given, want := range map[string]string{
		"ecli:nl:hr:2024:123": "ecli:nl:hr:2024:123 is a court decision (ECLI): call rechtspraak_get_document with id=ECLI:NL:HR:2024:123",
		"2025D05511":          "2025D05511 is a Tweede Kamer document number: call tk_get_document (or opentk_get_document) with id=2025D05511",
	} {
		h := sdktest.NewHost(t)
		res := sdktest.Call(t, obk.Plugin(), h, "get_document", `{"id":"`+given+`"}`)
		if !res.IsError || res.Text != want || len(h.Requests()) != 0 {
			t.Errorf("%q: %v %q (%d requests), want error %q", given, res.IsError, res.Text, len(h.Requests()), want)
		}
	}
}

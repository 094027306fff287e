package rechtspraak_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

const content = base + "/uitspraken/content?id="

// TestGetDocumentByID: the document argument is id, an ECLI in any case
// and spacing; ecli (its old name) reads the same, and both given alike
// are one. It catches a cited ECLI that is refused or reaches the platform
// as written.
func TestGetDocumentByID(t *testing.T) {
	for _, args := range []string{
		`{"id":"ecli:nl:ghams:2020:3025"}`, `{"id":"ECLI : NL : GHAMS : 2020 : 3025"}`,
		`{"ecli":"ECLI:NL:GHAMS:2020:3025"}`, `{"id":"ECLI:NL:GHAMS:2020:3025","ecli":"ECLI:NL:GHAMS:2020:3025"}`,
	} {
		h := sdktest.NewHost(t).Handle(content+"ECLI%3ANL%3AGHAMS%3A2020%3A3025", 200, td+"rechtspraak-content.xml")
		var d sdk.Document
		sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "get_document", args), &d)
		if d.ID != "ECLI:NL:GHAMS:2020:3025" {
			t.Errorf("%s: id %q", args, d.ID)
		}
	}
}

func TestGetDocumentUitspraak(t *testing.T) {
	h := sdktest.NewHost(t).Handle(content+"ECLI%3ANL%3AGHAMS%3A2020%3A3025", 200, td+"rechtspraak-content.xml")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "get_document", `{"ecli":" ecli:nl:ghams:2020:3025 "}`), &d)
	if r := h.Requests()[0]; r.Service != rechtspraak.ServiceContent || r.Cost != 1 || r.CacheClass != connector.ClassDocument {
		t.Errorf("request = %+v", r)
	}
	extra := d.Extra["rechtspraak"]
	d.Extra = nil
	want := sdk.Document{
		Platform: "rechtspraak", ID: "ECLI:NL:GHAMS:2020:3025", Type: "Uitspraak",
		Title: "ECLI:NL:GHAMS:2020:3025 Gerechtshof Amsterdam , 23-07-2020 / 17/00394 17/00357",
		Date:  "2020-07-23", Organization: "Gerechtshof Amsterdam",
		URL:    "https://uitspraken.rechtspraak.nl/details?id=ECLI:NL:GHAMS:2020:3025",
		Format: "markdown", Page: 1, Pages: 1,
		Text: "## Inhoudsindicatie\n\nNaheffingsaanslag OB en boete; verdedigingsbeginsel; bewijslast; fraude in de keten?; wist of had belanghebbende moeten weten van fraude?; art. 8:45 Awb/zorgvuldigheidsbeginsel; neutraliteitsbeginsel; vertrouwensbeginsel; getuigen\n\n" +
			"## Uitspraak\n\nGERECHTSHOF AMSTERDAM\n\nkenmerken 17/00357 en 17/00394\n\n23 juli 2020\n\nuitspraak van de tweede meervoudige belastingkamer\n",
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("document (-want +got):\n%s", diff)
	}
	// Extra went through JSON: compare it in that form.
	var gotExtra map[string]any
	b, _ := json.Marshal(extra)
	_ = json.Unmarshal(b, &gotExtra)
	wantExtra := map[string]any{
		"has_text": true, "court_id": "http://standaarden.overheid.nl/owms/terms/Gerechtshof_Amsterdam",
		"deeplink":  "http://deeplink.rechtspraak.nl/uitspraak?id=ECLI:NL:GHAMS:2020:3025",
		"published": "2020-11-16", "modified": "2023-08-08T20:38:06", "case_numbers": "17/00394 17/00357", "location": "Amsterdam",
		"procedures": []any{map[string]any{"id": "http://psi.rechtspraak.nl/procedure#hogerBeroep", "label": "Hoger beroep"}},
		"subjects":   []any{map[string]any{"id": "http://psi.rechtspraak.nl/rechtsgebied#bestuursrecht_belastingrecht", "label": "Bestuursrecht; Belastingrecht"}},
		"relations": []any{
			map[string]any{"ecli": "ECLI:NL:RBNHO:2017:6221", "type": "http://psi.rechtspraak.nl/hogerBeroep", "aanleg": "http://psi.rechtspraak.nl/eerdereAanleg", "label": "Eerste aanleg: ECLI:NL:RBNHO:2017:6221"},
			map[string]any{"ecli": "ECLI:NL:HR:2023:1049", "type": "http://psi.rechtspraak.nl/cassatie", "aanleg": "http://psi.rechtspraak.nl/latereAanleg", "label": "Cassatie: ECLI:NL:HR:2023:1049"},
		},
		"vindplaatsen": []any{"Rechtspraak.nl", "Viditax (FutD), 10-02-2021", "V-N Vandaag 2021/356", "FutD 2021-0586 met annotatie van Fiscaal up to Date", "V-N 2021/12.1.6", "NLF 2021/0623 met annotatie van Lisa van Esdonk-Bongaarts", "NTFR 2021/713"},
		"summary":      "Naheffingsaanslag OB en boete; verdedigingsbeginsel; bewijslast; fraude in de keten?; wist of had belanghebbende moeten weten van fraude?; art. 8:45 Awb/zorgvuldigheidsbeginsel; neutraliteitsbeginsel; vertrouwensbeginsel; getuigen",
	}
	if diff := cmp.Diff(wantExtra, gotExtra); diff != "" {
		t.Errorf("extra (-want +got):\n%s", diff)
	}
}

func TestGetDocumentConclusie(t *testing.T) {
	h := sdktest.NewHost(t).Handle(content+"ECLI%3ANL%3APHR%3A2023%3A512", 200, td+"rechtspraak-conclusie.xml")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "get_document", `{"ecli":"ECLI:NL:PHR:2023:512"}`), &d)
	if d.Type != "Conclusie" || d.Organization != "Parket bij de Hoge Raad" || d.Date != "2023-05-12" {
		t.Errorf("document = %+v", d)
	}
	for _, want := range []string{
		"## Inhoudsindicatie\n\nHuurrecht; opzegging wegens dringend eigen gebruik",
		"## Conclusie\n\nPROCUREUR-GENERAAL\n\nBIJ DE",
		"de coöperatie Woonbeheer IJsselland U.A.,",
		"1 Inleiding en samenvatting\n\n1.1 Deze zaak gaat over de opzegging van een huurovereenkomst van een woning in Zoë's geboortedorp. [noot: Zie HR 12 maart 2021, ECLI:NL:HR:2021:384.] Het hof heeft geoordeeld",
		"1.2 Ik kom tot de volgende overwegingen:\n\nde maatstaf van art. 7:274 lid 1, aanhef en onder c, BW;\n\nde belangenafweging (financiële gevolgen, één alternatief).",
		"Huur | € 1.250\nServicekosten | € 45",
		"1.3 Conclusie: verwerping.",
	} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, d.Text)
		}
	}
	if rel := d.Extra["rechtspraak"]["relations"].([]any); len(rel) != 1 {
		t.Errorf("relations = %v", rel)
	}
}

func TestGetDocumentMetadataOnly(t *testing.T) {
	h := sdktest.NewHost(t).Handle(content+"*", 200, td+"rechtspraak-metadata-only.xml")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "get_document", `{"ecli":"ECLI:NL:RBARN:1999:AA1000"}`), &d)
	if d.Extra["rechtspraak"]["has_text"] != false || !strings.Contains(d.Text, "only metadata") ||
		d.Title != "ECLI:NL:RBARN:1999:AA1000, Rechtbank Arnhem, 1999-09-24, 05.072594.99" ||
		d.URL != "https://uitspraken.rechtspraak.nl/details?id=ECLI:NL:RBARN:1999:AA1000" {
		t.Errorf("document = %+v", d)
	}
}

func TestGetDocumentPaging(t *testing.T) {
	para := "<parablock><nr>1</nr><para>Het hof overweegt dat de belanghebbende – anders dan de inspecteur – één vraag terecht heeft gesteld over de financiële ijkwaarden.</para></parablock>\n"
	body := `<?xml version="1.0" encoding="utf-8"?><open-rechtspraak><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:dcterms="http://purl.org/dc/terms/"><rdf:Description><dcterms:identifier>ECLI:NL:GHAMS:2020:3025</dcterms:identifier><dcterms:type>Uitspraak</dcterms:type></rdf:Description></rdf:RDF>` +
		`<uitspraak xmlns="http://www.rechtspraak.nl/schema/rechtspraak-1.0">` + strings.Repeat(para, 6500) + `</uitspraak></open-rechtspraak>` // ≈1.1 MB
	h := sdktest.NewHost(t).HandleBody(content+"ECLI%3ANL%3AGHAMS%3A2020%3A3025", 200, []byte(body))
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "get_document", `{"ecli":"ECLI:NL:GHAMS:2020:3025","page":3}`), &d)
	if d.Page != 3 || d.Pages < 40 || len(d.Text) > sdk.TextPageSize || !strings.HasPrefix(d.Text, "1 Het hof overweegt") {
		t.Errorf("page %d of %d, %d bytes, starts %.30q", d.Page, d.Pages, len(d.Text), d.Text)
	}
	res := sdktest.Call(t, rechtspraak.Plugin(), h, "get_document", `{"ecli":"ECLI:NL:GHAMS:2020:3025","page":1000}`)
	if !res.IsError || !strings.Contains(res.Text, `"page"`) {
		t.Errorf("page out of range: %+v", res)
	}
}

// endPhrase closes the long test judgement: Dutch characters (é, ë, ï, ü)
// must reach the last page intact.
const endPhrase = "Slot: één reünie met Zoë, naïef maar gemeend."

// longJudgement is testdata/rechtspraak/rechtspraak-content.xml with its
// truncated uitspraak filled in to over 1 MB of text (1.8 MB of XML):
// numbered paragraphs in
// sections, emphasis, footnotes and a table, as real judgements have,
// closing with endPhrase.
func longJudgement(t *testing.T) []byte {
	tmpl := readFile(t, td+"rechtspraak-content.xml")
	const cut = "<!-- TRUNCATED"
	i := strings.Index(tmpl, cut)
	j := strings.Index(tmpl[i:], "-->")
	if i < 0 || j < 0 {
		t.Fatal("the fixture has no TRUNCATED comment to fill")
	}
	var b strings.Builder
	for n := 1; b.Len() < 1_800_000; n++ {
		fmt.Fprintf(&b, "<section><title>%d. Beoordeling</title>\n", n)
		for k := 1; k <= 5; k++ {
			fmt.Fprintf(&b, "<parablock><nr>%d.%d</nr><para>Het hof overweegt dat de belanghebbende &#8211; anders dan de inspecteur &#8211; <emphasis role=\"italic\">één</emphasis> vraag terecht heeft gesteld over de financiële ijkwaarden en de coördinatie<footnote><para>Zie HR 12 maart 2021, ECLI:NL:HR:2021:384.</para></footnote> van de naïeve reünie.</para></parablock>\n", n, k)
		}
		b.WriteString("<informaltable><tgroup><tbody><row><entry>Huur</entry><entry>€ 1.250</entry></row></tbody></tgroup></informaltable></section>\n")
	}
	fmt.Fprintf(&b, "<parablock><para>%s</para></parablock>\n", endPhrase)
	return []byte(tmpl[:i] + b.String() + tmpl[i+j+len("-->"):])
}

// TestGetDocumentLongKept: a judgement of over 1 MB is parsed once, its
// pages and metadata come from the host after that, its last page ends
// with the judgement's last phrase, and a kept page is what a fresh
// extraction gives.
func TestGetDocumentLongKept(t *testing.T) {
	body := longJudgement(t)
	h := sdktest.NewHost(t).HandleBody(content+"ECLI%3ANL%3AGHAMS%3A2020%3A3025", 200, body)
	args := func(p int) string { return fmt.Sprintf(`{"ecli":"ECLI:NL:GHAMS:2020:3025","page":%d}`, p) }
	docs := sdktest.ReadDocument(t, rechtspraak.Plugin(), h, "get_document", args)
	first, last := docs[0], docs[len(docs)-1]
	if first.Pages < 51 || first.Type != "Uitspraak" || first.Organization != "Gerechtshof Amsterdam" || first.Date != "2020-07-23" ||
		first.Extra["rechtspraak"]["case_numbers"] != "17/00394 17/00357" || len(first.Extra["rechtspraak"]["relations"].([]any)) != 2 ||
		!strings.HasPrefix(first.Text, "## Inhoudsindicatie\n\nNaheffingsaanslag OB en boete") {
		t.Fatalf("page 1 of %d = %+v", first.Pages, first)
	}
	if !strings.HasSuffix(strings.TrimSpace(last.Text), endPhrase) ||
		!strings.Contains(last.Text, "één vraag terecht heeft gesteld over de financiële ijkwaarden en de coördinatie [noot: Zie HR 12 maart 2021, ECLI:NL:HR:2021:384.] van de naïeve reünie.") {
		t.Errorf("last page %d ends %q", last.Page, last.Text[max(0, len(last.Text)-300):])
	}
	var all strings.Builder
	for _, d := range docs {
		all.WriteString(d.Text)
	}
	d, err := rechtspraak.ParseContent(body)
	if all.Len() < 1_000_000 {
		t.Errorf("the judgement's text is only %d bytes", all.Len())
	}
	if err != nil || !strings.HasSuffix(all.String(), d.Body+"\n") || !strings.Contains(all.String(), "Huur | € 1.250") {
		t.Errorf("the pages joined (%d bytes) do not end with the parsed body (%d bytes): %v", all.Len(), len(d.Body), err)
	}
	if n := h.TextsKept(); n != 1 {
		t.Errorf("the judgement was parsed %d times, want once", n)
	}
	if n := len(h.Requests()); n != 1 {
		t.Errorf("%d fetches for %d pages, want 1", n, len(docs))
	}
	if n := h.TextPagesServed(); n != len(docs)-1 {
		t.Errorf("%d pages served from the kept text, want %d", n, len(docs)-1)
	}

	// A kept page equals the same page extracted afresh.
	mid := len(docs) / 2
	h.ForgetTexts()
	var fresh sdk.Document
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "get_document", args(mid)), &fresh)
	if diff := cmp.Diff(docs[mid-1], fresh); diff != "" {
		t.Errorf("kept page %d differs from a fresh extraction (-kept +fresh):\n%s", mid, diff)
	}
	if n := h.TextsKept(); n != 2 {
		t.Errorf("after ForgetTexts: %d extractions, want 2", n)
	}
	res := sdktest.Call(t, rechtspraak.Plugin(), h, "get_document", args(len(docs)+1))
	if !res.IsError || !strings.Contains(res.Text, fmt.Sprintf("has %d page(s)", len(docs))) {
		t.Errorf("page out of range: %+v", res)
	}
}

// TestGetDocumentWithoutIdentifierFailsSoft: a judgement whose metadata
// lacks dcterms:identifier still gives its text, under the ECLI asked for,
// with a note; without a text as well it stays an error (see
// TestGetDocumentErrors).
func TestGetDocumentWithoutIdentifierFailsSoft(t *testing.T) {
	body := `<open-rechtspraak><RDF><Description><type>Uitspraak</type><creator>Hoge Raad</creator></Description></RDF>` +
		`<uitspraak><para>Eén overweging over de reünie van Zoë.</para></uitspraak></open-rechtspraak>`
	h := sdktest.NewHost(t).HandleBody(content+"ECLI%3ANL%3AHR%3A2023%3A1049", 200, []byte(body))
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "get_document", `{"ecli":"ECLI:NL:HR:2023:1049"}`), &d)
	if d.ID != "ECLI:NL:HR:2023:1049" || d.Organization != "Hoge Raad" || d.Text != "## Uitspraak\n\nEén overweging over de reünie van Zoë.\n" ||
		d.URL != "https://uitspraken.rechtspraak.nl/details?id=ECLI:NL:HR:2023:1049" {
		t.Errorf("document = %+v", d)
	}
	if notes := fmt.Sprint(d.Extra["rechtspraak"]["notes"]); !strings.Contains(notes, "lacks the decision's dcterms:identifier") {
		t.Errorf("notes = %s", notes)
	}
	// Without any rdf:Description the text still comes.
	body = `<open-rechtspraak><uitspraak><para>Alleen tekst.</para></uitspraak></open-rechtspraak>`
	h = sdktest.NewHost(t).HandleBody(content+"ECLI%3ANL%3AHR%3A2023%3A1049", 200, []byte(body))
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "get_document", `{"ecli":"ECLI:NL:HR:2023:1049"}`), &d)
	if d.ID != "ECLI:NL:HR:2023:1049" || d.Title != "ECLI:NL:HR:2023:1049" || !strings.Contains(d.Text, "Alleen tekst.") || d.Extra["rechtspraak"]["notes"] == nil {
		t.Errorf("document = %+v", d)
	}
}

func TestGetDocumentErrors(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"missing", `{}`, `argument "id"`},
		{"no prefix", `{"ecli":"NL:HR:2023:1049"}`, `argument "id"`},
		{"ljn", `{"id":"AA1000"}`, `argument "id"`},
		{"injection", `{"ecli":"ECLI:NL:HR:2023:1049&return=META"}`, `argument "id"`},
		{"both differ", `{"id":"ECLI:NL:HR:2023:1049","ecli":"ECLI:NL:HR:2023:1050"}`, `"id" and "ecli" name different documents`},
		{"obk", `{"id":"Stcrt. 2025, 18220"}`, `Stcrt. 2025, 18220 is an Officiële Bekendmakingen publication: call obk_get_document with id=stcrt-2025-18220`},
		{"tk", `{"id":"2025D05511"}`, `call tk_get_document (or opentk_get_document) with id=2025D05511`},
		{"page", `{"ecli":"ECLI:NL:HR:2023:1049","page":0.5}`, `"page"`},
		{"unknown", `{"ecli":"ECLI:NL:HR:2023:1049","format":"html"}`, "format"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			res := sdktest.Call(t, rechtspraak.Plugin(), h, "get_document", c.args)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want a tool error containing %s", res, c.want)
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
		{"404", 404, "", "no document for ECLI:NL:HR:2023:1049"},
		{"500", 500, readFile(t, td+"rechtspraak-error.html"), "HTTP 500: Runtime Error"},
		{"non-XML", 200, readFile(t, td+"rechtspraak-error.html"), "not the expected XML"},
		{"wrong root", 200, `<feed xmlns="http://www.w3.org/2005/Atom"/>`, "<feed> where <open-rechtspraak>"},
		{"no identifier", 200, `<open-rechtspraak><RDF><Description><type>Uitspraak</type></Description></RDF></open-rechtspraak>`, "lacks the document's dcterms:identifier"},
		{"truncated", 200, `<open-rechtspraak><RDF><Description><identifier>ECLI:NL:HR:2023:1049</identifier></Description></RDF><uitspraak><para>Het hof`, "not the expected XML"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t).HandleBody(content+"ECLI%3ANL%3AHR%3A2023%3A1049", c.status, []byte(c.body))
			res := sdktest.Call(t, rechtspraak.Plugin(), h, "get_document", `{"ecli":"ECLI:NL:HR:2023:1049"}`)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want tool error containing %q", res, c.want)
			}
		})
	}
}

package opentk_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// TestGetDocumentByID: id takes a document number in any case and
// spacing (the platform's spelling is upper case); nummer, its old name,
// keeps working. It catches a cited number refused or sent as written.
func TestGetDocumentByID(t *testing.T) {
	for _, args := range []string{`{"id":"2024d41173"}`, `{"id":"2024 D 41173"}`, `{"nummer":"2024D41173"}`, `{"id":"2024D41173","nummer":"2024D41173"}`} {
		h := sdktest.NewHost(t).Handle(base+"/getdoc/2024D41173", 200, td+"opentk-getdoc-2024D41173.html").
			Handle(base+"/document.html?nummer=2024D41173", 200, td+"opentk-document-2024D41173.html")
		var d sdk.Document
		sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "get_document", args), &d)
		if d.ID != "2024D41173" || !strings.Contains(strings.Join(h.URLs(), " "), base+"/getdoc/2024D41173") {
			t.Errorf("%s: id %q, requests %v", args, d.ID, h.URLs())
		}
	}
}

// TestGetDocument: the text from the rendition, the title, kind and date
// from the document's page (the rendition's title is only the number on
// the platform), and the same document on tk and obk.
func TestGetDocument(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/getdoc/2024D41173", 200, td+"opentk-getdoc-2024D41173.html").
		Handle(base+"/document.html?nummer=2024D41173", 200, td+"opentk-document-2024D41173.html")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "get_document", `{"nummer":"2024D41173"}`), &d)
	r := h.Requests()[0]
	if r.Method != "GET" || r.Service != opentk.ServicePages || r.Cost != 1 || r.CacheClass != connector.ClassDocument {
		t.Errorf("request = %+v", r)
	}
	want := sdk.Document{
		Platform: "opentk", ID: "2024D41173", Type: "Motie", Title: "Motie van het lid X over klimaatbeleid en de IJsselbrug", Date: "2024-10-31", Organization: "Tweede Kamer",
		URL: base + "/document.html?nummer=2024D41173", Format: "text", Page: 1, Pages: 1,
		Text: "Tweede Kamer der Staten-Generaal\nVergaderjaar 2024–2025\nMOTIE VAN HET LID X\nDe Kamer, gehoord de beraadslaging,\n" +
			"overwegende dat het klimaatbeleid & de ijsselbrug geëvalueerd moeten worden;\n---\nverzoekt de regering café’s te betrekken,\nen gaat over tot de orde van de dag.",
		Extra: map[string]map[string]any{"opentk": {"original_url": base + "/getraw/2024D41173", "counterparts": []any{
			map[string]any{"platform": "tk", "tool": "tk_get_document", "id": "2024D41173"},
			map[string]any{"platform": "obk", "tool": "obk_get_document", "id": "kst-36600-XII-14"},
		}}},
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("document (-want +got):\n%s", diff)
	}
}

func TestGetVerslag(t *testing.T) {
	id := "d7a7c3de-0000-4000-8000-000000000000"
	h := sdktest.NewHost(t).Handle(base+"/verslag.html?vergaderingid="+id, 200, td+"opentk-verslag.html")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "get_document", `{"nummer":"`+id+`","category":"Verslag"}`), &d)
	wantText := "Opening\nDe voorzitter opent de vergadering om 10.15 uur.\nVragenuur\nDe heer Ëlmaz (GroenLinks-PvdA): Voorzitter. De ijsselbrug…\n- Eerste punt\n- Tweede punt\nNaam | Fractie\nËlmaz | GL-PvdA"
	if d.Title != "Plenaire vergadering" || d.Date != "2024-10-10" || d.Type != "Verslag" || d.URL != base+"/verslag.html?vergaderingid="+id {
		t.Errorf("verslag = %+v", d)
	}
	if diff := cmp.Diff(wantText, d.Text); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	if strings.Contains(d.Text, "overzicht") || strings.Contains(d.Text, "bert@") {
		t.Errorf("site navigation leaked into the text: %q", d.Text)
	}
}

// getdoc is OpenTK's /getdoc rendition of a long PDF (pdftohtml output:
// one <div> per page, <p> per line, entities for some characters), more
// than 1 MB of text (2.4 MB of HTML); its last line is a phrase with
// Dutch characters.
func getdoc() string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml" lang="" xml:lang="">
<head>
<title>Begroting IJsselmeer</title>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8"/>
<style type="text/css">p {margin: 0; padding: 0;} .ft10{font-size:15px;font-family:Times;color:#000000;}</style>
</head>
<body bgcolor="#A0A0A0" vlink="blue" link="blue">
`)
	for page := 1; b.Len() < 2_400_000; page++ {
		fmt.Fprintf(&b, "<div id=\"page%d-div\" style=\"position:relative;width:892px;height:1263px;\">\n", page)
		for line := 1; line <= 40; line++ {
			fmt.Fprintf(&b, "<p style=\"position:absolute;top:%dpx;left:108px;white-space:nowrap\" class=\"ft10\">Pagina&#160;%d regel %d: de Tweede Kamer besluit over het caf&eacute; en de ijsselbrug; &#233;&#233;n zin.</p>\n", 100+line*25, page, line)
		}
		b.WriteString("</div>\n<hr/>\n")
	}
	b.WriteString(`<p class="ft10">Slotzin: het café, de financiële reünie en een naïeve coördinatie.</p>
</body>
</html>
`)
	return b.String()
}

// TestGetDocumentLarge reads a rendition of more than 1 MB of text page by
// page: it is fetched and turned into text once, the host keeps the text
// and its head, and a later page read from it equals what a fresh
// extraction gives.
func TestGetDocumentLarge(t *testing.T) {
	h := sdktest.NewHost(t).HandleBody(base+"/getdoc/2025D00001", 200, []byte(getdoc())).
		HandleBody(base+"/document.html?nummer=2025D00001", 404, []byte("Found nothing in document.html!!"))
	docs := sdktest.ReadDocument(t, opentk.Plugin(), h, "get_document", func(n int) string { return fmt.Sprintf(`{"nummer":"2025D00001","page":%d}`, n) })
	first, last := docs[0], docs[len(docs)-1]
	total := 0
	for _, d := range docs {
		total += len(d.Text)
	}
	if total < 1<<20 || len(docs) < 50 {
		t.Errorf("%d bytes in %d pages, want more than 1 MB", total, len(docs))
	}
	if !strings.HasPrefix(first.Text, "Pagina 1 regel 1: de Tweede Kamer besluit over het café en de ijsselbrug; één zin.\n") {
		t.Errorf("first page starts %.100q", first.Text)
	}
	if !strings.HasSuffix(last.Text, "\nSlotzin: het café, de financiële reünie en een naïeve coördinatie.") {
		t.Errorf("last page ends %q", last.Text[max(0, len(last.Text)-100):])
	}
	if docs[1].Text[0] == '\n' || !strings.HasPrefix(docs[1].Text, "Pagina ") && !strings.HasPrefix(docs[1].Text, "---") {
		t.Errorf("page 2 does not start on a line: %.40q", docs[1].Text)
	}
	if last.Title != "Begroting IJsselmeer" || last.Title != first.Title || !cmp.Equal(last.Extra, first.Extra) || last.URL != first.URL {
		t.Errorf("the last page's metadata differs from the first's: %+v", last)
	}
	if n := h.TextsKept(); n != 1 {
		t.Errorf("the rendition was extracted %d times, want once", n)
	}
	if n := len(h.Requests()); n != 2 {
		t.Errorf("%d requests, want two (the rendition and the document's page)", n)
	}
	for _, n := range []int{len(docs) / 2, len(docs)} {
		h.ForgetTexts()
		var fresh sdk.Document
		sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "get_document", fmt.Sprintf(`{"nummer":"2025D00001","page":%d}`, n)), &fresh)
		if diff := cmp.Diff(fresh, docs[n-1]); diff != "" {
			t.Errorf("page %d kept differs from a fresh extraction (-fresh +kept):\n%s", n, diff)
		}
	}
	res := sdktest.Call(t, opentk.Plugin(), h, "get_document", fmt.Sprintf(`{"nummer":"2025D00001","page":%d}`, len(docs)+1))
	if !res.IsError || !strings.Contains(res.Text, `"page"`) {
		t.Errorf("out of range: %+v", res)
	}
}

// TestGetVerslagKept: a plenary report's date and title come from its
// page's header, outside <main>; a later page, read from the kept text,
// still has them. A page without a date says so.
func TestGetVerslagKept(t *testing.T) {
	id := "d7a7c3de-0000-4000-8000-000000000000"
	var b strings.Builder
	b.WriteString(`<html><head><title>Plenaire vergadering</title></head><body><header><h5>Datum 2024-10-10. Laatste update: 2024-10-11 10:00</h5></header><main class="container">`)
	for i := 0; b.Len() < 300_000; i++ {
		fmt.Fprintf(&b, "<p>De heer Ëlmaz (GroenLinks-PvdA): bijdrage %d over de ijsselbrug.</p>\n", i)
	}
	b.WriteString(`</main><footer>Vragen of tips &rarr; bert@hubertnet.nl</footer></body></html>`)
	h := sdktest.NewHost(t).HandleBody(base+"/verslag.html?vergaderingid="+id, 200, []byte(b.String()))
	var p1, p2 sdk.Document
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "get_document", `{"nummer":"`+id+`","category":"Verslag"}`), &p1)
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "get_document", `{"nummer":"`+id+`","category":"Verslag","page":2}`), &p2)
	if p1.Pages < 10 || p2.Pages != p1.Pages || p2.Date != "2024-10-10" || p2.Title != "Plenaire vergadering" || p2.Extra != nil || h.TextsKept() != 1 {
		t.Errorf("page 1 %+v\npage 2 %+v", p1, p2)
	}
	if strings.Contains(p1.Text, "Datum") || strings.Contains(p2.Text, "bert@") {
		t.Errorf("the page's header or footer leaked into the text")
	}
	h = sdktest.NewHost(t).HandleBody(base+"/verslag.html?vergaderingid="+id, 200, []byte(`<html><main><p>Opening</p></main></html>`))
	var undated sdk.Document
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "get_document", `{"nummer":"`+id+`","category":"Verslag"}`), &undated)
	if notes, _ := undated.Extra["opentk"]["notes"].([]any); undated.Date != "" || len(notes) != 1 || !strings.Contains(notes[0].(string), "gives no date") {
		t.Errorf("verslag without a date = %+v", undated)
	}
}

// TestGetDocumentMislabelled: HTML behind another content type is read,
// with a note; another format behind it is an error.
func TestGetDocumentMislabelled(t *testing.T) {
	u := base + "/getdoc/2024D41173"
	h := sdktest.NewHost(t, sdktest.Route{Match: u, Response: connector.FetchResponse{Status: 200,
		Header: map[string]string{"Content-Type": "application/octet-stream"}, Body: []byte("\n<html><body><p>Motie over de ijsselbrug</p></body></html>")}}).
		Handle(base+"/document.html?nummer=2024D41173", 200, td+"opentk-document-2024D41173.html")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "get_document", `{"nummer":"2024D41173"}`), &d)
	notes, _ := d.Extra["opentk"]["notes"].([]any)
	if d.Text != "Motie over de ijsselbrug" || len(notes) != 1 || notes[0] != `OpenTK labelled this rendition "application/octet-stream", yet it is HTML and was read as such.` ||
		d.Extra["opentk"]["original_url"] != base+"/getraw/2024D41173" {
		t.Errorf("document = %+v", d)
	}
}

func TestGetDocumentErrors(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"missing", `{}`, `"id"`},
		{"path", `{"nummer":"../search"}`, `"id"`},
		{"space", `{"id":"2024 X41173"}`, `"id"`},
		{"both differ", `{"id":"2024D41173","nummer":"2024D41174"}`, `"id" and "nummer" name different documents`},
		{"obk", `{"id":"kst-36800-vii-14"}`, `kst-36800-vii-14 is an Officiële Bekendmakingen publication: call obk_get_document with id=kst-36800-VII-14`},
		{"ecli", `{"id":"ECLI:NL:HR:2024:123"}`, `call rechtspraak_get_document with id=ECLI:NL:HR:2024:123`},
		{"verslag needs uuid", `{"nummer":"2024D41173","category":"Verslag"}`, "meeting id"},
		{"no text for activities", `{"nummer":"2024A05123","category":"Activiteit"}`, "no full text for a Activiteit"},
		{"category", `{"nummer":"2024D41173","category":"Motie"}`, `"category"`},
		{"page", `{"nummer":"2024D41173","page":-1}`, `"page"`},
		{"unknown", `{"nummer":"2024D41173","format":"pdf"}`, "format"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			res := sdktest.Call(t, opentk.Plugin(), h, "get_document", c.args)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want a tool error naming %s", res, c.want)
			}
			if n := len(h.Requests()); n != 0 {
				t.Errorf("bad arguments reached the platform (%d requests)", n)
			}
		})
	}
	u := base + "/getdoc/2099D99999"
	for _, c := range []struct {
		name, body string
		status     int
		header     map[string]string
		want       string
	}{
		{"not found", "Found nothing!!", 404, nil, `OpenTK has no document "2099D99999" (HTTP 404: Found nothing!!)`},
		{"not found with 200", "Found nothing!!", 200, nil, "OpenTK has no document"},
		{"server error", "<h1>Error 500</h1><p>Unable to perform pdftotext: No such file or directory</p>", 500, nil, "HTTP 500: Error 500 Unable to perform pdftotext"},
		{"empty", "", 200, nil, "empty rendition"},
		{"pdf instead of html", "%PDF-1.7", 200, map[string]string{"content-type": "application/pdf"}, "application/pdf"},
		{"scan", "<html><body><img src='data:image/png;base64,AAAA'/></body></html>", 200, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t, sdktest.Route{Match: u, Response: connector.FetchResponse{Status: c.status, Body: []byte(c.body), Header: c.header}},
				sdktest.Route{Match: base + "/document.html?nummer=2099D99999", Response: connector.FetchResponse{Status: 404, Body: []byte("Found nothing in document.html!!")}})
			res := sdktest.Call(t, opentk.Plugin(), h, "get_document", `{"nummer":"2099D99999"}`)
			if c.want == "" {
				var d sdk.Document
				sdktest.Decode(t, res, &d)
				if !strings.Contains(d.Text, "holds no text") {
					t.Errorf("a rendition without text must say so: %q", d.Text)
				}
				return
			}
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want a tool error containing %q", res, c.want)
			}
		})
	}
}

func TestHTMLText(t *testing.T) {
	for in, want := range map[string]string{
		"":                                   "",
		"plain &amp; simple":                 "plain & simple",
		"a < b and c > d":                    "a < b and c > d",
		"<p>één</p><p>twee&nbsp;drie</p>":    "één\ntwee drie",
		"<!-- x --><b>vet</b> <i>schuin</i>": "vet schuin",
		"<ol><li>a<li>b</ol>":                "- a\n- b",
		"x<br>y<BR/>z":                       "x\ny\nz",
		"<style>p{}</style>tekst<script>1<2</script>": "tekst",
		"<p>a</p>\n\n\n<p>b</p>":                      "a\nb",
		"<p>a</p><hr/><p>b</p>":                       "a\n---\nb",
		"<pre>regel 1\n  regel 2</pre>":               "regel 1\nregel 2",
		"<!DOCTYPE html><?xml x?>tekst":               "tekst",
		"x <-> y":                                     "x <-> y",
		"<unclosed":                                   "<unclosed",
		"<a href=\"x\">link</a> tekst":                "link tekst",
	} {
		if got := opentk.HTMLText(in); got != want {
			t.Errorf("HTMLText(%q) = %q, want %q", in, got, want)
		}
	}
}

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

func TestGetDocument(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/getdoc/2024D41173", 200, td+"opentk-getdoc-2024D41173.html")
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "get_document", `{"nummer":"2024D41173"}`), &d)
	r := h.Requests()[0]
	if r.Method != "GET" || r.Service != opentk.ServicePages || r.Cost != 1 || r.CacheClass != connector.ClassDocument {
		t.Errorf("request = %+v", r)
	}
	want := sdk.Document{
		Platform: "opentk", ID: "2024D41173", Type: "Document", Title: "Motie van het lid X over klimaatbeleid", Organization: "Tweede Kamer",
		URL: base + "/document.html?nummer=2024D41173", Format: "text", Page: 1, Pages: 1,
		Text: "Tweede Kamer der Staten-Generaal\nVergaderjaar 2024–2025\nMOTIE VAN HET LID X\nDe Kamer, gehoord de beraadslaging,\n" +
			"overwegende dat het klimaatbeleid & de ijsselbrug geëvalueerd moeten worden;\n---\nverzoekt de regering café’s te betrekken,\nen gaat over tot de orde van de dag.",
		Extra: map[string]map[string]any{"opentk": {"original_url": base + "/getraw/2024D41173"}},
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

func TestGetDocumentLarge(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><head><title>Begroting IJsselmeer</title></head><body>")
	for i := 0; b.Len() < 1_100_000; i++ {
		fmt.Fprintf(&b, "<p>Regel %d: de Tweede Kamer besluit over het café en de ijsselbrug; één zin.</p>\n", i)
		if i%40 == 39 {
			b.WriteString("<hr/>\n")
		}
	}
	b.WriteString("</body></html>")
	h := sdktest.NewHost(t).HandleBody(base+"/getdoc/2025D00001", 200, []byte(b.String()))
	var first, second sdk.Document
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "get_document", `{"nummer":"2025D00001"}`), &first)
	sdktest.Decode(t, sdktest.Call(t, opentk.Plugin(), h, "get_document", `{"nummer":"2025D00001","page":2}`), &second)
	if first.Pages < 30 || len(first.Text) > sdk.TextPageSize || second.Page != 2 || !strings.HasPrefix(first.Text, "Regel 0: ") {
		t.Errorf("pages %d, first %d bytes, second page %d", first.Pages, len(first.Text), second.Page)
	}
	if !strings.HasPrefix(second.Text, "Regel ") && !strings.HasPrefix(second.Text, "---") {
		t.Errorf("page 2 does not start on a line: %q", second.Text[:40])
	}
	res := sdktest.Call(t, opentk.Plugin(), h, "get_document", fmt.Sprintf(`{"nummer":"2025D00001","page":%d}`, first.Pages+1))
	if !res.IsError || !strings.Contains(res.Text, `"page"`) {
		t.Errorf("out of range: %+v", res)
	}
}

func TestGetDocumentErrors(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"missing", `{}`, `"nummer"`},
		{"path", `{"nummer":"../search"}`, `"nummer"`},
		{"space", `{"nummer":"2024 D41173"}`, `"nummer"`},
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
			h := sdktest.NewHost(t, sdktest.Route{Match: u, Response: connector.FetchResponse{Status: c.status, Body: []byte(c.body), Header: c.header}})
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

package platformsim

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"

	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/plugins/tk"
)

// dutchChars are the characters every long text carries.
var dutchChars = []string{"é", "ë", "ï", "ü", "ó"}

// TestLongDocumentsList: a long and a huge document per platform, tk's
// Kamerstuk besides, ids in the platforms' own forms, phrases of one line
// with the Dutch characters.
func TestLongDocumentsList(t *testing.T) {
	ids := map[string]*regexp.Regexp{
		"obv":            regexp.MustCompile(`^document:[a-z]+:gemeente:[a-z_]+:[0-9]+$`),
		"ori":            regexp.MustCompile(`^[0-9]{1,20}$`),
		"tk":             guidRE,
		"opentk":         regexp.MustCompile(`^[0-9]{4}D[0-9]{5}$`),
		"obk":            regexp.MustCompile(`^[a-z]{1,6}(-[a-z]{2})?-[0-9A-Za-z][0-9A-Za-z.-]*$`),
		"rechtspraak":    rechtspraak.ECLIPattern,
		"openarchivaris": regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`),
	}
	args := map[string]string{"obv": "entity_id", "opentk": "nummer", "rechtspraak": "ecli"}
	seen := map[string]bool{}
	sizes := map[string]int{}
	for _, d := range LongDocuments() {
		sizes[d.Platform+"/"+d.Size]++
		if !ids[d.Platform].MatchString(d.ID) {
			t.Errorf("%s %s: id %q is not in the platform's form", d.Platform, d.Size, d.ID)
		}
		if want := cmpOr(args[d.Platform], "id"); d.Arg != want {
			t.Errorf("%s: Arg %q, want %q", d.ID, d.Arg, want)
		}
		for _, p := range []string{d.StartPhrase, d.EndPhrase} {
			if seen[p] {
				t.Errorf("%s: phrase %q is not unique", d.ID, p)
			}
			seen[p] = true
			if n := utf8.RuneCountInString(p); n > 90 || strings.Contains(p, "\n") {
				t.Errorf("%s: phrase %q is %d characters, more than one line", d.ID, p, n)
			}
		}
		for _, c := range dutchChars {
			if !strings.Contains(d.EndPhrase, c) {
				t.Errorf("%s: end phrase %q lacks %s", d.ID, d.EndPhrase, c)
			}
		}
		if want := map[string]int{"long": longTextBytes, "huge": hugeTextBytes}[d.Size]; d.TextBytes != want {
			t.Errorf("%s: TextBytes %d, want %d", d.ID, d.TextBytes, want)
		}
	}
	for _, p := range Platforms {
		if sizes[p+"/long"] < 1 || sizes[p+"/huge"] != 1 {
			t.Errorf("%s: %d long and %d huge documents", p, sizes[p+"/long"], sizes[p+"/huge"])
		}
	}
	if sizes["tk/long"] != 2 {
		t.Errorf("tk: %d long documents, want the PDF and the Kamerstuk", sizes["tk/long"])
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestLongTextGenerated: deterministic, no paragraph twice, the phrases
// once each at the ends, and only characters the PDF's WinAnsiEncoding has.
func TestLongTextGenerated(t *testing.T) {
	d := longDocs[0]
	a, b := d.text().plain(), d.text().plain()
	if a != b {
		t.Fatal("two generations differ")
	}
	if len(a) < d.TextBytes || len(a) > d.TextBytes+2000 {
		t.Errorf("%d bytes, want about %d", len(a), d.TextBytes)
	}
	paras := strings.Split(a, "\n\n")
	if paras[1] != d.StartPhrase || paras[len(paras)-1] != d.EndPhrase {
		t.Errorf("opens with %q, ends with %q", paras[1], paras[len(paras)-1])
	}
	bodies := map[string]int{}
	for _, p := range paras {
		if _, body, ok := strings.Cut(p, " "); ok && len(body) > 200 {
			bodies[body]++
		}
	}
	for body, n := range bodies {
		if n > 1 {
			t.Errorf("paragraph %d times: %s", n, body)
		}
	}
	if len(bodies) < 1500 {
		t.Errorf("%d paragraphs", len(bodies))
	}
	for _, c := range dutchChars {
		if n := strings.Count(a, c); n < 500 {
			t.Errorf("%s only %d times", c, n)
		}
	}
	for _, r := range a {
		if r >= 0x80 && !(r >= 0xA0 && r <= 0xFF) && !strings.ContainsRune("€‘’“”•–—", r) {
			t.Fatalf("%q has no WinAnsiEncoding code (the PDF would show '?')", r)
		}
	}
}

// longText fetches a long document as a connector does and extracts its
// text with the connector's own extraction where it is exported.
func fetchLongText(t *testing.T, root string, d LongDocument) string {
	t.Helper()
	must := func(a answer, ctype string) []byte {
		t.Helper()
		if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), ctype) {
			t.Fatalf("%s: HTTP %d %s: %.300s", d.ID, a.status, a.header.Get("Content-Type"), a.body)
		}
		return a.body
	}
	switch d.Platform {
	case "tk":
		if d.Format == "PDF" {
			b := must(get(t, root+"/tk/OData/v4/2.0/Document("+d.ID+")/resource"), "application/pdf")
			if !bytes.HasPrefix(b, []byte("%PDF-")) {
				t.Fatalf("%s: not a PDF", d.ID)
			}
			text, pages, err := tk.PDFText(b)
			if err != nil {
				t.Fatalf("%s: tk.PDFText: %v", d.ID, err)
			}
			if pages < d.TextBytes/5000 {
				t.Errorf("%s: %d PDF pages", d.ID, pages)
			}
			return text
		}
		var e struct {
			Version struct{ ExterneIdentifier string } `json:"HuidigeDocumentVersie"`
		}
		q := url.Values{"$select": {"Id,Titel"}, "$expand": {"HuidigeDocumentVersie($select=Id,ExterneIdentifier)"}}
		if err := json.Unmarshal(must(get(t, root+"/tk/OData/v4/2.0/Document("+d.ID+")?"+q.Encode()), "application/json"), &e); err != nil || e.Version.ExterneIdentifier == "" {
			t.Fatalf("%s: no ExterneIdentifier (%v)", d.ID, err)
		}
		if xu := tk.OfficialXMLURL(e.Version.ExterneIdentifier); xu != ZoekHost+"/"+e.Version.ExterneIdentifier+".xml" {
			t.Fatalf("%s: the connector would not read %q's XML (%q)", d.ID, e.Version.ExterneIdentifier, xu)
		}
		text, err := tk.PublicationText(must(get(t, root+"/zoek/"+e.Version.ExterneIdentifier+".xml"), "text/xml"))
		if err != nil {
			t.Fatalf("%s: %v", d.ID, err)
		}
		return text
	case "obk":
		x, err := obk.ExtractText(must(get(t, root+"/zoek/"+d.ID+".xml"), "text/xml"))
		if err != nil || x.Root != "officiele-publicatie" || x.Meta["DC.title"] != d.Title {
			t.Fatalf("%s: %v, root %q, meta %v", d.ID, err, x.Root, x.Meta)
		}
		return x.Text
	case "rechtspraak":
		dc, err := rechtspraak.ParseContent(must(get(t, root+"/rechtspraak/uitspraken/content?id="+url.QueryEscape(d.ID)), "application/xml"))
		if err != nil || dc.ECLI != d.ID || dc.BodyKind != "uitspraak" || dc.Court != "Rechtbank Den Haag" {
			t.Fatalf("%s: %v %+v", d.ID, err, dc)
		}
		return dc.Body
	case "opentk":
		return opentk.HTMLText(string(must(get(t, root+"/opentk/tkconv/getdoc/"+d.ID), "text/html")))
	case "ori":
		var r struct {
			Hits struct {
				Hits []struct {
					ID     string         `json:"_id"`
					Source map[string]any `json:"_source"`
				}
			}
		}
		b := must(get(t, root+"/ori/v1/elastic/ori_*/_search?q=_id%3A"+d.ID+"&size=2&_source_excludes=text_pages"), "application/json")
		if err := json.Unmarshal(b, &r); err != nil || len(r.Hits.Hits) != 1 || r.Hits.Hits[0].ID != d.ID {
			t.Fatalf("%s: %v %.300s", d.ID, err, b)
		}
		src := r.Hits.Hits[0].Source
		plain, _, _ := ori.RenderText(map[string]any{"text": src["text"]})
		if !strings.HasSuffix(plain, d.EndPhrase) {
			t.Errorf("%s: text ends %q", d.ID, plain[max(0, len(plain)-200):])
		}
		text, format, err := ori.RenderText(src)
		if err != nil || format != "markdown" {
			t.Fatalf("%s: %v %s", d.ID, err, format)
		}
		return text
	case "obv":
		var e struct{ EntityID, MarkdownText string }
		if err := json.Unmarshal(must(get(t, root+"/obv/api/entities/"+url.QueryEscape(d.ID)), "application/json"), &e); err != nil || e.EntityID != d.ID {
			t.Fatalf("%s: %v", d.ID, err)
		}
		return e.MarkdownText
	case "openarchivaris":
		var r struct{ Document struct{ ID, Text string } }
		if err := json.Unmarshal(must(get(t, root+"/openarchivaris/api/documents/"+d.ID), "application/json"), &r); err != nil || r.Document.ID != d.ID {
			t.Fatalf("%s: %v", d.ID, err)
		}
		return r.Document.Text
	}
	t.Fatalf("no fetch for %s", d.Platform)
	return ""
}

// TestLongDocumentsServed: every long document is served in its format
// by the platform's document endpoint, and its extracted text is long,
// opens with the start phrase and ends with the end phrase, each once,
// Dutch characters intact. tk's PDFs go through tk.PDFText, but the huge
// one (about 1300 pages, which tk.PDFText takes seconds over) only with
// BESLUITBRON_HUGE_PDF=1; otherwise its first and last pages are read as
// tk.PDFText reads each page. The race detector skips every huge document.
func TestLongDocumentsServed(t *testing.T) {
	_, root, _ := start(t, nil)
	for _, d := range LongDocuments() {
		t.Run(d.Platform+"/"+d.Size+"/"+d.Format, func(t *testing.T) {
			t.Parallel()
			if raceEnabled && d.Size == "huge" {
				t.Skip("the race detector makes a huge document take seconds")
			}
			if d.Platform == "tk" && d.Size == "huge" && os.Getenv("BESLUITBRON_HUGE_PDF") == "" {
				checkHugePDF(t, root, d)
				return
			}
			text := fetchLongText(t, root, d)
			min := 1 << 20
			if d.Size == "huge" {
				min = 9 << 19 // 4.5 MiB
			}
			if len(text) < min {
				t.Errorf("%s: %d bytes of text, want more than %d", d.ID, len(text), min)
			}
			if n := strings.Count(text, d.StartPhrase); n != 1 {
				t.Errorf("%s: start phrase %d times", d.ID, n)
			}
			if n := strings.Count(text, d.EndPhrase); n != 1 {
				t.Errorf("%s: end phrase %d times", d.ID, n)
			}
			if tail := strings.TrimSpace(text); !strings.HasSuffix(tail, d.EndPhrase) {
				t.Errorf("%s: the text ends %q, not with the end phrase", d.ID, tail[max(0, len(tail)-300):])
			}
			if i := strings.Index(text, d.StartPhrase); i < 0 || i > 1000 {
				t.Errorf("%s: start phrase at %d", d.ID, i)
			}
			for _, c := range dutchChars {
				if n := strings.Count(text, c); n < 300 {
					t.Errorf("%s: %s only %d times", d.ID, c, n)
				}
			}
			// The generated text has no question marks: one would be a
			// character the format could not carry.
			if strings.ContainsRune(text, '\uFFFD') || strings.Contains(text, "?") {
				t.Errorf("%s: characters lost (%d '?')", d.ID, strings.Count(text, "?"))
			}
		})
	}
}

// TestLongDocumentsListed: tk's Document set holds the long documents (by
// key and by number), obk's SRU finds its long publications by identifier
// and Rechtspraak's index lists the long judgements; a search for other
// words does not drag them in.
func TestLongDocumentsListed(t *testing.T) {
	_, root, _ := start(t, nil)
	for _, d := range LongDocuments() {
		switch d.Platform {
		case "tk":
			var nr struct {
				Value []struct{ Id, ContentType string }
			}
			u, err := tk.DocumentURL(root+"/tk/OData/v4/2.0", longDocFor("tk", d.ID).meta["DocumentNummer"])
			if err != nil {
				t.Fatal(err)
			}
			a := get(t, u)
			if a.status != 200 || json.Unmarshal(a.body, &nr) != nil || len(nr.Value) != 1 || nr.Value[0].Id != d.ID || nr.Value[0].ContentType != "application/pdf" {
				t.Errorf("%s by number: HTTP %d %.300s", d.ID, a.status, a.body)
			}
		case "obk":
			q := url.Values{"operation": {"searchRetrieve"}, "version": {"2.0"}, "query": {`c.product-area==officielepublicaties and dt.identifier==` + d.ID}}
			var r struct {
				N   int      `xml:"numberOfRecords"`
				IDs []string `xml:"records>record>recordData>gzd>originalData>meta>owmskern>identifier"`
			}
			a := get(t, root+"/obk/sru?"+q.Encode())
			if xml.Unmarshal(a.body, &r) != nil || r.N != 1 || r.IDs[0] != d.ID {
				t.Errorf("%s in SRU: %.500s", d.ID, a.body)
			}
		case "rechtspraak":
			a := get(t, root+"/rechtspraak/uitspraken/zoeken?creator="+url.QueryEscape(rechtbankDenHaagID)+"&return=DOC")
			if !bytes.Contains(a.body, []byte("<id>"+d.ID+"</id>")) {
				t.Errorf("%s not in the index: %.500s", d.ID, a.body)
			}
		}
	}
	if a := get(t, root+"/ori/v1/elastic/ori_*/_search?q=enqu%C3%AAte&size=50"); bytes.Contains(a.body, []byte("990110")) {
		t.Error("an ORI search found a long document")
	}
	if a := get(t, root+"/obv/api/search?query=raadsenqu%C3%AAte"); bytes.Contains(a.body, []byte("990101")) {
		t.Error("an obv search found a long document")
	}
}

// TestRefuseExpand: with tk's RefuseExpand set, requests that expand
// HuidigeDocumentVersie get the platform's 400 for an unknown property;
// others, the files included, are answered as before. Set from Go, from
// the admin endpoint and from the flag form; refused for other platforms.
func TestRefuseExpand(t *testing.T) {
	sim, root, _ := start(t, nil)
	base := root + "/tk/OData/v4/2.0/"
	id := "2b4c6d8e-0a1b-4c2d-9e3f-4a5b6c7d8e01"
	expand := url.Values{"$expand": {"HuidigeDocumentVersie($select=Id,ExterneIdentifier)"}}.Encode()
	entity := base + "Document(" + id + ")?$select=Id,Titel&" + expand
	byNumber := base + "Document?" + url.Values{"$filter": {"DocumentNummer eq '2024D41190'"}, "$expand": {"HuidigeDocumentVersie"}}.Encode()
	zaak := base + "Zaak?$top=1&$expand=HuidigeDocumentVersie"
	plain := base + "Document(" + id + ")?$select=Id,Titel"
	resource := base + "Document(" + id + ")/resource"
	check := func(how string) {
		t.Helper()
		for u, set := range map[string]string{entity: "Document", byNumber: "Document", zaak: "Zaak"} {
			a := get(t, u)
			want := `{"error":{"code":"","message":"The query specified in the URI is not valid. Could not find a property named 'HuidigeDocumentVersie' on type 'TK.DA.GGM.OData.` + set + `'."}}`
			if a.status != 400 || string(a.body) != want || !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
				t.Errorf("%s: %s: HTTP %d %s", how, u, a.status, a.body)
			}
		}
		if a := get(t, plain); a.status != 200 || !bytes.Contains(a.body, []byte(id)) {
			t.Errorf("%s: without $expand: HTTP %d %s", how, a.status, a.body)
		}
		if a := get(t, resource); a.status != 200 || !bytes.HasPrefix(a.body, []byte("%PDF-")) {
			t.Errorf("%s: the file: HTTP %d", how, a.status)
		}
		if a := get(t, base+"Document("+longDocs[4].ID+")/resource"); a.status != 200 || !bytes.HasPrefix(a.body, []byte("%PDF-")) {
			t.Errorf("%s: the long file: HTTP %d", how, a.status)
		}
	}
	if a := get(t, entity); a.status != 200 || !bytes.Contains(a.body, []byte("HuidigeDocumentVersie")) {
		t.Fatalf("healthy: HTTP %d %s", a.status, a.body)
	}

	if err := sim.SetFault("tk", Fault{RefuseExpand: true}); err != nil {
		t.Fatal(err)
	}
	check("Go")
	if n := sim.Stats().Platforms["tk"].Injected["refuse_expand"]; n != 3 {
		t.Errorf("%d refusals counted, want 3", n)
	}
	sim.ClearFaults()
	if a := get(t, entity); a.status != 200 {
		t.Fatalf("cleared: HTTP %d %s", a.status, a.body)
	}

	req, _ := http.NewRequest("PUT", root+"/_sim/faults/tk", strings.NewReader(`{"refuse_expand":true}`))
	if a := do(t, req); a.status != 200 || !bytes.Contains(a.body, []byte(`"tk":{"refuse_expand":true}`)) {
		t.Fatalf("admin: HTTP %d %s", a.status, a.body)
	}
	check("admin")
	req, _ = http.NewRequest("PUT", root+"/_sim/faults/obv", strings.NewReader(`{"refuse_expand":true}`))
	if a := do(t, req); a.status != 400 || !bytes.Contains(a.body, []byte("refuse_expand is tk's")) {
		t.Errorf("admin for obv: HTTP %d %s", a.status, a.body)
	}
	sim.ClearFaults()

	p, f, err := ParseFault("tk:refuse_expand")
	if err != nil || p != "tk" || f != (Fault{RefuseExpand: true}) {
		t.Fatalf("ParseFault: %q %+v %v", p, f, err)
	}
	if err := sim.SetFault(p, f); err != nil {
		t.Fatal(err)
	}
	check("flag")
	if _, _, err := ParseFault("ori:refuse_expand"); err == nil || !strings.Contains(err.Error(), "refuse_expand is tk's") {
		t.Errorf("ParseFault for ori: %v", err)
	}
	if err := sim.SetFault("obk", Fault{RefuseExpand: true}); err == nil {
		t.Error("SetFault took refuse_expand for obk")
	}
	var back Fault
	if b, _ := json.Marshal(Fault{RefuseExpand: true, Latency: 5}); json.Unmarshal(b, &back) != nil || !back.RefuseExpand {
		t.Errorf("JSON round trip: %s → %+v", b, back)
	}
}

// pdfPageText is page n's text as tk.PDFText reads each page: with the
// page's own fonts, by GetPlainText.
func pdfPageText(t *testing.T, r *pdf.Reader, n int) string {
	t.Helper()
	page := r.Page(n)
	fonts := map[string]*pdf.Font{}
	for _, name := range page.Fonts() {
		f := page.Font(name)
		fonts[name] = &f
	}
	text, err := page.GetPlainText(fonts)
	if err != nil {
		t.Fatalf("page %d: %v", n, err)
	}
	return strings.TrimSpace(text)
}

// checkHugePDF reads the huge PDF's first and last pages only: its source
// text's size, the phrases and the characters on those pages.
func checkHugePDF(t *testing.T, root string, d LongDocument) {
	a := get(t, root+"/tk/OData/v4/2.0/Document("+d.ID+")/resource")
	if a.status != 200 || a.header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(a.body, []byte("%PDF-")) {
		t.Fatalf("%s: HTTP %d %s", d.ID, a.status, a.header.Get("Content-Type"))
	}
	if n := len(longDocFor("tk", d.ID).text().plain()); n < 9<<19 {
		t.Errorf("%s: %d bytes of text", d.ID, n)
	}
	r, err := pdf.NewReader(bytes.NewReader(a.body), int64(len(a.body)))
	if err != nil {
		t.Fatal(err)
	}
	n := r.NumPage()
	if n < d.TextBytes/5000 {
		t.Errorf("%s: %d pages", d.ID, n)
	}
	if first := pdfPageText(t, r, 1); !strings.Contains(first, d.StartPhrase) {
		t.Errorf("%s: page 1: %s", d.ID, first)
	}
	if last := pdfPageText(t, r, n); !strings.HasSuffix(last, d.EndPhrase) || strings.Count(last, d.EndPhrase) != 1 {
		t.Errorf("%s: page %d: %s", d.ID, n, last)
	}
}

// TestLongDocumentsShared: two Sims serve the same bytes, generated once
// for the process, to requests that arrive together.
func TestLongDocumentsShared(t *testing.T) {
	_, root1, _ := start(t, nil)
	_, root2, _ := start(t, nil)
	d := longDocs[0]
	bodies := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			root := []string{root1, root2}[i%2]
			resp, err := http.Get(root + "/obv/api/entities/" + url.QueryEscape(d.ID))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			bodies[i], _ = io.ReadAll(resp.Body)
		}()
	}
	wg.Wait()
	for i, b := range bodies {
		if len(b) < d.TextBytes || !bytes.Equal(b, bodies[0]) {
			t.Fatalf("answer %d: %d bytes, not the same as the first (%d)", i, len(b), len(bodies[0]))
		}
	}
	if !bytes.Equal(d.bytes(), bodies[0]) {
		t.Error("served bytes differ from the generated ones")
	}
}

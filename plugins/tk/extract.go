package tk

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode"

	"github.com/ledongthuc/pdf"

	"github.com/besluitbron/besluitbron/sdk"
)

// Elements of the official-publication XML (op-xsd) that hold a line of
// their own. Everything else is inline text.
var blockElements = map[string]bool{
	"al": true, "titel": true, "subtitel": true, "tussenkop": true, "kop": true, "tekstregel": true,
	"stuknr": true, "datumtekst": true, "li": true, "row": true, "ondertekening": true, "title": true,
	"dossiernummer": true, "aanhef": true, "slotformulering": true, "spreker": true, "vraag": true,
	"antwoord": true, "omschr": true, "regel": true, "p": true, "alinea": true, "considerans.al": true,
	"wie": true, "table": true, "lijst": true, "divisie": true, "tekst": true, "bijlage": true,
}

// Inline elements after which a space is due, as the printed form has one.
var spacedElements = map[string]bool{"voornaam": true, "functie": true, "naam": true, "achternaam": true}

// pubText turns official-publication XML into plain text, one block per
// line, footnotes gathered at the end.
type pubText struct {
	out         strings.Builder
	line        strings.Builder
	prefix      strings.Builder // a list item's or heading's number, put before its text
	pending     string
	inPrefix    int
	skip        int // inside <metadata>
	cell, cells int // inside a table cell; cells of the current row
	note        int // inside a <noot>
	noteNr      strings.Builder
	inNoteNr    int
	noteText    strings.Builder
	notes       []string
}

// PublicationText extracts the text of an officielebekendmakingen.nl
// publication (root <officiele-publicatie>). It refuses other XML, so that
// an error page served with status 200 is never taken for a document.
func PublicationText(b []byte) (string, error) {
	return xmlText(b, "officiele-publicatie")
}

// xmlText extracts the text of XML, refusing another root than root
// unless root is "".
func xmlText(b []byte, root string) (string, error) {
	b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	d.Entity = xml.HTMLEntity
	var p pubText
	seen := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("the XML is malformed: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !seen {
				seen = true
				if root != "" && t.Name.Local != root {
					return "", fmt.Errorf("the XML is not an official publication (root <%s>)", t.Name.Local)
				}
			}
			p.start(t.Name.Local)
		case xml.EndElement:
			p.end(t.Name.Local)
		case xml.CharData:
			p.text(string(t))
		}
	}
	p.flush()
	// Every line written is collapsed and ends in a line break, so the
	// text needs no trimming (and no copy of a multi-MB string).
	if p.out.Len() == 0 {
		return "", errors.New("the XML holds no text")
	}
	if len(p.notes) > 0 {
		p.out.WriteString("\nNoten:\n")
		for _, n := range p.notes {
			p.out.WriteString(n)
			p.out.WriteByte('\n')
		}
	}
	return p.out.String(), nil
}

func (p *pubText) start(name string) {
	switch {
	case p.skip > 0 || name == "metadata":
		p.skip++
		return
	case name == "noot":
		p.note++
		if p.note == 1 {
			p.noteNr.Reset()
			p.noteText.Reset()
		}
		return
	case name == "noot.nr":
		p.inNoteNr++
		return
	case p.note > 0:
		if blockElements[name] {
			p.noteText.WriteByte(' ')
		}
		return
	case name == "nr" || name == "li.nr":
		p.inPrefix++
		return
	case name == "br":
		p.flush()
		return
	case name == "row":
		p.flush()
		p.cells = 0
		return
	case name == "entry":
		if p.cell == 0 && p.cells > 0 {
			p.line.WriteString(" | ")
		}
		p.cell++
		p.cells++
		return
	}
	if blockElements[name] {
		if p.cell > 0 {
			p.line.WriteByte(' ')
		} else {
			p.flush()
		}
	}
}

func (p *pubText) end(name string) {
	switch {
	case p.skip > 0:
		p.skip--
		return
	case name == "noot":
		p.note--
		if p.note == 0 {
			nr := collapse(p.noteNr.String())
			p.line.WriteString("[" + nr + "]")
			p.notes = append(p.notes, "["+nr+"] "+collapse(p.noteText.String()))
		}
		return
	case name == "noot.nr":
		p.inNoteNr--
		return
	case p.note > 0:
		return
	case name == "nr" || name == "li.nr":
		p.inPrefix--
		if p.inPrefix == 0 {
			p.pending = collapse(p.prefix.String())
			p.prefix.Reset()
		}
		return
	case name == "entry":
		p.cell--
		return
	case name == "row":
		p.flush()
		return
	}
	if spacedElements[name] {
		p.line.WriteByte(' ')
	}
	if blockElements[name] && p.cell == 0 {
		p.flush()
	}
}

func (p *pubText) text(s string) {
	switch {
	case p.skip > 0:
	case p.inNoteNr > 0:
		p.noteNr.WriteString(s)
	case p.note > 0:
		p.noteText.WriteString(s)
	case p.inPrefix > 0:
		p.prefix.WriteString(s)
	default:
		p.line.WriteString(s)
	}
}

// flush ends the current line, putting a pending number before it.
func (p *pubText) flush() {
	s := collapse(p.line.String())
	p.line.Reset()
	if s == "" {
		return
	}
	if p.pending != "" {
		s = p.pending + " " + s
		p.pending = ""
	}
	p.out.WriteString(s)
	p.out.WriteByte('\n')
}

// collapse folds runs of white space (XML indentation, CR LF) to one space.
func collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

var blankLines = regexp.MustCompile(`\n[ \t]*(\n[ \t]*)+\n`)

// PDFText extracts the text layer of a PDF, page by page, each page headed
// "[page n]" so that a quote can be cited by page. The PDF library panics
// on some malformed files; that becomes an error. A PDF without any text
// (a scan) is an error too, saying so.
func PDFText(b []byte) (text string, pages int, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, pages, err = "", 0, fmt.Errorf("the PDF could not be read: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return "", 0, fmt.Errorf("the PDF could not be read: %v", err)
	}
	n := r.NumPage()
	if n <= 0 {
		return "", 0, errors.New("the PDF could not be read: it declares no pages")
	}
	var out strings.Builder
	hasText := false
	var failed []int
	all := pdfPages(r, n)
	for i := 1; i <= n; i++ {
		// Let the garbage collector finish a cycle begun on an earlier
		// page: in WebAssembly it runs only when this goroutine yields,
		// and a 1,300-page PDF makes garbage enough to fill the
		// instance's memory otherwise.
		sdk.Yield()
		var page pdf.Page
		if i <= len(all) {
			page = all[i-1]
		}
		if page.V.IsNull() {
			failed = append(failed, i)
			continue
		}
		// Fonts per page: pages may reuse a font name for another font.
		fonts := map[string]*pdf.Font{}
		for _, name := range page.Fonts() {
			f := page.Font(name)
			fonts[name] = &f
		}
		t, err := page.GetPlainText(fonts)
		if err != nil {
			failed = append(failed, i)
			continue
		}
		t = cleanText(t)
		if t != "" {
			hasText = true
		}
		fmt.Fprintf(&out, "[page %d]\n%s\n\n", i, t)
	}
	if !hasText {
		if len(failed) == n {
			return "", 0, fmt.Errorf("the PDF could not be read: none of its %d pages could be parsed", n)
		}
		return "", 0, fmt.Errorf("the PDF has no text layer (%d pages, probably scanned images)", n)
	}
	// Each page ends in a blank line: keep one line break, without
	// copying the text.
	text = out.String()
	text = text[:len(strings.TrimRight(text, "\n"))+1]
	if len(failed) > 0 {
		text += fmt.Sprintf("\n(Pages %v of this PDF could not be read.)\n", failed)
	}
	return text, n, nil
}

// pdfPages lists the document's pages in order, walking the page tree
// once. The library's Reader.Page(i) walks it from the root for every i,
// resolving every kid before the i-th again: quadratic in the page count,
// which for a Handelingen PDF of 1,300 pages costs seconds and much
// garbage. A tree that is malformed (a cycle, more pages than it declares)
// stops the walk at the declared count; pages it does not reach are read
// as unreadable.
func pdfPages(r *pdf.Reader, declared int) []pdf.Page {
	pages := make([]pdf.Page, 0, declared)
	var walk func(v pdf.Value, depth int)
	walk = func(v pdf.Value, depth int) {
		if len(pages) >= declared || depth > 64 {
			return
		}
		switch v.Key("Type").Name() {
		case "Page":
			pages = append(pages, pdf.Page{V: v})
		case "Pages":
			kids := v.Key("Kids")
			for i := 0; i < kids.Len() && len(pages) < declared; i++ {
				walk(kids.Index(i), depth+1)
			}
		}
	}
	walk(r.Trailer().Key("Root").Key("Pages"), 0)
	return pages
}

// cleanText makes extracted PDF text safe to hand on: valid UTF-8, no
// control characters but newlines and tabs, no runs of blank lines.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if r == '\r' {
			return '\n'
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	s = blankLines.ReplaceAllString(s, "\n\n")
	return strings.TrimSpace(s)
}

package pdfwrite

import (
	"bytes"
	"fmt"
	"strings"
)

// Pages renders a PDF 1.4 with one page per entry of pages: each line in
// Helvetica with WinAnsiEncoding, and an exact cross-reference table (PDF
// readers seek by it). A page with no lines draws a stroke instead of
// text, like a scanned page without a text layer. No pages at all make
// one such page.
func Pages(pages [][]string) []byte {
	if len(pages) == 0 {
		pages = [][]string{nil}
	}
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n%\xE2\xE3\xCF\xD3\n")
	var kids []string
	for i := range pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", 4+2*i))
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, lines := range pages {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		var s strings.Builder
		if len(lines) == 0 {
			s.WriteString("0 0 m 100 100 l S")
		} else {
			s.WriteString("BT /F1 11 Tf 14 TL 60 780 Td")
			for _, l := range lines {
				fmt.Fprintf(&s, " (%s) Tj T*", String(l))
			}
			s.WriteString(" ET")
		}
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", s.Len(), s.String()))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// winAnsi maps the characters outside Latin-1 that Dutch texts use to
// their WinAnsiEncoding codes.
var winAnsi = map[rune]byte{'€': 0x80, '‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97}

// String escapes a line for a PDF literal string in WinAnsiEncoding; a
// character the encoding lacks becomes '?'.
func String(s string) string {
	var b strings.Builder
	for _, r := range s {
		var c byte
		switch {
		case r < 0x80:
			c = byte(r)
		case r >= 0xA0 && r <= 0xFF:
			c = byte(r)
		default:
			var ok bool
			if c, ok = winAnsi[r]; !ok {
				c = '?'
			}
		}
		switch {
		case c == '(' || c == ')' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x80:
			fmt.Fprintf(&b, "\\%03o", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

package tk_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/pdfwrite"
	"github.com/besluitbron/besluitbron/plugins/tk"
)

func mustRead(t testing.TB, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// makePDF writes a small valid PDF, one page per entry of pages, each a
// list of text lines; a page given as nil has no text layer, like a scan.
func makePDF(pages ...[]string) []byte { return pdfwrite.Pages(pages) }

func TestPDFText(t *testing.T) {
	b := makePDF(
		[]string{"Position paper VNG", "Een financiële regeling voor één ijsbaan (café)"},
		[]string{"Tweede pagina: overleg met de Kamer"},
	)
	text, pages, err := tk.PDFText(b)
	if err != nil {
		t.Fatal(err)
	}
	if pages != 2 {
		t.Errorf("pages = %d, want 2", pages)
	}
	for _, want := range []string{"[page 1]", "Position paper VNG", "Een financiële regeling voor één ijsbaan (café)", "[page 2]", "Tweede pagina: overleg met de Kamer"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Index(text, "[page 2]") < strings.Index(text, "ijsbaan") {
		t.Errorf("pages out of order:\n%s", text)
	}
}

func TestPDFTextFailures(t *testing.T) {
	valid := makePDF([]string{"tekst"})
	for _, c := range []struct {
		name string
		pdf  []byte
		want string
	}{
		{"not a PDF", []byte("<html>Not found</html>"), "the PDF could not be read: not a PDF file"},
		{"truncated", valid[:len(valid)/2], "the PDF could not be read"},
		{"bad xref offset", bytes.Replace(valid, []byte("startxref\n"), []byte("startxref\n9"), 1), "the PDF could not be read"},
		{"garbage after header", append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte{0xff, 0x00, '('}, 300)...), "the PDF could not be read"},
		{"scanned", makePDF(nil, nil), "no text layer (2 pages, probably scanned"},
		{"empty", nil, "the PDF could not be read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text, _, err := tk.PDFText(c.pdf)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v (text %q), want %q", err, text, c.want)
			}
		})
	}
}

func TestPublicationText(t *testing.T) {
	text, err := tk.PublicationText(mustRead(t, td+"obk-kst-33328-AI.xml"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text, "\n")
	for _, want := range []string{
		"Tweede Kamer der Staten-Generaal",
		"33 328",
		"AI[1]",
		"VERSLAG VAN EEN SCHRIFTELIJK OVERLEG",
		"Vastgesteld 28 december 2023",
		"I. Vragen en opmerkingen vanuit de fracties",
		"De leden van de fractie hebben kennisgenomen van de brief. Zij hebben nog enkele vragen over de actieve openbaarmaking.",
		"1. Hoe staat het met de financiële middelen?",
		"Jaar | Budget",
		"2024 | € 1,2 mln",
		"[2] Samenstelling: zie Kamerstuk 33 328.",
	} {
		if !contains(lines, want) {
			t.Errorf("no line %q in:\n%s", want, text)
		}
	}
	if !strings.Contains(text, "De vaste commissie voor Binnenlandse Zaken[2] heeft tijdens") || !strings.Contains(text, "(hierna: Woo).[3]") {
		t.Errorf("footnote markers misplaced:\n%s", text)
	}
	if strings.Contains(text, "metadata.xml") {
		t.Errorf("metadata leaked into the text")
	}

	real, err := tk.PublicationText(mustRead(t, td+"obk-stcrt-2015-47076.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(real, "Ter inzage: omgevingsvergunning\n") || !strings.Contains(real, "zes weken ter inzage in het gemeentehuis van Bergen.") {
		t.Errorf("real publication:\n%s", real)
	}
}

func TestPublicationTextRefuses(t *testing.T) {
	for _, c := range []struct{ name, xml, want string }{
		{"other root", `<?xml version="1.0"?><html><body>Niet gevonden</body></html>`, "not an official publication (root <html>)"},
		{"malformed", `<officiele-publicatie><al>open`, "malformed"},
		{"empty", `<officiele-publicatie><metadata><meta name="x"/></metadata></officiele-publicatie>`, "holds no text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := tk.PublicationText([]byte(c.xml)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
	// A byte-order mark is no reason to refuse.
	if _, err := tk.PublicationText([]byte("\xEF\xBB\xBF<officiele-publicatie><al>x</al></officiele-publicatie>")); err != nil {
		t.Errorf("BOM: %v", err)
	}
}

func contains(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}

package pdfwrite

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for in, want := range map[string]string{
		"plain":      "plain",
		"a (b) c\\d": `a \(b\) c\\d`,
		"één":        `\351\351n`,
		"€ 5 – ‘x’":  `\200 5 \226 \221x\222`,
		"中":          "?",
		"tab\there":  `tab\011here`,
	} {
		if got := String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPagesCrossReference: every offset in the xref table points at the
// object it names, and startxref at the table; readers seek by both.
func TestPagesCrossReference(t *testing.T) {
	b := Pages([][]string{{"een"}, nil, {"twee", "drie"}})
	if !bytes.Contains(b, []byte("/Count 3")) || !bytes.Contains(b, []byte("0 0 m 100 100 l S")) {
		t.Fatalf("three pages, the second without text, expected:\n%s", b)
	}
	xref := bytes.LastIndex(b, []byte("\nxref\n")) + 1
	var start int
	tail := string(b[bytes.LastIndex(b, []byte("startxref\n"))+len("startxref\n"):])
	if _, err := fmt.Sscan(tail, &start); err != nil || start != xref {
		t.Fatalf("startxref %d (%v), table at %d", start, err, xref)
	}
	lines := strings.Split(string(b[xref:]), "\n")
	checked := 0
	for i, l := range lines[3:] {
		if !strings.HasSuffix(l, " n ") {
			break
		}
		off, err := strconv.Atoi(l[:10])
		if err != nil {
			t.Fatalf("xref entry %q", l)
		}
		checked++
		if want := strings.TrimSpace(strings.Split(string(b[off:]), "\n")[0]); want != strconv.Itoa(i+1)+" 0 obj" {
			t.Fatalf("xref entry %d points at %q", i+1, want)
		}
	}
	if checked != 9 { // catalog, page tree, font, and a page and its contents for each of 3
		t.Fatalf("%d xref entries, want 9", checked)
	}
	if len(Pages(nil)) == 0 || !bytes.Contains(Pages(nil), []byte("/Count 1")) {
		t.Fatal("no pages should make one page")
	}
}

package sdk

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"Coördinatie":               "coordinatie",
		"één café":                  "een cafe",
		"Financiën, reünie, naïef":  "financien, reunie, naief",
		"ĲSSEL en Ĳssel en IJssel":  "ijssel en ijssel en ijssel",
		"Straße, Æsop, œuvre":       "strasse, aesop, oeuvre",
		"e\u0301e\u0308n":           "een", // decomposed
		"auto’s “quote” „nl”":       `auto's "quote" "nl"`,
		"2012–2015 — zie ‒ −3":      "2012-2015 - zie - -3",
		"ﬁnanciële ﬂexibiliteit":    "financiele flexibiliteit",
		"over-\u00adheid\u200b":     "over-heid",
		"regel\n\n  twee\u00a0drie": "regel twee drie",
		"Zürich, Súdwest-Fryslân":   "zurich, sudwest-fryslan",
		"Łódź, ČESKÁ, İstanbul":     "lodz, ceska, istanbul",
		"Ωμέγα":                     "ωμέγα",
		"\u212b":                    "a", // the ångström sign
		"a\xffb":                    "a\ufffdb",
		"wacht…":                    "wacht...",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every character of Latin-1 and Latin Extended-A that is a letter
// folds to lower-case ASCII.
func TestFoldLatinToASCII(t *testing.T) {
	for r := rune(0xC0); r < 0x180; r++ {
		if r == 0xD7 || r == 0xF7 {
			continue // × and ÷
		}
		got := Fold(string(r))
		for _, c := range []byte(got) {
			if c < 'a' || c > 'z' {
				t.Errorf("Fold(%q) = %q", r, got)
				break
			}
		}
	}
}

// The folded text maps back: a match of a folded term at p starts at
// orig(p) in the original, and the original from there folds to the term.
func TestFoldedMapsBack(t *testing.T) {
	text := "De  Coördinatie\nvan één\u00a0café — ĳs en Straße: e\u0301n ﬁnanciën."
	var f folded
	f.add(text, 0)
	for _, term := range []string{"coordinatie van een cafe", "ijs en strasse", "en financien", "cafe - ijs", "s", "ss", "fi"} {
		p := strings.Index(string(f.b), term)
		if p < 0 {
			t.Fatalf("%q not in %q", term, f.b)
		}
		s, e := f.orig(p), f.orig(p+len(term))
		for s > 0 && !utf8.RuneStart(text[s]) {
			s--
		}
		for e < len(text) && !utf8.RuneStart(text[e]) {
			e++
		}
		if got := Fold(text[s:e]); !strings.Contains(got, term) {
			t.Errorf("%q: original %q folds to %q", term, text[s:e], got)
		}
	}
	// In two parts, as a page and the start of the next.
	var g folded
	g.add(text[:20], 0)
	g.add(text[20:], 20)
	if string(g.b) != string(f.b) {
		t.Fatalf("folded in two parts: %q, in one: %q", g.b, f.b)
	}
	for p := range f.b {
		if f.orig(p) != g.orig(p) {
			t.Fatalf("orig(%d): %d in one part, %d in two", p, f.orig(p), g.orig(p))
		}
	}
}

// FuzzFind: folding is idempotent, a find argument parses into folded
// terms or an error, and a find in a text of one page counts exactly the
// folded text's occurrences of each term, lists only pages that hold
// them, and stays within its budget.
func FuzzFind(f *testing.F) {
	f.Add(`"reële begin" café`, "Aanvang: een reëel begin, geïnformeerd vóór de reünie in één café.")
	f.Add("ĳssel", "De IJssel en de Ĳssel.\n[page 2]\nijssel")
	f.Add(`"`, "")
	f.Add("a a a a a a a a a b", "aaaa")
	f.Add("ss", "Straße\u00ad\xc3\xa9")
	f.Fuzz(func(t *testing.T, find, text string) {
		once := Fold(text)
		if twice := Fold(once); twice != once {
			t.Fatalf("Fold not idempotent: %q → %q → %q", text, once, twice)
		}
		if ref := foldRef(text); once != ref {
			t.Fatalf("Fold(%q) = %q, a character at a time %q", text, once, ref)
		}
		if len(text) <= 300 {
			checkOrig(t, text)
		}
		terms, err := FindTerms(find)
		if err != nil {
			if !strings.HasPrefix(err.Error(), `argument "find"`) {
				t.Fatalf("error %q does not name the argument", err)
			}
			return
		}
		for _, term := range terms {
			if term == "" || term != strings.TrimSpace(term) || Fold(term) != term || strings.Contains(term, `"`) {
				t.Fatalf("find %q: term %q", find, term)
			}
		}
		if len(text) > TextPageSize {
			return
		}
		fd := newFinder(terms, PageMarks{Prefix: "[page ", File: "https://x/f.pdf"}, 1)
		fd.page(1, text, "")
		found := fd.answer(find)
		all := true
		for i, term := range terms {
			want := strings.Count(once, term)
			if found.Terms[i].Matches != want {
				t.Fatalf("find %q in %q: term %q counted %d, the folded text holds it %d times", find, text, term, found.Terms[i].Matches, want)
			}
			all = all && want > 0
		}
		if all != (found.PagesMatched == 1) || len(found.Pages) != found.PagesMatched {
			t.Fatalf("find %q in %q: pages %+v", find, text, found)
		}
		if b, _ := json.Marshal(found); len(b) > findBudget {
			t.Fatalf("answer of %d bytes", len(b))
		}
		// The same text in small pages: matches across page boundaries,
		// snippets at the edges of pages.
		pages := SplitPages(text, 8+len(find)%48)
		fd = newFinder(terms, PageMarks{Prefix: "[page "}, len(pages))
		for i, p := range pages {
			next := ""
			if i+1 < len(pages) {
				next = pages[i+1]
			}
			fd.page(i+1, p, next)
		}
		found = fd.answer(find)
		last := 0
		for _, p := range found.Pages {
			if p.Page <= last || p.Page > len(pages) || p.Matches < len(terms) {
				t.Fatalf("find %q in %d pages: page %+v", find, len(pages), p)
			}
			last = p.Page
		}
	})
}

// foldRef is Fold a character at a time, without the fast path: what
// Fold must give.
func foldRef(s string) string {
	var b []byte
	space := false
	for _, r := range s {
		switch {
		case r >= 0x300 && r < 0x370, r == 0xAD, r == 0x200B, r == 0x200C, r == 0x200D, r == 0x2060, r == 0xFEFF:
			continue
		case unicode.IsSpace(r):
			if !space {
				b = append(b, ' ')
			}
			space = true
			continue
		}
		b, space = foldLetter(b, r), false
	}
	return string(b)
}

// checkOrig: a position of the folded text maps to the last position of
// the original whose prefix folds to that much (s valid UTF-8).
func checkOrig(t *testing.T, s string) {
	if !utf8.ValidString(s) {
		return
	}
	var f folded
	f.add(s, 0)
	last := map[int]int{} // folded length → last original offset
	for o := 0; o <= len(s); o++ {
		if o == len(s) || utf8.RuneStart(s[o]) {
			last[len(foldRef(s[:o]))] = o
		}
	}
	for p, o := range last {
		if got := f.orig(p); got != o {
			t.Fatalf("%q: folded position %d maps to %d, want %d", s, p, got, o)
		}
	}
}

func TestFoldFastPath(t *testing.T) {
	for _, s := range []string{
		"Paragraaf 12.3 Van Het Verslag", "AB  CD", "ABCDEFG HIJKLMN", "abcdefg\nHIJKLMN", " ABCDEFGH ", "ABCDEFGH  IJ",
		"@[`{ AZaz~\x7f", strings.Repeat("Één Reünie ", 5), "a b c d e f g h i j k l", "12345678\t12345678",
	} {
		if got, want := Fold(s), foldRef(s); got != want {
			t.Errorf("Fold(%q) = %q, want %q", s, got, want)
		}
		checkOrig(t, s)
	}
}

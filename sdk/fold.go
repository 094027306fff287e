package sdk

import (
	"encoding/binary"
	"runtime"
	"slices"
	"sort"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Folding is how a find compares a document's text with the words asked
// for, as a Dutch reader does: "coordinatie" finds "coördinatie", "een"
// finds "één", "ijssel" finds "IJssel" and "Ĳssel", "financien" finds
// "Financiën". It is a fixed table, not Unicode normalisation (the sdk
// depends on the standard library alone, and a connector's WebAssembly
// build would carry the tables of golang.org/x/text):
//
//   - letters are lower-cased, and the letters of Latin-1 and Latin
//     Extended-A lose their diacritics (é, ë, è, ê → e; ç → c; ñ → n);
//     combining diacritics (U+0300–U+036F, text in decomposed form) are
//     dropped, so "e\u0301" folds as "é" does;
//   - ligatures are written out: ĳ → ij (the Dutch digraph as one
//     character, common in older and scanned texts), æ → ae, œ → oe,
//     ß → ss, and the typographic ligatures a PDF's text is full of
//     (ﬁ → fi, ﬂ → fl, ﬀ → ff, ﬃ → ffi, ﬄ → ffl);
//   - typographic quotes, apostrophes and dashes become their plain forms
//     (’ ‘ ‚ → ', “ ” „ « » → ", – — ‒ − → -; … → ...), so "auto’s"
//     finds "auto's";
//   - every run of white space (line breaks, tabs, no-break and thin
//     spaces) is one space, so a phrase finds its words across a line
//     break; soft hyphens and zero-width characters are dropped.
//
// Other letters (Greek, Cyrillic, …) are only lower-cased.

// Fold returns s folded for comparison (see above).
func Fold(s string) string {
	var f folded
	f.add(s, 0)
	return string(f.b)
}

// folded is a text folded for search, with what maps a position in it
// back to the original: the folded text keeps the original's byte
// offsets except where a character folds to another number of bytes (é
// to e, a run of spaces to one), and at each such place the new
// difference between the two is recorded. A match found in b at p starts
// in the original at orig(p).
type folded struct {
	b []byte
	// at[i] is a position in b from which the original is delta[i]
	// bytes further on; at is ascending and at[0] is 0.
	at, delta []int
	// space: the last byte of b is a space written for white space, so
	// more white space adds nothing.
	space bool
}

// reset empties f, keeping its memory.
func (f *folded) reset() {
	f.b, f.at, f.delta, f.space = f.b[:0], f.at[:0], f.delta[:0], false
}

// orig is the original offset of position p of the folded text. A
// position inside a character that folded to several (the s of ß's "ss")
// maps into the original character; callers snap to a character's start.
func (f *folded) orig(p int) int {
	i := sort.SearchInts(f.at, p+1) - 1
	if i < 0 {
		return p
	}
	return p + f.delta[i]
}

// add appends the folding of s, whose first byte is at offset base of the
// original.
func (f *folded) add(s string, base int) {
	if len(f.at) == 0 {
		f.at, f.delta = append(f.at, 0), append(f.delta, base-len(f.b))
	}
	last := f.delta[len(f.delta)-1]
	f.b = slices.Grow(f.b, len(s))
	for i := 0; i < len(s); {
		// Most of a Dutch text is ASCII letters, digits and punctuation
		// with single spaces between words: eight such bytes are folded
		// at once, as one word of 64 bits (in WebAssembly a byte at a
		// time cost several times as much), and only the rest a
		// character at a time.
		if i+8 <= len(s) {
			if x, ok := plain8(s, i, f.space); ok {
				f.b = append8(f.b, lower8(x))
				f.space = false
				i += 8
				continue
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				f.b = append(f.b, asciiLower[c])
				f.space = false
				i++
				continue
			}
			i++
			if !f.space {
				f.b = append(f.b, ' ')
				f.space = true
				continue
			}
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			f.rune(r)
		}
		// The character may have changed the difference between the
		// original and the folded text: record it.
		if d := base + i - len(f.b); d != last {
			last = d
			if n := len(f.at); f.at[n-1] == len(f.b) {
				f.delta[n-1] = d
			} else {
				f.at, f.delta = append(f.at, len(f.b)), append(f.delta, d)
			}
		}
	}
}

// rune appends the folding of one character beyond ASCII (RuneError
// for a byte of invalid UTF-8).
func (f *folded) rune(r rune) {
	switch {
	case r >= 0x300 && r < 0x370, r == 0xAD, r == 0x200B, r == 0x200C, r == 0x200D, r == 0x2060, r == 0xFEFF:
		return // combining diacritics, soft hyphen, zero-width characters
	case unicode.IsSpace(r):
		if !f.space {
			f.b = append(f.b, ' ')
			f.space = true
		}
		return
	}
	// Invalid UTF-8 is U+FFFD (as in the JSON of a result), so that
	// dropping a character never joins stray bytes into another.
	f.b = foldLetter(f.b, r)
	f.space = false
}

// foldLetter appends r folded: the tables, else lower case.
func foldLetter(b []byte, r rune) []byte {
	switch {
	case r < utf8.RuneSelf:
		return append(b, asciiLower[r])
	case r >= 0xC0 && r < 0x180 && latinFold[r-0xC0] != "":
		return append(b, latinFold[r-0xC0]...)
	}
	if s, ok := otherFold[r]; ok {
		return append(b, s...)
	}
	if l := unicode.ToLower(r); l != r {
		// Å (the ångström sign) lower-cases to å, which folds further.
		return foldLetter(b, l)
	}
	return utf8.AppendRune(b, r)
}

// Masks of every byte's high bit and of every byte's low seven bits.
const (
	highBits = 0x8080808080808080
	lowBits  = 0x7F7F7F7F7F7F7F7F
	ones     = 0x0101010101010101
)

// plain8 reads the eight bytes of s at i when they fold to themselves
// but for upper-case letters: ASCII from ' ' on, every space single (not
// the first after white space, not the last, nor next to another). It
// decides conservatively: false sends the bytes the slow way.
func plain8(s string, i int, afterSpace bool) (uint64, bool) {
	x := load8(s, i)
	if x&highBits != 0 || (x-ones*0x20)&^x&highBits != 0 {
		return 0, false // beyond ASCII, or a control character (\n, \t)
	}
	// A byte's high bit in notSpace is set unless the byte is ' '.
	notSpace := ((x ^ ones*0x20) + lowBits) & highBits
	if sp := ^notSpace & highBits; sp != 0 {
		if sp&(sp<<8) != 0 || sp&0x80 != 0 && afterSpace || sp>>63 != 0 {
			return 0, false
		}
	}
	return x, true
}

// wordLoads: the architecture loads and stores 64 bits at any address,
// little-endian, so load8 and append8 are one instruction (in
// WebAssembly binary.LittleEndian's eight loads of a byte cost more than
// the rest of the fast path).
const wordLoads = runtime.GOARCH == "wasm" || runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64"

// load8 reads the eight bytes of s at i, little-endian.
func load8(s string, i int) uint64 {
	if wordLoads {
		return *(*uint64)(unsafe.Pointer(unsafe.StringData(s[i:])))
	}
	return binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
}

// append8 appends the eight bytes of x, little-endian.
func append8(b []byte, x uint64) []byte {
	if !wordLoads {
		return binary.LittleEndian.AppendUint64(b, x)
	}
	n := len(b)
	if cap(b)-n < 8 {
		b = slices.Grow(b, 8)
	}
	b = b[:n+8]
	*(*uint64)(unsafe.Pointer(&b[n])) = x
	return b
}

// lower8 lowers the upper-case ASCII letters of eight ASCII bytes.
func lower8(x uint64) uint64 {
	geA := x + ones*(0x80-'A') // high bit set from 'A' on
	gtZ := x + ones*(0x7F-'Z') // high bit set beyond 'Z'
	return x | ((geA ^ gtZ) & highBits >> 2)
}

// asciiSpace and asciiLower fold ASCII.
var asciiSpace, asciiLower = func() (sp [utf8.RuneSelf]bool, lo [utf8.RuneSelf]byte) {
	for c := range lo {
		lo[c] = byte(c)
		if c >= 'A' && c <= 'Z' {
			lo[c] = byte(c) + 'a' - 'A'
		}
	}
	for _, c := range " \t\n\v\f\r" {
		sp[c] = true
	}
	return
}()

// latinFold folds U+00C0–U+017F; "" leaves a character to otherFold and
// unicode.ToLower (× and ÷).
var latinFold = func() (t [0x180 - 0xC0]string) {
	set := func(from rune, folds ...string) {
		for i, s := range folds {
			t[int(from)-0xC0+i] = s
		}
	}
	// À–ß and à–ÿ
	for _, from := range []rune{0xC0, 0xE0} {
		set(from, "a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
			"d", "n", "o", "o", "o", "o", "o", "", "o", "u", "u", "u", "u", "y", "th")
	}
	set(0xDF, "ss")
	set(0xFF, "y")
	// Latin Extended-A, U+0100–U+017F
	set(0x100, "a", "a", "a", "a", "a", "a", "c", "c", "c", "c", "c", "c", "c", "c", "d", "d",
		"d", "d", "e", "e", "e", "e", "e", "e", "e", "e", "e", "e", "g", "g", "g", "g",
		"g", "g", "g", "g", "h", "h", "h", "h", "i", "i", "i", "i", "i", "i", "i", "i",
		"i", "i", "ij", "ij", "j", "j", "k", "k", "k", "l", "l", "l", "l", "l", "l", "l",
		"l", "l", "l", "n", "n", "n", "n", "n", "n", "n", "n", "n", "o", "o", "o", "o",
		"o", "o", "oe", "oe", "r", "r", "r", "r", "r", "r", "s", "s", "s", "s", "s", "s",
		"s", "s", "t", "t", "t", "t", "t", "t", "u", "u", "u", "u", "u", "u", "u", "u",
		"u", "u", "u", "u", "w", "w", "y", "y", "y", "z", "z", "z", "z", "z", "z", "s")
	return
}()

// otherFold folds the characters beyond Latin Extended-A that a Dutch
// text (or its PDF) writes for plain ones.
var otherFold = map[rune]string{
	// quotes and apostrophes
	'‘': "'", '’': "'", '‚': "'", '‛': "'", '′': "'", '´': "'", '`': "'",
	'“': `"`, '”': `"`, '„': `"`, '‟': `"`, '″': `"`, '«': `"`, '»': `"`,
	// dashes
	'‐': "-", '‑': "-", '‒': "-", '–': "-", '—': "-", '―': "-", '−': "-",
	'…': "...",
	// typographic ligatures
	'ﬀ': "ff", 'ﬁ': "fi", 'ﬂ': "fl", 'ﬃ': "ffi", 'ﬄ': "ffl", 'ﬅ': "st", 'ﬆ': "st",
	'ẞ': "ss",
}

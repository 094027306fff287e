package platformsim

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/besluitbron/besluitbron/sdk"
)

// dataDir reads the recorded data of testdata/<platform>/.
type dataDir string

func (d dataDir) path(platform, name string) string {
	return filepath.Join(string(d), platform, filepath.FromSlash(name))
}

func (d dataDir) read(platform, name string) ([]byte, error) {
	b, err := os.ReadFile(d.path(platform, name))
	if err != nil {
		return nil, err
	}
	return b, nil
}

// json decodes testdata/<platform>/<name> into v; errors name the file.
func (d dataDir) json(platform, name string, v any) error {
	b, err := d.read(platform, name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v", d.path(platform, name), err)
	}
	return nil
}

// glob lists testdata/<platform>/<pattern>, sorted.
func (d dataDir) glob(platform, pattern string) []string {
	m, _ := filepath.Glob(d.path(platform, pattern))
	sort.Strings(m)
	return m
}

// foldRune lower-cases a rune and drops its diacritics (é → e, Ë → e), one
// rune for one, so that positions in folded text are positions in the
// original.
func foldRune(r rune) rune {
	if r < 0x80 {
		return unicode.ToLower(r)
	}
	for _, x := range norm.NFD.String(string(r)) {
		if !unicode.Is(unicode.Mn, x) {
			return unicode.ToLower(x)
		}
	}
	return unicode.ToLower(r)
}

func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// words splits folded text into words of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(fold(s), func(r rune) bool { return !isWordRune(r) })
}

// term is one thing a query asks for: a word, or a phrase of words that
// must follow each other.
type term struct {
	words []string
}

// queryTerms reads free text: "quoted phrases" stay together, everything
// else is single words. Punctuation is dropped, as the platforms do.
func queryTerms(q string) []term {
	q = strings.NewReplacer("“", `"`, "”", `"`, "„", `"`).Replace(q)
	var out []term
	for i, part := range strings.Split(q, `"`) {
		ws := words(part)
		if i%2 == 1 {
			if len(ws) > 0 {
				out = append(out, term{words: ws})
			}
			continue
		}
		for _, w := range ws {
			out = append(out, term{words: []string{w}})
		}
	}
	return out
}

// doc is a record's searchable text, folded once.
type doc struct {
	words []string
}

func newDoc(parts ...string) doc {
	return doc{words: words(strings.Join(parts, " \n "))}
}

// matchMode says how a query word matches a text word.
type matchMode int

const (
	// prefixMatch: a query word matches text words it begins (woning →
	// woningbouw), standing in for the platforms' stemming.
	prefixMatch matchMode = iota
	// substringMatch: a query word matches anywhere in the text, as the
	// Tweede Kamer's OData contains() does.
	substringMatch
	// wordMatch: a query word matches only the same word, for an index
	// without stemming or wildcards (KOOP's SRU).
	wordMatch
)

// count returns how often t occurs in d (0 = no match).
func (d doc) count(t term, mode matchMode) int {
	n := 0
	for i := 0; i+len(t.words) <= len(d.words); i++ {
		ok := true
		for j, w := range t.words {
			tw := d.words[i+j]
			switch {
			case mode == substringMatch && len(t.words) == 1:
				ok = strings.Contains(tw, w)
			case mode == wordMatch:
				ok = tw == w
			case j == len(t.words)-1:
				ok = strings.HasPrefix(tw, w)
			default:
				ok = tw == w
			}
			if !ok {
				break
			}
		}
		if ok {
			n++
		}
	}
	if n == 0 && mode == substringMatch && len(t.words) > 1 {
		// A phrase as a substring of the whole text.
		if strings.Contains(strings.Join(d.words, " "), strings.Join(t.words, " ")) {
			n = 1
		}
	}
	return n
}

// score returns the total occurrences of all terms, or 0 when one term
// is missing (words are ANDed on every platform that searches text).
func (d doc) score(ts []term, mode matchMode) int {
	total := 0
	for _, t := range ts {
		n := d.count(t, mode)
		if n == 0 {
			return 0
		}
		total += n
	}
	return total
}

// matched counts the terms that occur at all (for ranking by "most words
// first").
func (d doc) matched(ts []term, mode matchMode) int {
	n := 0
	for _, t := range ts {
		if d.count(t, mode) > 0 {
			n++
		}
	}
	return n
}

// snippet cuts about width runes of text around the first word a term
// begins and wraps every matching word in pre/post. With escape the text
// is HTML-escaped (the tags are not). Without a match it is the text's
// opening.
func snippet(text string, ts []term, pre, post string, width int, escape bool) string {
	rs := []rune(strings.Join(strings.Fields(text), " "))
	folded := make([]rune, len(rs))
	for i, r := range rs {
		folded[i] = foldRune(r)
	}
	type span struct{ a, b int }
	var hits []span
	for i := 0; i < len(rs); {
		if !isWordRune(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && isWordRune(rs[j]) {
			j++
		}
		w := string(folded[i:j])
		for _, t := range ts {
			for _, tw := range t.words {
				if strings.HasPrefix(w, tw) {
					hits = append(hits, span{i, j})
					goto next
				}
			}
		}
	next:
		i = j
	}
	start := 0
	if len(hits) > 0 {
		start = max(0, hits[0].a-width/3)
	}
	end := min(len(rs), start+width)
	if end-start < width {
		start = max(0, end-width)
	}
	// Whole words at the edges.
	for start > 0 && isWordRune(rs[start-1]) && isWordRune(rs[start]) {
		start++
	}
	for end < len(rs) && end > start && isWordRune(rs[end-1]) && isWordRune(rs[end]) {
		end--
	}
	esc := func(s string) string {
		if escape {
			return html.EscapeString(s)
		}
		return s
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("...")
	}
	pos := start
	for _, h := range hits {
		if h.a < start || h.b > end {
			continue
		}
		b.WriteString(esc(string(rs[pos:h.a])))
		b.WriteString(pre)
		b.WriteString(esc(string(rs[h.a:h.b])))
		b.WriteString(post)
		pos = h.b
	}
	b.WriteString(esc(string(rs[pos:end])))
	if end < len(rs) {
		b.WriteString("...")
	}
	return strings.TrimSpace(b.String())
}

// window returns items[offset:offset+limit] within bounds.
func window[T any](items []T, offset, limit int) []T {
	if offset >= len(items) || limit <= 0 {
		return []T{}
	}
	return items[offset:min(len(items), offset+limit)]
}

// writeBody sends a body with its content type and status.
func writeBody(w http.ResponseWriter, status int, ctype string, body []byte) {
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(status)
	w.Write(body)
}

// writeJSON sends v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{"error":"simulator: encoding failed"}`)
		status = 500
	}
	writeBody(w, status, "application/json", b)
}

// isoDate normalises the platforms' date forms to YYYY-MM-DD ("" when it
// is none of them).
func isoDate(s string) string { return sdk.ISODate(s) }

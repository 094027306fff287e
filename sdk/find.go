package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/internal/codec"
)

// A find looks for words in a document's whole text and answers with the
// pages that hold them: every document tool takes a "find" argument
// beside "page" (see [FindText]). It reads the text the host keeps
// (extracted once by [PagedText] or by an earlier find), so a find after
// reading a page, or a second find, asks the platform nothing.

// Limits of a find.
const (
	// MaxFindBytes is the longest find argument, in bytes.
	MaxFindBytes = 400
	// MaxFindTerms is the most words and quoted phrases of one find.
	MaxFindTerms = 8
	// SnippetContext is how many bytes of text a snippet shows either
	// side of its match (about; it is cut at word boundaries).
	SnippetContext = 120
	// MaxSnippetsPerPage is the most snippets of one page.
	MaxSnippetsPerPage = 3
	// findBudget bounds the JSON of a find's answer (connector.Found),
	// leaving room for the rest of the document's result within 30 KB.
	findBudget = 24 << 10
	// maxSpansPerPage bounds the matches of one page kept for snippets
	// (every match is counted).
	maxSpansPerPage = 32
)

// FindProperty is the "find" member of a document tool's input schema,
// the same in every connector (beside "page"):
//
//	const schema = `{"type": "object", "properties": {
//	  "id": {"type": "string"},
//	  "page": {"type": "integer", "minimum": 1, "default": 1},
//	  ` + sdk.FindProperty + `
//	}, "required": ["id"], "additionalProperties": false}`
const FindProperty = `"find": {"type": "string", "maxLength": 400, "description": "Words or \"a phrase\" to find (case, accents ignored): the pages holding them, with snippets."}`

// PageMarks says how a text marks the pages of the original it was
// extracted from (a PDF's pages), so that a find names the original's
// page of each match and links to it.
type PageMarks struct {
	// Prefix starts a line that opens page N of the original, N right
	// after it: "[page " for "[page 12]", "--- pagina " for
	// "--- pagina 12 ---". "" when the text marks no pages.
	Prefix string
	// File is the original's URL, which "#page=N" opens at page N (a
	// PDF's), or "" when there is none to link to.
	File string
}

// link is the URL of the original's page n, or "".
func (m PageMarks) link(n int) string {
	if m.File == "" || n < 1 {
		return ""
	}
	f, _, _ := strings.Cut(m.File, "#")
	return f + "#page=" + strconv.Itoa(n)
}

// FindTerms splits a find argument into what it looks for, folded (see
// [Fold]): each "quoted phrase" one term (curly quotes too), every other
// word one, stripped of the punctuation around it (",;:!?()[]{}");
// repeats are dropped. The error names the argument: too long, more than
// MaxFindTerms terms, or none.
func FindTerms(find string) ([]string, error) {
	if len(find) > MaxFindBytes {
		return nil, fmt.Errorf("argument \"find\": %d bytes, at most %d", len(find), MaxFindBytes)
	}
	var terms []string
	add := func(t string) {
		if t = strings.TrimSpace(t); t != "" && !slices.Contains(terms, t) {
			terms = append(terms, t)
		}
	}
	s := Fold(find)
	for s != "" {
		if rest, ok := strings.CutPrefix(s, `"`); ok {
			phrase, after, _ := strings.Cut(rest, `"`)
			add(phrase)
			s = after
			continue
		}
		word, _, _ := strings.Cut(s, " ")
		if i := strings.IndexByte(word, '"'); i >= 0 {
			word = word[:i] // a quote opens a phrase right after the word
		}
		s = s[len(word):]
		s = strings.TrimPrefix(s, " ")
		add(strings.Trim(word, ",;:!?()[]{}"))
	}
	switch {
	case len(terms) == 0:
		return nil, fmt.Errorf("argument \"find\": %q holds no words to find", find)
	case len(terms) > MaxFindTerms:
		return nil, fmt.Errorf("argument \"find\": %d words and phrases, at most %d (quote a phrase to find its words together)", len(terms), MaxFindTerms)
	}
	return terms, nil
}

// FindText answers a document tool's find argument from the document's
// whole text: the pages that hold every word and quoted phrase of find
// (folded as a Dutch reader compares them, see [Fold]), each with its
// number of matches and snippets around them, and the matches in all
// ([connector.Found], in TextOf.Found). TextOf.Text is then a one-line
// summary, TextOf.Page is 0 and TextOf.Pages the number of pages.
//
// It reads the text the host keeps under key ([PagedText]'s), page by
// page, so a find after reading a page, or a second find, neither fetches
// nor extracts the document; when nothing is kept (or a page was evicted
// meanwhile) it extracts the text once and hands it to the host to keep,
// as PagedText does, so the pages read after a find are free too.
//
// marks, when not nil, says from the head how the text marks the pages of
// its original (a PDF's), so each match names its page there and links to
// it. The answer stays small whatever the document: see
// [connector.Found].
func FindText[H any](ctx context.Context, h connector.Host, key, class, find string, marks func(head H) PageMarks, extract Extract[H]) (TextOf[H], error) {
	var out TextOf[H]
	terms, err := FindTerms(find)
	if err != nil {
		return out, err
	}
	tk := connector.TextKey{Key: key, CacheClass: class}
	store, _ := h.(connector.TextStore)
	if store != nil {
		ok, err := findKept(ctx, store, tk, find, terms, marks, &out)
		if err != nil || ok {
			return out, err
		}
		out = TextOf[H]{}
	}
	head, pages, err := extractPages(ctx, h, store, tk, extract)
	if err != nil {
		return out, err
	}
	out.Head, out.Pages = head, len(pages)
	fd := newFinder(terms, marksOf(marks, head), len(pages))
	for i, p := range pages {
		next := ""
		if i+1 < len(pages) {
			next = pages[i+1]
		}
		fd.page(i+1, p, next)
	}
	out.Found = fd.answer(find)
	out.Text = findSummary(out.Found, out.Pages)
	return out, nil
}

// findKept answers a find from the kept text; ok is false when there is
// none (or it changed or lost a page while being read).
func findKept[H any](ctx context.Context, store connector.TextStore, tk connector.TextKey, find string, terms []string, marks func(H) PageMarks, out *TextOf[H]) (ok bool, err error) {
	first, ok, err := store.TextPage(ctx, tk, 1)
	if err != nil {
		return false, fmt.Errorf("reading the kept text: %w", err)
	}
	if !ok || first.Pages < 1 || len(first.Head) > 0 && json.Unmarshal(first.Head, &out.Head) != nil {
		return false, nil
	}
	pages := first.Pages
	fd := newFinder(terms, marksOf(marks, out.Head), pages)
	cur := first.Text
	for n := 1; n <= pages; n++ {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		next := ""
		if n < pages {
			p, ok, err := store.TextPage(ctx, tk, n+1)
			if err != nil {
				return false, fmt.Errorf("reading the kept text: %w", err)
			}
			if !ok || p.Pages != pages {
				return false, nil
			}
			next = p.Text
		}
		fd.page(n, cur, next)
		cur = next
		// Let a garbage collection cycle finish (see Yield): a find
		// reads every page of a text of megabytes.
		Yield()
	}
	out.Pages, out.Found = pages, fd.answer(find)
	out.Text = findSummary(out.Found, pages)
	return true, nil
}

func marksOf[H any](marks func(H) PageMarks, head H) PageMarks {
	if marks == nil {
		return PageMarks{}
	}
	return marks(head)
}

// span is a match of term in a page's window: original byte offsets.
type span struct{ s, e, term int }

// pageHit is a page that holds every term.
type pageHit struct {
	page, matches, source int
	snippets              []connector.Snippet
}

// finder looks for terms page by page.
type finder struct {
	terms   [][]byte
	counts  []int // per term, on every page
	maxTerm int
	marks   PageMarks
	pages   int // of the text
	source  int // the original's page at the end of the pages seen
	hits    []pageHit
	matches int
	f       folded
	spans   []span
	onPage  []int // matches of each term on the current page
}

func newFinder(terms []string, marks PageMarks, pages int) *finder {
	fd := &finder{marks: marks, pages: pages, counts: make([]int, len(terms)), onPage: make([]int, len(terms))}
	for _, t := range terms {
		fd.terms = append(fd.terms, []byte(t))
		fd.maxTerm = max(fd.maxTerm, len(t))
	}
	return fd
}

// page looks for the terms in page n (cur); next is the page after it (""
// for the last), whose start completes a match begun at cur's end.
func (fd *finder) page(n int, cur, next string) {
	// A term of b folded bytes spans at most ~4b bytes of the original
	// (diacritics, combining marks, white space collapsed): look that far
	// into the next page.
	look := next
	if m := 4*fd.maxTerm + 64; len(look) > m {
		for m > 0 && !utf8Start(look[m]) {
			m--
		}
		look = look[:m]
	}
	fd.f.reset()
	fd.f.add(cur, 0)
	fd.f.add(look, len(cur))
	b := fd.f.b
	fd.spans = fd.spans[:0]
	all, matches := true, 0
	perTerm := max(4, maxSpansPerPage/len(fd.terms))
	for i, t := range fd.terms {
		c := 0
		for off := 0; off <= len(b); {
			j := bytes.Index(b[off:], t)
			if j < 0 {
				break
			}
			p := off + j
			s := fd.f.orig(p)
			if s >= len(cur) {
				break // begun on the next page: that page's match
			}
			c++
			if c <= perTerm {
				// Whole characters: a term may match part of one (the s
				// of ß's "ss").
				for s > 0 && !utf8Start(cur[s]) {
					s--
				}
				e := max(s, fd.f.orig(p+len(t)))
				for e < len(cur)+len(look) && !utf8Start(byteAt(cur, look, e)) {
					e++
				}
				fd.spans = append(fd.spans, span{s, e, i})
			}
			off = p + len(t)
		}
		fd.counts[i] += c
		fd.onPage[i] = c
		matches += c
		if c == 0 {
			all = false
		}
	}
	if all {
		fd.hit(n, matches, cur, look, len(look) < len(next) || n+1 < fd.pages)
		fd.matches += matches
	}
	if fd.marks.Prefix != "" {
		if m := lastMark(cur, fd.marks.Prefix); m > 0 {
			fd.source = m
		}
	}
}

// byteAt is byte i of a+b.
func byteAt(a, b string, i int) byte {
	if i < len(a) {
		return a[i]
	}
	return b[i-len(a)]
}

// hit records page n, its matches and its snippets; look is the start of
// the next page, more says the text goes on after it. The snippets show
// the first match of every term first, the term rarest on the page
// first (a word found everywhere does not crowd out the phrase that is
// found once), then the other matches in order; matches close together
// share a snippet.
func (fd *finder) hit(n, matches int, cur, look string, more bool) {
	slices.SortFunc(fd.spans, func(a, b span) int { return a.s - b.s })
	w := cur
	if look != "" {
		w = cur + look
	}
	order := make([]span, 0, len(fd.spans))
	terms := make([]int, len(fd.terms))
	for i := range terms {
		terms[i] = i
	}
	slices.SortStableFunc(terms, func(a, b int) int { return fd.onPage[a] - fd.onPage[b] })
	firsts := make([]bool, len(fd.spans))
	for _, t := range terms {
		if i := slices.IndexFunc(fd.spans, func(sp span) bool { return sp.term == t }); i >= 0 {
			order, firsts[i] = append(order, fd.spans[i]), true
		}
	}
	for i, sp := range fd.spans {
		if !firsts[i] {
			order = append(order, sp)
		}
	}
	const ctx, longest = SnippetContext, 2*SnippetContext + 120
	type cut struct{ a, b, s, e int }
	var cuts []cut
next:
	for _, sp := range order {
		a, b := sp.s-ctx, sp.e+ctx
		for k := range cuts {
			c := &cuts[k]
			if a <= c.b && b >= c.a && (sp.s >= c.a && sp.e <= c.b || max(b, c.b)-min(a, c.a) <= longest) {
				if sp.s < c.a || sp.e > c.b {
					c.a, c.b = min(a, c.a), max(b, c.b)
				}
				c.s, c.e = min(c.s, sp.s), max(c.e, sp.e)
				continue next
			}
		}
		if len(cuts) < MaxSnippetsPerPage {
			cuts = append(cuts, cut{a, b, sp.s, sp.e})
		}
	}
	slices.SortFunc(cuts, func(x, y cut) int { return x.a - y.a })
	// Snippets that would overlap share the text between their matches
	// instead of both showing it.
	for k := 1; k < len(cuts); k++ {
		p, c := &cuts[k-1], &cuts[k]
		if c.a < p.b {
			mid := min(max((p.e+c.s)/2, p.e), c.s)
			p.b, c.a = max(min(p.b, mid), p.e), min(max(c.a, mid), c.s)
		}
	}
	ph := pageHit{page: n, matches: matches, source: fd.sourceAt(cur, fd.spans[0].s)}
	for _, c := range cuts {
		src := fd.sourceAt(cur, c.s)
		text := snippet(w, c.a, c.b, c.s, c.e, n > 1, more)
		ph.snippets = append(ph.snippets, connector.Snippet{Text: text, SourcePage: src, Link: fd.marks.link(src)})
	}
	fd.hits = append(fd.hits, ph)
}

// sourceAt is the original's page at offset s of cur, 0 when unknown.
func (fd *finder) sourceAt(cur string, s int) int {
	if fd.marks.Prefix == "" {
		return 0
	}
	if m := lastMark(cur[:min(s, len(cur))], fd.marks.Prefix); m > 0 {
		return m
	}
	return fd.source
}

// lastMark is the number of the last line of text opening with prefix
// and a number, or 0.
func lastMark(text, prefix string) int {
	for end := len(text); end > 0; {
		i := strings.LastIndex(text[:end], prefix)
		if i < 0 {
			return 0
		}
		if i == 0 || text[i-1] == '\n' {
			n, digits := 0, text[i+len(prefix):]
			for j := 0; j < len(digits) && j < 6 && digits[j] >= '0' && digits[j] <= '9'; j++ {
				n = n*10 + int(digits[j]-'0')
			}
			if n > 0 {
				return n
			}
		}
		end = i
	}
	return 0
}

// snippet is w[a:b] around the match w[s:e], cut at word boundaries, its
// white space collapsed; "…" marks text left out before (before says
// there is some before w) and after (after: some after w).
func snippet(w string, a, b, s, e int, before, after bool) string {
	a, b = max(min(a, s), 0), min(max(b, e), len(w))
	for a > 0 && a < s && !utf8Start(w[a]) {
		a++
	}
	if a > 0 {
		// Start after the first space, unless it is past the match.
		if i := strings.IndexAny(w[a:min(s, len(w))], " \n\t"); i >= 0 {
			a += i + 1
		}
	}
	for b < len(w) && b > e && !utf8Start(w[b]) {
		b--
	}
	if b < len(w) {
		if i := strings.LastIndexAny(w[max(e, a):b], " \n\t"); i >= 0 {
			b = max(e, a) + i
		}
	}
	var sb strings.Builder
	sb.Grow(b - a + 8)
	if a > 0 || before {
		sb.WriteString("…")
	}
	space := false
	for _, f := range strings.Fields(w[a:b]) {
		if space {
			sb.WriteByte(' ')
		}
		sb.WriteString(f)
		space = true
	}
	if b < len(w) || after {
		sb.WriteString("…")
	}
	return sb.String()
}

// answer is the find's answer, within findBudget bytes of JSON: every
// page that matches as far as they fit in half of it, then the snippets,
// a first one for every page listed before a second one for any.
func (fd *finder) answer(query string) *connector.Found {
	out := &connector.Found{Query: query, Matches: fd.matches, PagesMatched: len(fd.hits), Pages: []connector.FoundPage{}}
	for i, t := range fd.terms {
		out.Terms = append(out.Terms, connector.FoundTerm{Term: string(t), Matches: fd.counts[i]})
	}
	var scratch []byte
	str := func(s string) int {
		scratch = codec.AppendString(scratch[:0], s)
		return len(scratch)
	}
	num := func(n int) int { return len(strconv.Itoa(n)) }
	used := 80 + str(query) // the members besides pages and terms
	for _, t := range out.Terms {
		used += 24 + str(t.Term) + num(t.Matches)
	}
	budget := findBudget - used
	used = 0
	for _, h := range fd.hits {
		size := 22 + num(h.page) + num(h.matches)
		if h.source > 0 {
			size += 15 + num(h.source)
		}
		if l := fd.marks.link(h.source); l != "" {
			size += 8 + str(l)
		}
		if used+size > budget/2 {
			out.Truncated = true
			break
		}
		used += size
		out.Pages = append(out.Pages, connector.FoundPage{Page: h.page, Matches: h.matches, SourcePage: h.source, Link: fd.marks.link(h.source)})
	}
	for r := range MaxSnippetsPerPage {
		for i := range out.Pages {
			h := &fd.hits[i]
			if r >= len(h.snippets) {
				continue
			}
			sn := h.snippets[r]
			size := 12 + str(sn.Text)
			if sn.SourcePage > 0 {
				size += 15 + num(sn.SourcePage)
			}
			if sn.Link != "" {
				size += 8 + str(sn.Link)
			}
			if r == 0 {
				size += 14 // ,"snippets":[]
			}
			if used+size > budget || len(out.Pages[i].Snippets) < r {
				out.Truncated = true
				continue
			}
			used += size
			out.Pages[i].Snippets = append(out.Pages[i].Snippets, sn)
		}
	}
	return out
}

// findSummary is a find's answer in one line: a document result's text.
func findSummary(f *connector.Found, pages int) string {
	if f.PagesMatched == 0 {
		if len(f.Terms) > 1 {
			var each []string
			for _, t := range f.Terms {
				each = append(each, strconv.Quote(t.Term)+" "+strconv.Itoa(t.Matches)+"×")
			}
			return "No page of " + strconv.Itoa(pages) + " holds every term (in all: " + strings.Join(each, ", ") + ")."
		}
		return "No match in the " + strconv.Itoa(pages) + " page(s)."
	}
	var list []string
	for i, p := range f.Pages {
		if i == 30 {
			list = append(list, "…")
			break
		}
		list = append(list, strconv.Itoa(p.Page))
	}
	if len(f.Pages) < f.PagesMatched && len(list) <= 30 {
		list = append(list, "…")
	}
	return fmt.Sprintf("%d match(es) on %d of %d page(s): %s. Snippets in find.pages; page=N reads a page.",
		f.Matches, f.PagesMatched, pages, strings.Join(list, ", "))
}

package cite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Bounds of the quote check.
const (
	// MaxPassage is the longest passage checked, in bytes: a paragraph.
	MaxPassage = 1000
	// maxFind is the longest find argument a document tool takes
	// (sdk.MaxFindBytes), and maxTerms its most terms.
	maxFind  = sdk.MaxFindBytes
	maxTerms = sdk.MaxFindTerms
	// maxCandidates is the most pages read to place a passage.
	maxCandidates = 3
	// MaxHashPages is the most pages read to give a text's sha256; a
	// longer text is checked without one.
	MaxHashPages = 400
	// maxSentence bounds the sentence around a passage, in bytes.
	maxSentence = 700
)

// QuoteArgs are besluitbron_check_quote's arguments.
type QuoteArgs struct {
	Platform string `json:"platform"`
	ID       string `json:"id"`
	Passage  string `json:"passage"`
	// SHA256 is the text's sha256 from an earlier check, when the
	// citation carries one: the answer says whether the text changed.
	SHA256 string `json:"sha256,omitempty"`
}

// QuoteAnswer is besluitbron_check_quote's answer.
type QuoteAnswer struct {
	Platform string `json:"platform"`
	ID       string `json:"id"`
	Title    string `json:"title,omitempty"`
	// Found: the passage is in the document (compared folded: case,
	// accents, typographic quotes and white space aside).
	Found bool `json:"found"`
	// Verdict says the outcome in a sentence.
	Verdict string `json:"verdict"`
	// Page is the text's page (the document tool's page argument) where
	// the passage is; SourcePage and Link the original's page (a PDF's)
	// when the text marks them.
	Page       int    `json:"page,omitempty"`
	SourcePage int    `json:"source_page,omitempty"`
	Link       string `json:"link,omitempty"`
	// Sentence is the sentence (or sentences) around the passage, in the
	// document's own spelling.
	Sentence string `json:"sentence,omitempty"`
	// Closest is, when the passage is not there, the passage of the text
	// most like it.
	Closest *Closest `json:"closest,omitempty"`
	// Pages is the number of pages of the text.
	Pages int `json:"pages"`
	// TextSHA256 is the sha256 of the text checked (every page's text as
	// the document tool gives it, in order, each followed by a newline),
	// for a citation to carry; "" for a text of more than MaxHashPages
	// pages.
	TextSHA256 string `json:"text_sha256,omitempty"`
	// Changed is set when sha256 was given: whether the text differs
	// from the one that sha256 was taken of.
	Changed *bool `json:"changed,omitempty"`
	// Cite is the document's citation.
	Cite *Cite `json:"cite,omitempty"`
}

// Closest is the passage of a text most like one that is not there.
type Closest struct {
	Page       int    `json:"page"`
	SourcePage int    `json:"source_page,omitempty"`
	Link       string `json:"link,omitempty"`
	Text       string `json:"text"`
	// Similarity is the share of the passage's words found in order in
	// Text (1 for all of them).
	Similarity float64 `json:"similarity"`
	// PassageOnly and TextOnly are the words of the passage missing from
	// Text, and the words of Text not in the passage: where they differ.
	PassageOnly []string `json:"passage_only,omitempty"`
	TextOnly    []string `json:"text_only,omitempty"`
}

func (s *Service) quoteTool() invoke.HostTool {
	// The platforms that can be checked and the bounds (an id of at most
	// 300 bytes, a passage of two words to MaxPassage bytes, a sha256 of
	// 64 hex digits) are checked by CheckQuote, with errors in words that
	// name them.
	schema := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"platform": {Type: "string"},
			"id":       {Type: "string"},
			"passage":  {Type: "string"},
			"sha256":   {Type: "string"},
		},
		Required:             []string{"platform", "id", "passage"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	return invoke.HostTool{
		Name:  QuoteTool,
		Title: "Check a quote",
		Description: "Is a passage in a document (case, accents ignored)? Its page and sentence, or the closest passage and its page; passing an earlier text_sha256 as sha256 tells a changed document from a wrong quote. " +
			"Cost: reads the kept text (one document read if not kept).",
		InputSchema: schema,
		OpenWorld:   true,
		Handler:     s.handleQuote,
	}
}

func (s *Service) handleQuote(ctx context.Context, info *callinfo.Info, raw json.RawMessage) invoke.Answer {
	var a QuoteArgs
	if err := strictDecode(raw, &a); err != nil {
		return invoke.Failed(QuoteTool+": "+err.Error(), callinfo.Summary{Cache: callinfo.Bypass})
	}
	ans, err := s.CheckQuote(ctx, info, a)
	if err != nil {
		return invoke.Failed(QuoteTool+": "+err.Error(), info.Summary())
	}
	b, err := json.Marshal(ans)
	if err != nil {
		return invoke.Failed(QuoteTool+": encoding the answer: "+err.Error(), info.Summary())
	}
	return invoke.JSONAnswer(b, info.Summary())
}

// CheckQuote looks for a.Passage in the document's kept text, through
// its document tool's find and page.
func (s *Service) CheckQuote(ctx context.Context, info *callinfo.Info, a QuoteArgs) (QuoteAnswer, error) {
	p, ok := s.byID[a.Platform]
	if !ok || !p.Find {
		return QuoteAnswer{}, fmt.Errorf("argument \"platform\" must be one of %s, the platforms whose document tool takes find and page (got %q)", strings.Join(s.quote, ", "), clip(a.Platform, 40))
	}
	a.ID = strings.TrimSpace(a.ID)
	if a.ID == "" || len(a.ID) > 300 {
		return QuoteAnswer{}, fmt.Errorf("argument \"id\" must be 1 to 300 bytes (got %d)", len(a.ID))
	}
	if len(a.Passage) > MaxPassage {
		return QuoteAnswer{}, fmt.Errorf("argument \"passage\" must be at most %d bytes (got %d)", MaxPassage, len(a.Passage))
	}
	if a.SHA256 != "" && !isSHA256(a.SHA256) {
		return QuoteAnswer{}, fmt.Errorf("argument \"sha256\" must be 64 lower-case hex digits, as text_sha256 gives it (got %q)", clip(a.SHA256, 80))
	}
	words := normWords(a.Passage)
	if len(words) < 2 {
		return QuoteAnswer{}, fmt.Errorf("argument \"passage\" must hold at least two words (got %q)", clip(a.Passage, 80))
	}
	q := quoteRun{s: s, ctx: ctx, info: info, p: p, id: a.ID, pages: map[int]connector.Document{}}
	cands, err := q.candidates(findWords(a.Passage))
	if err != nil {
		return QuoteAnswer{}, err
	}
	ans := QuoteAnswer{Platform: p.ID, ID: a.ID, Pages: q.total}
	var best match
	for _, c := range cands {
		doc, err := q.page(c.Page)
		if err != nil {
			return QuoteAnswer{}, err
		}
		m := align(doc.Text, words)
		m.page = c
		if m.score > best.score || best.page.Page == 0 {
			best = m
		}
		if m.exact {
			break
		}
	}
	if best.exact {
		ans.Found, ans.Page, ans.SourcePage, ans.Link = true, best.page.Page, best.page.SourcePage, best.page.Link
		ans.Sentence = best.sentence
		ans.Verdict = fmt.Sprintf("The passage is in the document, on page %d of %d.", ans.Page, q.total)
	} else {
		ans.Verdict = "The passage is not in the document."
		if best.page.Page != 0 && best.score > 0 {
			ans.Closest = &Closest{Page: best.page.Page, SourcePage: best.page.SourcePage, Link: best.page.Link, Text: best.text,
				Similarity: float64(int(1000*float64(best.score)/float64(len(words))+0.5)) / 1000, PassageOnly: best.passageOnly, TextOnly: best.textOnly}
			ans.Verdict += fmt.Sprintf(" The closest passage, on page %d, has %d of its %d words in order.", best.page.Page, best.score, len(words))
		} else {
			ans.Verdict += " No part of it is in the document."
		}
	}
	if err := q.hash(&ans); err != nil {
		return QuoteAnswer{}, err
	}
	if a.SHA256 != "" && ans.TextSHA256 != "" {
		changed := a.SHA256 != ans.TextSHA256
		ans.Changed = &changed
		if changed {
			ans.Verdict += " The text differs from the one the given sha256 was taken of: the document changed since."
		} else {
			ans.Verdict += " The text is the one the given sha256 was taken of."
		}
	}
	if doc, ok := q.pages[1]; ok || len(q.pages) > 0 {
		if !ok {
			for _, d := range q.pages {
				doc = d
				break
			}
		}
		ans.Title = doc.Title
		it, t, ok := s.o.Book.Lookup(p.ID, a.ID)
		if !ok {
			it, t = connector.Item{ID: a.ID, Title: doc.Title, Date: doc.Date, Organization: doc.Organization, URL: doc.URL}, s.o.Now()
		}
		ans.Cite = Of(it, t)
	}
	return ans, nil
}

// quoteRun is one quote check's reads of a document.
type quoteRun struct {
	s     *Service
	ctx   context.Context
	info  *callinfo.Info
	p     Platform
	id    string
	total int                        // pages of the text
	pages map[int]connector.Document // pages read
}

// find calls the document tool with a find.
func (q *quoteRun) find(find string) (*connector.Found, error) {
	doc, err := q.s.document(q.ctx, q.info, q.p, map[string]any{q.p.IDArg: q.id, "find": find})
	if err != nil {
		return nil, err
	}
	if doc.Find == nil {
		return nil, fmt.Errorf("%s: %s answered a find without one", q.p.Title, q.p.DocumentTool)
	}
	q.total = doc.Pages
	return doc.Find, nil
}

// page reads page n of the text.
func (q *quoteRun) page(n int) (connector.Document, error) {
	if d, ok := q.pages[n]; ok {
		return d, nil
	}
	d, err := q.s.document(q.ctx, q.info, q.p, map[string]any{q.p.IDArg: q.id, "page": n})
	if err != nil {
		return connector.Document{}, err
	}
	q.pages[n] = d
	q.total = max(q.total, d.Pages)
	return d, nil
}

// candidates are the pages where the passage (its words as a find reads
// them: [findWords]), or the most of it, is:
// the pages a find of the whole passage matches; else those where the
// parts of it that are in the text are together; else those of its
// rarest part that is.
func (q *quoteRun) candidates(words []string) ([]connector.FoundPage, error) {
	whole := strings.Join(words, " ")
	if len(whole)+2 <= maxFind {
		f, err := q.find(`"` + whole + `"`)
		if err != nil {
			return nil, err
		}
		if len(f.Pages) > 0 {
			return first(f.Pages), nil
		}
	}
	chunks := chunk(words)
	f, err := q.find(phrases(chunks))
	if err != nil {
		return nil, err
	}
	if len(f.Pages) > 0 {
		return first(f.Pages), nil
	}
	counts := map[string]int{}
	for _, t := range f.Terms {
		counts[t.Term] = t.Matches
	}
	var present []string
	for _, c := range chunks {
		if counts[c] > 0 {
			present = append(present, c)
		}
	}
	if len(present) == 0 {
		return nil, nil
	}
	if len(present) < len(chunks) && len(present) > 1 {
		f, err := q.find(phrases(present))
		if err != nil {
			return nil, err
		}
		if len(f.Pages) > 0 {
			return first(f.Pages), nil
		}
	}
	sort.SliceStable(present, func(i, j int) bool { return counts[present[i]] < counts[present[j]] })
	f, err = q.find(phrases(present[:1]))
	if err != nil {
		return nil, err
	}
	return first(f.Pages), nil
}

func first(ps []connector.FoundPage) []connector.FoundPage {
	if len(ps) > maxCandidates {
		ps = ps[:maxCandidates]
	}
	return ps
}

// chunk splits the passage's words into at most maxTerms runs of about
// equal length that fit one find together.
func chunk(words []string) []string {
	n := min(maxTerms, max(1, len(words)/2))
	size := (len(words) + n - 1) / n
	// Each run is quoted and separated by a space: 3 bytes each.
	budget := maxFind/n - 3
	var out []string
	for i := 0; i < len(words); i += size {
		run := words[i:min(i+size, len(words))]
		c := strings.Join(run, " ")
		for len(c) > budget && len(run) > 1 {
			run = run[:len(run)-1]
			c = strings.Join(run, " ")
		}
		if len(c) <= budget {
			out = append(out, c)
		}
	}
	return out
}

// phrases is a find of each chunk as a quoted phrase.
func phrases(chunks []string) string {
	var b strings.Builder
	for i, c := range chunks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(`"` + c + `"`)
	}
	return b.String()
}

// hash gives ans the sha256 of the whole text, page by page, when it has
// at most MaxHashPages pages.
func (q *quoteRun) hash(ans *QuoteAnswer) error {
	if q.total == 0 {
		if _, err := q.page(1); err != nil {
			return err
		}
	}
	ans.Pages = q.total
	if q.total > MaxHashPages {
		return nil
	}
	h := sha256.New()
	for n := 1; n <= q.total; n++ {
		d, ok := q.pages[n]
		if !ok {
			var err error
			if d, err = q.s.document(q.ctx, q.info, q.p, map[string]any{q.p.IDArg: q.id, "page": n}); err != nil {
				return err
			}
			if n == 1 {
				q.pages[1] = d
			}
		}
		h.Write([]byte(d.Text))
		h.Write([]byte{'\n'})
	}
	ans.TextSHA256 = hex.EncodeToString(h.Sum(nil))
	return nil
}

// findWords are the words of s as a find compares them, folded
// (sdk.Fold), without quote characters (a find cannot look for those
// inside a phrase).
func findWords(s string) []string { return strings.Fields(strings.ReplaceAll(sdk.Fold(s), `"`, " ")) }

// normWords are the words of s as the quote check compares them: folded
// (sdk.Fold), without the punctuation around them and without quote
// characters, so that a passage copied without a comma still matches.
func normWords(s string) []string {
	var out []string
	for _, w := range strings.Fields(sdk.Fold(s)) {
		w = strings.ReplaceAll(w, `"`, "")
		if w = strings.Trim(w, ".,;:!?()[]{}'«»-"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// token is one word of a page: its place in the text and how it
// compares.
type token struct {
	start, end int
	norm       string
}

func tokens(text string) []token {
	var out []token
	i := 0
	for i < len(text) {
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		j := i
		for j < len(text) && !isSpace(text[j]) {
			j++
		}
		if j > i {
			if n := normWords(text[i:j]); len(n) > 0 {
				out = append(out, token{start: i, end: j, norm: strings.Join(n, " ")})
			}
		}
		i = j
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' }

// match is where on a page a passage is, or what is most like it.
type match struct {
	page                  connector.FoundPage
	exact                 bool
	score                 int // passage words in order in text
	text, sentence        string
	passageOnly, textOnly []string
}

// align places words on a page's text: exactly, with the sentence
// around them, or the window of the text with the most of them in
// order.
func align(text string, words []string) match {
	toks := tokens(text)
	n := len(words)
	for i := 0; i+n <= len(toks); i++ {
		ok := true
		for j := range n {
			if toks[i+j].norm != words[j] {
				ok = false
				break
			}
		}
		if ok {
			s, e := toks[i].start, toks[i+n-1].end
			return match{exact: true, score: n, text: text[s:e], sentence: sentence(text, s, e)}
		}
	}
	if len(toks) == 0 {
		return match{}
	}
	// Windows of the passage's length (and two words more) ranked by how
	// many of its words they hold, then the best few by words in order.
	want := map[string]int{}
	for _, w := range words {
		want[w]++
	}
	width := min(n+2, len(toks))
	type win struct{ at, bag int }
	var wins []win
	have := map[string]int{}
	bag := 0
	for i, t := range toks {
		if have[t.norm] < want[t.norm] {
			bag++
		}
		have[t.norm]++
		if i >= width {
			o := toks[i-width].norm
			have[o]--
			if have[o] < want[o] {
				bag--
			}
		}
		if i >= width-1 {
			wins = append(wins, win{at: i - width + 1, bag: bag})
		}
	}
	sort.SliceStable(wins, func(i, j int) bool { return wins[i].bag > wins[j].bag })
	// Of windows as good, the one whose match spans the fewest words.
	best, bestSpan := match{}, 0
	for _, w := range wins[:min(20, len(wins))] {
		seg := toks[w.at : w.at+width]
		score, pi, ti := lcs(words, seg)
		lo, hi := ti[0], ti[len(ti)-1]
		if score == 0 || score < best.score || score == best.score && hi-lo >= bestSpan {
			continue
		}
		bestSpan = hi - lo
		best = match{score: score, text: strings.Join(strings.Fields(text[seg[lo].start:seg[hi].end]), " ")}
		best.passageOnly, best.textOnly = nil, nil
		for k, w := range words {
			if !pi[k] {
				best.passageOnly = append(best.passageOnly, w)
			}
		}
		inLCS := map[int]bool{}
		for _, k := range ti {
			inLCS[k] = true
		}
		for k := lo; k <= hi; k++ {
			if !inLCS[k] {
				best.textOnly = append(best.textOnly, seg[k].norm)
			}
		}
	}
	return best
}

// lcs is the longest common subsequence of words and seg's words: its
// length, which words are in it, and the indexes in seg it uses.
func lcs(words []string, seg []token) (int, []bool, []int) {
	n, m := len(words), len(seg)
	d := make([][]int, n+1)
	for i := range d {
		d[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if words[i] == seg[j].norm {
				d[i][j] = d[i+1][j+1] + 1
			} else {
				d[i][j] = max(d[i+1][j], d[i][j+1])
			}
		}
	}
	in := make([]bool, n)
	var at []int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case words[i] == seg[j].norm:
			in[i] = true
			at = append(at, j)
			i++
			j++
		case d[i+1][j] >= d[i][j+1]:
			i++
		default:
			j++
		}
	}
	if len(at) == 0 {
		return 0, in, []int{0}
	}
	return d[0][0], in, at
}

// sentence is the sentence (or sentences) of text holding text[s:e]: from
// the end of the sentence before to the end of the last, white space
// collapsed, at most maxSentence bytes around the passage.
func sentence(text string, s, e int) string {
	a := s
	for a > 0 && s-a < maxSentence/2 {
		c := text[a-1]
		if (c == '.' || c == '!' || c == '?') && a < len(text) && isSpace(text[a]) || c == '\n' && a >= 2 && text[a-2] == '\n' {
			break
		}
		a--
	}
	b := e
	c := text[e-1]
	ends := c == '.' || c == '!' || c == '?' // the passage ends its sentence
	for !ends && b < len(text) && b-e < maxSentence/2 {
		c := text[b]
		b++
		if (c == '.' || c == '!' || c == '?') && (b == len(text) || isSpace(text[b])) || c == '\n' && b < len(text) && text[b] == '\n' {
			break
		}
	}
	for a < s && text[a]&0xC0 == 0x80 {
		a++
	}
	for b > e && b < len(text) && text[b]&0xC0 == 0x80 {
		b--
	}
	out := strings.Join(strings.Fields(text[a:b]), " ")
	if a > 0 && s-a >= maxSentence/2 {
		out = "…" + out
	}
	if b < len(text) && b-e >= maxSentence/2 {
		out += "…"
	}
	return out
}

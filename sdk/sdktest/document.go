package sdktest

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// ReadDocument reads a document tool's pages one by one, from page 1 to
// the last page the first one announces, as a reader would, and returns
// them. args gives the tool's arguments for a page. It fails the test when
// a page is a tool error, carries another page number or page count, holds
// more than sdk.TextPageSize bytes, or differs from page 1 in anything but
// its number and text (title, date, extra: the head a connector keeps with
// its text).
func ReadDocument(t testing.TB, c connector.Connector, h connector.Host, tool string, args func(page int) string) []sdk.Document {
	t.Helper()
	var docs []sdk.Document
	pages := 1
	for n := 1; n <= pages; n++ {
		var d sdk.Document
		Decode(t, Call(t, c, h, tool, args(n)), &d)
		if n == 1 {
			pages = d.Pages
		}
		if d.Page != n || d.Pages != pages || len(d.Text) > sdk.TextPageSize {
			t.Fatalf("sdktest: page %d: page %d of %d, %d bytes (page 1 said %d pages)", n, d.Page, d.Pages, len(d.Text), pages)
		}
		if len(docs) > 0 && !reflect.DeepEqual(headOf(docs[0]), headOf(d)) {
			a, _ := json.Marshal(headOf(docs[0]))
			b, _ := json.Marshal(headOf(d))
			t.Fatalf("sdktest: page %d's head differs from page 1's:\n page 1: %s\n page %d: %s", n, a, n, b)
		}
		docs = append(docs, d)
	}
	return docs
}

// headOf is a page without its number and text.
func headOf(d sdk.Document) sdk.Document {
	d.Page, d.Text = 0, ""
	return d
}

// MaxFindResult is the most a document tool's answer to a find may
// weigh: bytes of its JSON, the whole document result.
const MaxFindResult = 30_000

// CheckFind calls a document tool with arguments holding a find and
// checks the answer every connector's must give: a document result of at
// most MaxFindResult bytes, without a page, its text a summary, Find set
// with the argument's terms; the pages that match listed in order,
// within the document, each with a match or more, at most
// sdk.MaxSnippetsPerPage snippets, each snippet holding one of the terms
// (folded); a page of the original and its link agreeing (the link ends
// in #page=N); and the matches in all at least those of the pages
// listed. It returns the document.
func CheckFind(t testing.TB, c connector.Connector, h connector.Host, tool, args string) sdk.Document {
	t.Helper()
	var in struct {
		Find string `json:"find"`
	}
	if err := json.Unmarshal([]byte(args), &in); err != nil || in.Find == "" {
		t.Fatalf("sdktest: CheckFind: arguments %s hold no find (%v)", args, err)
	}
	terms, err := sdk.FindTerms(in.Find)
	if err != nil {
		t.Fatalf("sdktest: CheckFind: %v", err)
	}
	res := Call(t, c, h, tool, args)
	if len(res.Text) > MaxFindResult {
		t.Errorf("sdktest: %s(%s): %d bytes, at most %d", tool, args, len(res.Text), MaxFindResult)
	}
	var d sdk.Document
	Decode(t, res, &d)
	f := d.Find
	if f == nil || d.Page != 0 || d.Pages < 1 || strings.TrimSpace(d.Text) == "" {
		t.Fatalf("sdktest: %s(%s): not the answer to a find: page %d of %d, text %q, find %v", tool, args, d.Page, d.Pages, d.Text, f)
	}
	if f.Query != in.Find || len(f.Terms) != len(terms) {
		t.Errorf("sdktest: %s(%s): query %q, terms %+v; want %q, %q", tool, args, f.Query, f.Terms, in.Find, terms)
	}
	for i := range min(len(f.Terms), len(terms)) {
		if f.Terms[i].Term != terms[i] || f.Terms[i].Matches < 0 {
			t.Errorf("sdktest: %s(%s): term %d is %+v, want %q", tool, args, i, f.Terms[i], terms[i])
		}
	}
	if len(f.Pages) > f.PagesMatched || len(f.Pages) < f.PagesMatched && !f.Truncated || f.PagesMatched > d.Pages {
		t.Errorf("sdktest: %s(%s): %d pages listed of %d matched (truncated %v), the document has %d", tool, args, len(f.Pages), f.PagesMatched, f.Truncated, d.Pages)
	}
	sum, last := 0, 0
	for _, p := range f.Pages {
		if p.Page <= last || p.Page > d.Pages || p.Matches < 1 || len(p.Snippets) > sdk.MaxSnippetsPerPage {
			t.Errorf("sdktest: %s(%s): page %+v (after page %d of %d)", tool, args, p, last, d.Pages)
		}
		checkLink(t, p.SourcePage, p.Link)
		last = p.Page
		sum += p.Matches
		for _, s := range p.Snippets {
			checkLink(t, s.SourcePage, s.Link)
			folded, held := sdk.Fold(s.Text), false
			for _, term := range terms {
				held = held || strings.Contains(folded, term)
			}
			if !held {
				t.Errorf("sdktest: %s(%s): page %d's snippet %q holds none of %q", tool, args, p.Page, s.Text, terms)
			}
		}
	}
	if f.Matches < sum {
		t.Errorf("sdktest: %s(%s): %d matches in all, the pages listed hold %d", tool, args, f.Matches, sum)
	}
	return d
}

func checkLink(t testing.TB, page int, link string) {
	t.Helper()
	if link != "" && (page < 1 || !strings.HasSuffix(link, "#page="+strconv.Itoa(page))) {
		t.Errorf("sdktest: link %q for page %d of the original", link, page)
	}
}

// Recorder is a host that counts what a connector asked of it: a *Host,
// or a host wrapping one (answering some fetches itself).
type Recorder interface {
	connector.Host
	Requests() []connector.FetchRequest
	TextsKept() int
	TextPagesServed() int
}

// FindAfterRead reads page 1 of a document (readArgs), then finds in it
// (findArgs, checked by [CheckFind]), as a reader does: the find must
// answer from the text the read kept, extracting nothing and fetching
// nothing of class document (a connector may ask again for what the host
// caches, such as metadata), reading every kept page once. It returns
// the first page and the find's answer.
func FindAfterRead(t testing.TB, c connector.Connector, h Recorder, tool, readArgs, findArgs string) (first, found sdk.Document) {
	t.Helper()
	Decode(t, Call(t, c, h, tool, readArgs), &first)
	kept, served, reqs := h.TextsKept(), h.TextPagesServed(), len(h.Requests())
	if kept == 0 {
		t.Fatalf("sdktest: %s(%s) kept no text", tool, readArgs)
	}
	found = CheckFind(t, c, h, tool, findArgs)
	if n := h.TextsKept() - kept; n != 0 {
		t.Errorf("sdktest: the find extracted the document again (%d texts kept)", n)
	}
	for _, r := range h.Requests()[reqs:] {
		if r.CacheClass == connector.ClassDocument {
			t.Errorf("sdktest: the find fetched %s (class document) after the text was kept", r.URL)
		}
	}
	if n := h.TextPagesServed() - served; n < first.Pages {
		t.Errorf("sdktest: the find read %d kept pages, the document has %d", n, first.Pages)
	}
	if found.Pages != first.Pages || found.Title != first.Title || found.URL != first.URL {
		t.Errorf("sdktest: the find's document (%q, %d pages, %s) is not the page's (%q, %d pages, %s)", found.Title, found.Pages, found.URL, first.Title, first.Pages, first.URL)
	}
	return first, found
}

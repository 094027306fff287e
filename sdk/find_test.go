package sdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

func TestFindTerms(t *testing.T) {
	for in, want := range map[string][]string{
		`klimaat`:                           {"klimaat"},
		`  Stikstof,  Schiphol! `:           {"stikstof", "schiphol"},
		`"Raad van State" advies`:           {"raad van state", "advies"},
		`“één  café” reünie`:                {"een cafe", "reunie"},
		`motie"vreemd" motie`:               {"motie", "vreemd"},
		`"open phrase`:                      {"open phrase"},
		`auto’s (art. 2.1)`:                 {"auto's", "art.", "2.1"},
		`"Wet open overheid" "Woo" wet woo`: {"wet open overheid", "woo", "wet"},
	} {
		got, err := sdk.FindTerms(in)
		if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("FindTerms(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "   ", `""`, `" "`, ",;", "a b c d e f g h i", strings.Repeat("x", sdk.MaxFindBytes+1)} {
		if _, err := sdk.FindTerms(bad); err == nil || !strings.HasPrefix(err.Error(), `argument "find"`) {
			t.Errorf("FindTerms(%q): %v", bad, err)
		}
	}
}

// pdfText is a text of about 1.2 MB marking the pages of its PDF as
// tk's extraction does ("[page n]"), with a phrase on PDF page 300 only.
func pdfText() string {
	var b strings.Builder
	for n := 1; b.Len() < 1_200_000; n++ {
		fmt.Fprintf(&b, "[page %d]\n", n)
		for i := range 20 {
			if n == 300 && i == 7 {
				b.WriteString("Hier staat de gezochte zin: een reële coördinatie vóór de reünie.\n")
			}
			fmt.Fprintf(&b, "Paragraaf %d.%d van het verslag over de financiën van de gemeente.\n", n, i)
		}
		b.WriteString("\n")
	}
	return b.String()
}

type pdfHead struct {
	Kind string `json:"kind"`
	URL  string `json:"url"`
}

func pdfMarks(h pdfHead) sdk.PageMarks {
	if h.Kind != "pdf" {
		return sdk.PageMarks{}
	}
	return sdk.PageMarks{Prefix: "[page ", File: h.URL}
}

func TestFindTextAfterReadingAPage(t *testing.T) {
	h := sdktest.NewHost(t)
	text := pdfText()
	extracts := 0
	extract := func(context.Context) (pdfHead, string, error) {
		extracts++
		return pdfHead{Kind: "pdf", URL: "https://x/doc.pdf"}, text, nil
	}
	ctx := context.Background()
	first, err := sdk.PagedText(ctx, h, "https://x/doc", connector.ClassDocument, 1, extract)
	if err != nil {
		t.Fatal(err)
	}
	served := h.TextPagesServed()
	// Accents, case and the line break folded away.
	got, err := sdk.FindText(ctx, h, "https://x/doc", connector.ClassDocument, `"REELE coordinatie voor de reunie"`, pdfMarks, extract)
	if err != nil {
		t.Fatal(err)
	}
	if extracts != 1 {
		t.Errorf("%d extractions, want 1: the find did not read the kept text", extracts)
	}
	if n := h.TextPagesServed() - served; n != first.Pages {
		t.Errorf("the find read %d kept pages, the text has %d", n, first.Pages)
	}
	f := got.Found
	if f == nil || got.Page != 0 || got.Pages != first.Pages || got.Head.URL != "https://x/doc.pdf" {
		t.Fatalf("find: %+v", got)
	}
	if f.Matches != 1 || f.PagesMatched != 1 || len(f.Pages) != 1 || len(f.Pages[0].Snippets) != 1 {
		t.Fatalf("find: %+v", f)
	}
	p := f.Pages[0]
	page, err := sdk.PagedText(ctx, h, "https://x/doc", connector.ClassDocument, p.Page, extract)
	if err != nil || !strings.Contains(page.Text, "een reële coördinatie vóór de reünie") {
		t.Errorf("page %d does not hold the phrase (%v)", p.Page, err)
	}
	sn := p.Snippets[0]
	if p.SourcePage != 300 || sn.SourcePage != 300 || p.Link != "https://x/doc.pdf#page=300" || sn.Link != p.Link {
		t.Errorf("page %+v", p)
	}
	if !strings.Contains(sn.Text, "gezochte zin: een reële coördinatie vóór de reünie.") || !strings.HasPrefix(sn.Text, "…") || !strings.HasSuffix(sn.Text, "…") ||
		len(sn.Text) > 2*sdk.SnippetContext+120 || strings.Contains(sn.Text, "\n") {
		t.Errorf("snippet %q", sn.Text)
	}
	if !strings.Contains(got.Text, fmt.Sprintf("on 1 of %d page(s): %d.", first.Pages, p.Page)) {
		t.Errorf("summary %q", got.Text)
	}
}

// A find of a word on every page: every page listed, and the answer, in
// a document result, stays under 30 KB.
func TestFindTextStaysSmall(t *testing.T) {
	h := sdktest.NewHost(t)
	text := pdfText()
	extract := func(context.Context) (pdfHead, string, error) {
		return pdfHead{Kind: "pdf", URL: "https://x/doc.pdf"}, text, nil
	}
	ctx := context.Background()
	for _, find := range []string{"financien", "paragraaf gemeente", "e"} {
		got, err := sdk.FindText(ctx, h, "https://x/doc", connector.ClassDocument, find, pdfMarks, extract)
		if err != nil {
			t.Fatal(err)
		}
		f := got.Found
		res, err := sdk.Result(sdk.Document{Platform: "x", ID: "doc", Title: "Verslag", Format: "text", Pages: got.Pages, Text: got.Text, Find: f})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Text) > 30_000 {
			t.Errorf("find %q: %d bytes", find, len(res.Text))
		}
		if f.PagesMatched != got.Pages || f.Matches < got.Pages || len(f.Pages) == 0 {
			t.Errorf("find %q: %d matches on %d of %d pages, %d listed", find, f.Matches, f.PagesMatched, got.Pages, len(f.Pages))
		}
		if len(f.Pages) < f.PagesMatched && !f.Truncated {
			t.Errorf("find %q: %d of %d pages listed, not marked truncated", find, len(f.Pages), f.PagesMatched)
		}
		for i, p := range f.Pages {
			if p.Page != i+1 || p.Matches < 1 || len(p.Snippets) > sdk.MaxSnippetsPerPage {
				t.Fatalf("find %q: page %+v at %d", find, p, i)
			}
		}
		if len(f.Pages[0].Snippets) == 0 {
			t.Errorf("find %q: no snippet on the first page", find)
		}
		t.Logf("find %q: %d matches, %d pages listed, %d bytes", find, f.Matches, len(f.Pages), len(res.Text))
	}
}

// Without a kept text (a host that keeps none, or the text was evicted),
// a find extracts once and keeps the text for the pages read after it.
func TestFindTextExtractsWhenNothingIsKept(t *testing.T) {
	h := sdktest.NewHost(t)
	extracts := 0
	extract := func(context.Context) (pdfHead, string, error) {
		extracts++
		return pdfHead{}, strings.Repeat("Eerste alinea.\n", 3000) + "Een zin die over de grens van twee\npagina's loopt.\n" + strings.Repeat("Alinea.\n", 3000), nil
	}
	ctx := context.Background()
	got, err := sdk.FindText(ctx, h, "k", connector.ClassDocument, `"grens van twee pagina's"`, nil, extract)
	if err != nil || got.Found.PagesMatched != 1 || extracts != 1 || h.TextsKept() != 1 {
		t.Fatalf("%+v %v, %d extractions", got.Found, err, extracts)
	}
	if _, err := sdk.PagedText(ctx, h, "k", connector.ClassDocument, 2, extract); err != nil || extracts != 1 {
		t.Errorf("page 2 after the find: %v, %d extractions", err, extracts)
	}
	h.ForgetTexts()
	if got, err = sdk.FindText(ctx, h, "k", connector.ClassDocument, "alinea", nil, extract); err != nil || extracts != 2 || got.Found.Matches != 6000 {
		t.Errorf("after the text was forgotten: %+v %v, %d extractions", got.Found, err, extracts)
	}
}

// A phrase cut by a page boundary is found once, on the page it starts
// on.
func TestFindTextAcrossPages(t *testing.T) {
	h := sdktest.NewHost(t)
	first := strings.Repeat("x", sdk.TextPageSize-10) + " Raad van" // no line break: cut at the page's size
	text := first + " State adviseert."
	extract := func(context.Context) (pdfHead, string, error) { return pdfHead{}, text, nil }
	got, err := sdk.FindText(context.Background(), h, "k", connector.ClassDocument, `"raad van state"`, nil, extract)
	if err != nil || got.Pages != 2 || got.Found.Matches != 1 || len(got.Found.Pages) != 1 || got.Found.Pages[0].Page != 1 {
		b, _ := json.Marshal(got.Found)
		t.Fatalf("%d pages: %s %v", got.Pages, b, err)
	}
	if sn := got.Found.Pages[0].Snippets[0].Text; !strings.HasSuffix(sn, "Raad van State adviseert.") {
		t.Errorf("snippet %q", sn)
	}
}

// Every term on one page: a page with only some does not match, and the
// terms' own counts say where the find fell short.
func TestFindTextEveryTerm(t *testing.T) {
	h := sdktest.NewHost(t)
	text := "stikstof en Schiphol\n" + strings.Repeat("y ", sdk.TextPageSize) + "\nstikstof alleen"
	extract := func(context.Context) (pdfHead, string, error) { return pdfHead{}, text, nil }
	ctx := context.Background()
	got, err := sdk.FindText(ctx, h, "k", connector.ClassDocument, "stikstof schiphol", nil, extract)
	if err != nil || got.Found.PagesMatched != 1 || got.Found.Matches != 2 || got.Found.Terms[0].Matches != 2 || got.Found.Terms[1].Matches != 1 {
		t.Fatalf("%+v %v", got.Found, err)
	}
	got, err = sdk.FindText(ctx, h, "k", connector.ClassDocument, "alleen schiphol", nil, extract)
	if err != nil || got.Found.PagesMatched != 0 || len(got.Found.Pages) != 0 || !strings.Contains(got.Text, `"alleen" 1×, "schiphol" 1×`) {
		t.Fatalf("%+v %q %v", got.Found, got.Text, err)
	}
}

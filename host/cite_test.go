package host_test

// Citations anyone can check (issue 30), through MCP with the seven
// WebAssembly connectors against the platform simulator: every search
// result carries its citation; besluitbron_cite's CSL-JSON passes the CSL
// input schema and its BibTeX and RIS are read back by citation-js's
// parsers (scripts/cite-deps.sh installs them), for every connector's
// results and through the pages' Citeer link; besluitbron_check_quote
// places a passage of page 40 of a long kept document and reports a
// passage altered by one word as not there, with the closest passage,
// and neither asks the platform anything.

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/besluitbron/besluitbron/host/internal/serve/cite"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sdk"
)

// citedItem is a search result as the tests read it.
type citedItem struct {
	ID    string     `json:"id"`
	Title string     `json:"title"`
	Cite  *cite.Cite `json:"cite"`
}

// citeRef is a document for besluitbron_cite.
type citeRef struct {
	Platform string `json:"platform"`
	ID       string `json:"id"`
}

// structured decodes a call's structured result into v, failing on an
// error.
func structured(t *testing.T, r callResult, what string, v any) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("%s: %v", what, r.err)
	}
	if r.res.IsError {
		t.Fatalf("%s: tool error: %s", what, resultText(r.res))
	}
	b, _ := json.Marshal(r.res.StructuredContent)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v: %s", what, err, clipText(string(b), 300))
	}
}

// citeRE is a cite as the results carry it, for measuring its bytes.
var citeRE = regexp.MustCompile(`,"cite":\{"text":"(?:[^"\\]|\\.)*","retrieved":"[0-9-]{10}"\}`)

// TestCitationsForEveryConnector: every connector's search results carry
// cite (a citation and the day it was retrieved), and so do
// besluitbron_search's; besluitbron_cite exports them as CSL-JSON valid
// against the CSL schema and as BibTeX and RIS that citation-js reads
// back, entry for entry, title for title, without a platform request;
// the Citeer link serves the same as a file.
func TestCitationsForEveryConnector(t *testing.T) {
	if proofRace() || testing.Short() {
		t.Skip("loads the seven connectors and runs node")
	}
	parsers := citeParsers(t)
	schema := cslDataSchema(t)
	sim, simURL := proofSim(t)
	_, base, _ := proofHost(t, proofConfig(t, simURL, t.TempDir(), ""))
	c := newProofClient(t, base, "citer")
	defer c.close()
	ctx := context.Background()
	today := cite.Day(time.Now())

	var refs []citeRef
	var citeBytes, cites int
	for _, id := range proofPlatforms {
		var items []citedItem
		for i := 0; i < len(proofWords) && len(items) == 0; i++ {
			tool, args := proofSearch(id, i)
			var sr struct {
				Results []citedItem `json:"results"`
			}
			r := c.call(ctx, id, tool, args)
			structured(t, r, tool, &sr)
			items = sr.Results
			for _, m := range citeRE.FindAllString(resultText(r.res), -1) {
				citeBytes += len(m)
				cites++
			}
		}
		if len(items) == 0 {
			t.Errorf("%s: no search of the simulator found anything", id)
			continue
		}
		for _, it := range items {
			if it.Cite == nil || it.Cite.Text == "" || it.Cite.Retrieved != today {
				t.Errorf("%s result %s: cite %+v, want a citation retrieved %s", id, it.ID, it.Cite, today)
			}
		}
		t.Logf("%-15s %s", id, items[0].Cite.Text)
		for _, it := range items[:min(3, len(items))] {
			refs = append(refs, citeRef{Platform: id, ID: it.ID})
		}
	}
	if cites > 0 {
		t.Logf("%d cites on the connectors' results, %d bytes each on average", cites, citeBytes/cites)
	}

	var cross struct {
		Sections []struct {
			Platform string      `json:"platform"`
			Results  []citedItem `json:"results"`
		} `json:"platforms"`
	}
	structured(t, c.call(ctx, "", "besluitbron_search", map[string]any{"query": "woningbouw"}), "besluitbron_search", &cross)
	n := 0
	for _, s := range cross.Sections {
		for _, it := range s.Results {
			n++
			if it.Cite == nil || it.Cite.Text == "" || it.Cite.Retrieved != today {
				t.Errorf("besluitbron_search %s %s: cite %+v", s.Platform, it.ID, it.Cite)
			}
		}
	}
	if n == 0 {
		t.Error("besluitbron_search found nothing to cite")
	}

	// The results just seen are cited from what they said: no request.
	before := upstreamRequests(sim)
	exports := map[string]string{}
	for _, f := range cite.Formats() {
		r := c.call(ctx, "", "besluitbron_cite", map[string]any{"format": f, "documents": refs})
		var st struct {
			Format string `json:"format"`
			Count  int    `json:"count"`
			Export string `json:"export"`
		}
		structured(t, r, "besluitbron_cite "+f, &st)
		if st.Count != len(refs) || st.Export != resultText(r.res) {
			t.Errorf("%s: count %d of %d; the text is the export: %v", f, st.Count, len(refs), st.Export == resultText(r.res))
		}
		exports[f] = st.Export
		t.Logf("%s: %d documents, %d bytes (%d a document)", f, len(refs), len(st.Export), len(st.Export)/len(refs))
	}
	if n := upstreamRequests(sim) - before; n != 0 {
		t.Errorf("besluitbron_cite made %d platform requests for results just searched, want 0", n)
	}
	titles := checkCSL(t, schema, []byte(exports[cite.FormatCSLJSON]), len(refs))
	for _, f := range []string{cite.FormatBibTeX, cite.FormatRIS} {
		checkParsed(t, parsers, f, exports[f], titles)
	}

	// The Citeer link: one document of each platform, each format, as a
	// file.
	for i, ref := range refs {
		if i > 0 && refs[i-1].Platform == ref.Platform {
			continue
		}
		for _, f := range cite.Formats() {
			body, ctype, disp := getCite(t, base, ref, f)
			if !strings.Contains(disp, "attachment") || ctype == "" {
				t.Errorf("/cite %s %s: Content-Type %q, Content-Disposition %q", ref.Platform, f, ctype, disp)
			}
			switch f {
			case cite.FormatCSLJSON:
				checkCSL(t, schema, body, 1)
			default:
				checkParsed(t, parsers, f, string(body), nil)
			}
		}
	}
	if resp, err := http.Get(base + "/cite?p=nowhere&id=x"); err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("/cite of an unknown platform: %v %v", resp.Status, err)
	} else {
		resp.Body.Close()
	}
}

// getCite downloads a Citeer link.
func getCite(t *testing.T, base string, ref citeRef, format string) (body []byte, ctype, disp string) {
	t.Helper()
	resp, err := http.Get(base + "/cite?" + url.Values{"p": {ref.Platform}, "id": {ref.ID}, "format": {format}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/cite %s %s %s: %s: %s", ref.Platform, ref.ID, format, resp.Status, body)
	}
	return body, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition")
}

// checkCSL validates a CSL-JSON export against the CSL input schema and
// returns its titles, white space collapsed.
func checkCSL(t *testing.T, schema *jsonschema.Resolved, b []byte, want int) []string {
	t.Helper()
	var v []any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("CSL-JSON: %v", err)
	}
	if err := schema.Validate(v); err != nil {
		t.Errorf("CSL-JSON fails the CSL schema: %v", err)
	}
	if len(v) != want {
		t.Errorf("CSL-JSON has %d items, want %d", len(v), want)
	}
	var titles []string
	for _, it := range v {
		title, _ := it.(map[string]any)["title"].(string)
		titles = append(titles, strings.Join(strings.Fields(title), " "))
	}
	return titles
}

// checkParsed reads a BibTeX or RIS export with citation-js and checks
// that it reads every entry, with the titles given (nil: one entry, any
// title), and warns of nothing.
func checkParsed(t *testing.T, dir, format, text string, titles []string) {
	t.Helper()
	cmd := exec.Command("node", filepath.Join(dir, "parse.mjs"), format)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(text)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("citation-js cannot read the %s: %v\n%s\n%s", format, err, errb.String(), clipText(text, 2000))
	}
	var got struct {
		Items []struct {
			Title string `json:"title"`
			URL   string `json:"URL"`
		} `json:"items"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%s: parser output: %v", format, err)
	}
	if len(got.Warnings) > 0 {
		t.Errorf("%s: citation-js warned: %q", format, got.Warnings)
	}
	want := len(titles)
	if titles == nil {
		want = 1
	}
	if len(got.Items) != want {
		t.Fatalf("%s: citation-js read %d entries, want %d:\n%s", format, len(got.Items), want, clipText(text, 2000))
	}
	for i, title := range titles {
		if g := strings.Join(strings.Fields(got.Items[i].Title), " "); g != title {
			t.Errorf("%s entry %d: title %q, want %q", format, i, g, title)
		}
	}
}

// citeParsers installs citation-js's parsers (scripts/cite-deps.sh) and
// returns their folder. Without node and npm the test cannot read the
// exports: it fails on CI, where they are installed, and skips elsewhere.
func citeParsers(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("BESLUITBRON_CITE_PARSERS_DIR"); dir != "" {
		return dir
	}
	for _, bin := range []string{"node", "npm"} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is missing: the citation tests read the exports with citation-js", bin)
			}
			t.Skipf("%s is missing: scripts/cite-deps.sh needs node and npm", bin)
		}
	}
	cmd := exec.Command("bash", filepath.Join(wasmbuild.Root(), "scripts", "cite-deps.sh"))
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/cite-deps.sh: %v\n%s", err, errb.String())
	}
	return strings.TrimSpace(string(out))
}

// cslDataSchema is the CSL input schema the serve/cite tests vendor.
func cslDataSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("internal", "serve", "cite", "testdata", "csl-data.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// quoteAnswer is besluitbron_check_quote's answer as the test reads it.
type quoteAnswer = cite.QuoteAnswer

// checkQuote calls besluitbron_check_quote.
func checkQuote(t *testing.T, c *proofClient, d platformsim.LongDocument, passage, sha string) quoteAnswer {
	t.Helper()
	args := map[string]any{"platform": d.Platform, "id": d.ID, "passage": passage}
	if sha != "" {
		args["sha256"] = sha
	}
	var a quoteAnswer
	structured(t, c.call(context.Background(), "", "besluitbron_check_quote", args), "besluitbron_check_quote", &a)
	return a
}

// TestCheckQuoteOnPage40: with the long Kamerstuk PDF's text kept (page 1
// read), a passage of page 40 (two lines of the PDF's text, accents
// dropped and in capitals, as a reader might copy it) is found on page 40
// with the sentence around it; the same passage with one word altered is
// not found, and the closest passage is page 40's, naming the word; a
// sha256 tells the same text from a changed one; and none of it makes a
// platform request.
func TestCheckQuoteOnPage40(t *testing.T) {
	if proofRace() || testing.Short() {
		t.Skip("extracts a 1.3 MB PDF in WebAssembly")
	}
	sim, simURL := proofSim(t)
	_, base, _ := proofHost(t, proofConfig(t, simURL, t.TempDir(), ""))
	c := newProofClient(t, base, "quoter")
	defer c.close()
	d := longTKPDF(t)
	if first := readPage(t, c, d, 1); first.Pages < 40 {
		t.Fatalf("the document has %d pages; the test wants page 40", first.Pages)
	}
	p40 := readPage(t, c, d, 40)
	before := upstreamRequests(sim)

	// A passage only page 40 holds: two lines, some 14 words.
	var passage string
	lines := strings.Split(strings.TrimSpace(p40.Text), "\n")
	for i := len(lines) / 3; i+1 < len(lines) && passage == ""; i++ {
		ws := strings.Fields(lines[i] + " " + lines[i+1])
		if len(ws) < 12 || strings.ContainsAny(lines[i]+lines[i+1], "[]\"") {
			continue
		}
		p := strings.Join(ws[:14], " ")
		doc, _ := find(t, c, d, `"`+sdk.Fold(p)+`"`)
		if doc.Find.PagesMatched == 1 && doc.Find.Pages[0].Page == 40 {
			passage = p
		}
	}
	if passage == "" {
		t.Fatal("page 40 has no passage of two lines that only it holds")
	}
	typed := strings.ToUpper(sdk.Fold(passage))
	start := time.Now()
	a := checkQuote(t, c, d, typed, "")
	took := time.Since(start)
	if !a.Found || a.Page != 40 || a.Closest != nil {
		t.Fatalf("passage %q: %+v, want found on page 40", typed, a)
	}
	if !strings.Contains(strings.Join(strings.Fields(a.Sentence), " "), passage) || len(a.TextSHA256) != 64 || a.Cite == nil {
		t.Errorf("sentence %q lacks %q, or no sha256 (%q) or cite (%+v)", a.Sentence, passage, a.TextSHA256, a.Cite)
	}
	t.Logf("found on page %d (PDF page %d) in %v: %s", a.Page, a.SourcePage, took.Round(time.Millisecond), clipText(a.Sentence, 200))

	// One word altered: the seventh becomes another.
	ws := strings.Fields(passage)
	altered := append([]string(nil), ws...)
	altered[6] = "xylofoonconcert"
	b := checkQuote(t, c, d, strings.Join(altered, " "), a.TextSHA256)
	if b.Found || b.Closest == nil || b.Closest.Page != 40 {
		t.Fatalf("altered passage: %+v, want not found, the closest on page 40", b)
	}
	if strings.Join(b.Closest.PassageOnly, " ") != "xylofoonconcert" || len(b.Closest.TextOnly) != 1 || b.Closest.TextOnly[0] != sdk.Fold(strings.Trim(ws[6], ".,;:!?()")) {
		t.Errorf("closest %+v: want it to name xylofoonconcert against %q", b.Closest, ws[6])
	}
	if !strings.Contains(b.Closest.Text, ws[0]) || b.Changed == nil || *b.Changed {
		t.Errorf("closest text %q lacks %q, or the text reads as changed (%v)", b.Closest.Text, ws[0], b.Changed)
	}
	t.Logf("altered: %s closest %q (similarity %.3f)", b.Verdict, clipText(b.Closest.Text, 120), b.Closest.Similarity)

	// Another sha256: the text changed since, not the quote.
	if c := checkQuote(t, c, d, passage, strings.Repeat("0", 64)); c.Changed == nil || !*c.Changed {
		t.Errorf("a different sha256: changed %v", c.Changed)
	}
	if n := upstreamRequests(sim) - before; n != 0 {
		t.Errorf("the quote checks made %d platform requests, want 0", n)
	}
	// Bad input is named.
	r := c.call(context.Background(), "", "besluitbron_check_quote", map[string]any{"platform": d.Platform, "id": d.ID, "passage": "één"})
	if r.err != nil || !r.res.IsError || !strings.Contains(resultText(r.res), "two words") {
		t.Errorf("a one-word passage: %v %s", r.err, resultText(r.res))
	}
}

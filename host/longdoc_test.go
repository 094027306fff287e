package host_test

// Long documents read as a user reads them: page by page through MCP, with
// the real WebAssembly connectors, against the platform simulator's
// generated documents of every platform's format (PDF, XML, HTML, JSON).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/platformsim"
)

// page is the part of a get_document result these tests read.
type page struct {
	Page  int    `json:"page"`
	Pages int    `json:"pages"`
	Text  string `json:"text"`
}

// readPage calls the document tool for page n and decodes the result,
// failing the test on a tool or protocol error (a trapped instance is one).
func readPage(t *testing.T, c *proofClient, d platformsim.LongDocument, n int) page {
	t.Helper()
	r := c.call(context.Background(), d.Platform, d.Platform+"_get_document", map[string]any{d.Arg: d.ID, "page": n})
	if r.err != nil {
		t.Fatalf("%s page %d: %v", d.ID, n, r.err)
	}
	if r.res.IsError {
		t.Fatalf("%s page %d: tool error: %s", d.ID, n, resultText(r.res))
	}
	var p page
	b, _ := json.Marshal(r.res.StructuredContent)
	if err := json.Unmarshal(b, &p); err != nil || p.Page != n || p.Pages < 1 {
		t.Fatalf("%s page %d: result %s… (%v)", d.ID, n, clipText(string(b), 200), err)
	}
	return p
}

func clipText(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// scrape reads one sample from /metrics (0 when absent).
func scrape(t *testing.T, base, name string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(regexp.QuoteMeta(name) + ` (\S+)`).FindSubmatch(body)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v
}

// memSlack is how much an instance's memory may grow after its second
// call while its heap settles (a collection has not run yet): a megabyte
// or two, once. Growth call over call (before the guest let its collector
// finish, 17 MB a call until the trap) fails the tests.
const memSlack = 2 << 20

// upstreamRequests is the simulator's request count over the given
// platforms (keys of Stats.Platforms; all of them when none are given).
func upstreamRequests(sim *platformsim.Sim, ids ...string) int64 {
	var n int64
	for id, p := range sim.Stats().Platforms {
		if len(ids) == 0 || slices.Contains(ids, id) {
			n += p.Requests
		}
	}
	return n
}

// longDocGroups are the platforms whose long documents one test reads in
// turn, each group beside the others (t.Parallel): a group's platforms
// and the simulator hosts they fetch from are its own, so its request
// counts, kept texts and instance memory are too. tk and obk share one
// (both fetch from the simulator's zoek host).
var longDocGroups = [][]string{{"obv"}, {"ori"}, {"tk", "obk", platformsim.Zoek}, {"opentk"}, {"rechtspraak"}, {"openarchivaris"}}

// TestLongDocumentsReadToTheEnd: every connector reads its generated
// document of 1.3 MB, and one connector of each format (JSON, PDF, XML,
// HTML) its 5 MB one, to its last page, with the
// platform's real format: the start and end phrases arrive with their
// Dutch characters, no instance traps, the document is extracted once and
// fetched from the platform once, and a connector's instance memory does
// not grow from page to page (the memory limit is the one the config
// ships).
//
// The test runs beside the package's other parallel tests (after every
// sequential one), and its platform groups (longDocGroups) beside each
// other: extracting is CPU work in one instance, and the figures it checks
// are per platform.
func TestLongDocumentsReadToTheEnd(t *testing.T) {
	if proofRace() || testing.Short() {
		t.Skip("reads about 30 MB of documents page by page (under -race too slow to say anything)")
	}
	t.Parallel()
	sim, simURL := proofSim(t)
	_, base, _ := proofHost(t, proofConfig(t, simURL, t.TempDir(), ""))
	docs := platformsim.LongDocuments()
	seen, grouped := map[string]bool{}, map[string]bool{}
	for _, d := range docs {
		seen[d.Platform] = true
	}
	for _, g := range longDocGroups {
		for _, id := range g {
			grouped[id] = true
		}
	}
	for _, id := range proofPlatforms {
		if !seen[id] {
			t.Errorf("the simulator has no long document of %s", id)
		}
		if !grouped[id] {
			t.Errorf("%s is in no group of longDocGroups", id)
		}
	}
	// 5 MB documents: one connector per format is enough to show memory
	// stays flat (each takes seconds to extract in WebAssembly).
	hugeOf := map[string]bool{"obv": true, "tk": true, "rechtspraak": true, "opentk": true}
	for _, g := range longDocGroups {
		name := strings.Join(slices.DeleteFunc(slices.Clone(g), func(id string) bool { return id == platformsim.Zoek }), "+")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newProofClient(t, base, "reader-"+name)
			defer c.close()
			for _, d := range docs {
				if !slices.Contains(g, d.Platform) || d.Size == "huge" && !hugeOf[d.Platform] {
					continue
				}
				readToTheEnd(t, sim, base, c, d, g)
			}
		})
	}
}

// readToTheEnd is one document of TestLongDocumentsReadToTheEnd, read as
// a subtest by c; group are the simulator's platforms whose requests
// count as this document's.
func readToTheEnd(t *testing.T, sim *platformsim.Sim, base string, c *proofClient, d platformsim.LongDocument, group []string) {
	t.Run(d.Platform+"/"+d.Size+"/"+d.Format, func(t *testing.T) {
		kept := fmt.Sprintf(`besluitbron_cache_texts_kept_total{class="document",platform=%q}`, d.Platform)
		mem := fmt.Sprintf(`besluitbron_runtime_idle_memory_bytes{platform=%q}`, d.Platform)
		keptBefore, reqBefore := scrape(t, base, kept), upstreamRequests(sim, group...)
		first := readPage(t, c, d, 1)
		reqAfterFirst := upstreamRequests(sim, group...)
		var all strings.Builder
		all.WriteString(first.Text)
		var memAfter2 float64
		for n := 2; n <= first.Pages; n++ {
			p := readPage(t, c, d, n)
			if p.Pages != first.Pages {
				t.Fatalf("page %d says %d pages, page 1 said %d", n, p.Pages, first.Pages)
			}
			all.WriteString(p.Text)
			switch m := scrape(t, base, mem); {
			case n == 2:
				memAfter2 = m
			case n%16 == 0 || n == first.Pages:
				if m > memAfter2+memSlack {
					t.Fatalf("the connector's instance grew from %.1f MB after page 2 to %.1f MB after page %d", memAfter2/(1<<20), m/(1<<20), n)
				}
			}
			if n == first.Pages && !strings.Contains(p.Text, d.EndPhrase) {
				t.Errorf("the last page (%d) lacks the end phrase %q; it ends %q", n, d.EndPhrase, p.Text[max(0, len(p.Text)-200):])
			}
		}
		text := all.String()
		if len(text) < d.TextBytes*9/10 {
			t.Errorf("%d pages hold %d bytes of text; the document has about %d", first.Pages, len(text), d.TextBytes)
		}
		for _, phrase := range []string{d.StartPhrase, d.EndPhrase} {
			if strings.Count(text, phrase) != 1 {
				t.Errorf("the pages hold %q %d times, want once", phrase, strings.Count(text, phrase))
			}
		}
		if got := scrape(t, base, kept) - keptBefore; got != 1 {
			t.Errorf("%d extractions kept for %d pages, want 1", int(got), first.Pages)
		}
		// A 5 MB text and its 6 MB source nearly fill some of the 64
		// MiB cache's bucket rings, which may then drop a small entry
		// (tk's document metadata): one request again, never the
		// document (the kept-text count above says it was not
		// extracted again).
		// The same can befall a 1.3 MB document's own metadata: fastcache
		// stores a large value as 64 KiB chunks in buckets of two chunks
		// each, so a chunk of the document written after the metadata
		// clears the metadata's chunk when both hash to one bucket (about
		// one document in ten; seen once in seven clean runs). One small
		// request again, never the document: the kept-text count above
		// still says it was extracted once. Keeping small entries apart
		// from large ones is the cache's open work (issue 27's note).
		allowed := int64(1)
		if d.Size == "huge" {
			allowed = 2
		}
		if extra := upstreamRequests(sim, group...) - reqAfterFirst; extra > allowed {
			t.Errorf("pages 2–%d made %d more platform requests, want at most %d (page 1 made %d)", first.Pages, extra, allowed, reqAfterFirst-reqBefore)
		}
		t.Logf("%s %s: %d pages, %d bytes, %d platform requests, instance %.1f MB", d.ID, d.Format, first.Pages, len(text), reqAfterFirst-reqBefore, scrape(t, base, mem)/(1<<20))
	})
}

// TestLongDocumentsWithoutKeptTexts: with no cache at all (so nothing is
// kept and every page extracts the whole judgement again, as with
// cache.enabled = false or a host that keeps no texts) the connector's
// memory does not grow call over call. This is the reported failure: a
// 1.3 MB judgement read page by page grew its instance by 17 MB a call
// from the 14th on and trapped it after 28, because a garbage collection
// cycle begun during a call never finished (its mark workers run only when
// the call's goroutine yields, which a returning export never did).
func TestLongDocumentsWithoutKeptTexts(t *testing.T) {
	if proofRace() || testing.Short() {
		t.Skip("extracts a 1.3 MB judgement 32 times")
	}
	t.Parallel() // CPU work in one instance; the memory it checks is that instance's
	_, simURL := proofSim(t)
	cfg := strings.Replace(proofConfig(t, simURL, t.TempDir(), ""), "[cache]\n", "[cache]\nenabled = false\n", 1)
	_, base, _ := proofHost(t, cfg)
	c := newProofClient(t, base, "rereader")
	defer c.close()
	var d platformsim.LongDocument
	for _, x := range platformsim.LongDocuments() {
		if x.Platform == "rechtspraak" && x.Size == "long" {
			d = x
		}
	}
	mem := `besluitbron_runtime_idle_memory_bytes{platform="rechtspraak"}`
	var trace []string
	var settled float64
	const calls = 32
	for n := 1; n <= calls; n++ {
		p := readPage(t, c, d, n)
		m := scrape(t, base, mem)
		trace = append(trace, fmt.Sprintf("%.0f", m/(1<<20)))
		if n == calls-12 {
			settled = m
		}
		if m > 64<<20 {
			t.Fatalf("the instance holds %.0f MB after call %d, a quarter of its limit; MB after each call: %v", m/(1<<20), n, trace)
		}
		if n == p.Pages {
			break
		}
	}
	// The heap may settle at a higher level once; it may not keep growing.
	if grew := scrape(t, base, mem) - settled; grew > memSlack {
		t.Errorf("extracting %s again and again grew its instance by %.1f MB over the last 12 calls; MB after each call: %v", d.ID, grew/(1<<20), trace)
	}
	t.Logf("MB after each call: %v", trace)
}

// TestTKDocumentWhenExpansionRefused: when the Tweede Kamer refuses the
// HuidigeDocumentVersie expansion (HTTP 400, as after a renamed navigation
// property), tk_get_document still reads the document's file through MCP,
// to its last page, and says in a note what it could not look up.
func TestTKDocumentWhenExpansionRefused(t *testing.T) {
	if proofRace() || testing.Short() {
		t.Skip("reads a 1.3 MB PDF")
	}
	t.Parallel()
	sim, simURL := proofSim(t)
	if err := sim.SetFault("tk", platformsim.Fault{RefuseExpand: true}); err != nil {
		t.Fatal(err)
	}
	_, base, _ := proofHost(t, proofConfig(t, simURL, t.TempDir(), ""))
	c := newProofClient(t, base, "drift")
	defer c.close()
	for _, d := range platformsim.LongDocuments() {
		if d.Platform != "tk" || d.Size != "long" || d.Format != "PDF" {
			continue
		}
		first := readPage(t, c, d, 1)
		r := c.call(context.Background(), "tk", "tk_get_document", map[string]any{"id": d.ID, "page": 1})
		if !strings.Contains(resultText(r.res), "HuidigeDocumentVersie") {
			t.Errorf("the result does not say the expansion was refused: %s", clipText(resultText(r.res), 400))
		}
		last := readPage(t, c, d, first.Pages)
		if !strings.Contains(last.Text, d.EndPhrase) {
			t.Errorf("the last page lacks %q", d.EndPhrase)
		}
		if n := sim.Stats().Platforms["tk"].Injected["refuse_expand"]; n == 0 {
			t.Error("the simulator refused no expansion: the test proves nothing")
		}
		return
	}
	t.Fatal("the simulator has no long tk PDF")
}

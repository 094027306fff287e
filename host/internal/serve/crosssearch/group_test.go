package crosssearch

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// keyed answers a search with items as given (their keys included).
func keyed(id string, items ...sdk.Item) func(context.Context, *callinfo.Info, map[string]any) invoke.Answer {
	return func(ctx context.Context, info *callinfo.Info, args map[string]any) invoke.Answer {
		n := len(items)
		b, _ := json.Marshal(sdk.SearchResult{Platform: id, Total: &n, Results: items})
		return invoke.Answer{Platform: id, Result: connector.CallResult{Text: string(b), Structured: b}}
	}
}

// TestOneDocumentOnce: a council file on obv, ori and openarchivaris
// (one source URL, spelled three ways), a Tweede Kamer document on opentk
// and tk (one number) that obk has as a Kamerstuk (tk gives its dossier and
// number: obk and opentk share no key, and are one document through tk),
// a Kamer answer to written questions on the same three (no Kamerstuk:
// obk's copy has only its publication id, which tk reads from the
// document's current version, and opentk's only the number), and results
// that share nothing. Each document is listed once, in the first section
// that has it; every other copy is in its also_on with platform, id, url
// and the key that joined it, and the counts say 12 results, 6 documents.
func TestOneDocumentOnce(t *testing.T) {
	f := newFake()
	src := "https://api1.ibabs.eu/publicdownload.aspx?site=soest&id=7"
	f.tools["obv_search"] = keyed("obv",
		sdk.Item{ID: "document:ibabs:soest:7", Title: "Raadsvoorstel woningbouw", URL: "https://openbesluitvorming.nl/d7", Keys: sdk.DocKeys{SourceURL: src}.Map()},
		sdk.Item{ID: "document:ibabs:soest:8", Title: "Bijlage", URL: "https://openbesluitvorming.nl/d8"})
	f.tools["ori_search"] = keyed("ori",
		sdk.Item{ID: "6074541", Title: "Raadsvoorstel woningbouw", URL: "http://api1.ibabs.eu/publicdownload.aspx?id=7&site=soest", Keys: sdk.DocKeys{SourceURL: "http://API1.ibabs.eu/publicdownload.aspx?id=7&site=soest"}.Map()})
	f.tools["openarchivaris_search"] = keyed("openarchivaris",
		sdk.Item{ID: "oa-1", Title: "Raadsvoorstel woningbouw", URL: "https://openarchivaris.nl/d/1", Keys: sdk.DocKeys{SourceURL: src + "#page=2"}.Map()})
	f.tools["tk_search"] = keyed("tk",
		sdk.Item{ID: "guid-1", Title: "Antwoord op vragen over woningbouw", URL: "https://www.tweedekamer.nl/d1", Keys: sdk.DocKeys{TKDocument: "2025D05511", Kamerstuk: "36800-VII-14"}.Map()},
		sdk.Item{ID: "guid-2", Title: "Antwoord op vragen over stikstof", URL: "https://www.tweedekamer.nl/d2", Keys: sdk.DocKeys{TKDocument: "2025D14101", Publication: "ah-tk-20242025-1888"}.Map()})
	f.tools["opentk_search"] = keyed("opentk",
		sdk.Item{ID: "2025D05511", Title: "Antwoord", URL: "https://berthub.eu/tkconv/document.html?nummer=2025D05511", Keys: sdk.DocKeys{TKDocument: "2025d05511"}.Map()},
		sdk.Item{ID: "2025D14101", Title: "Antwoord", URL: "https://berthub.eu/tkconv/document.html?nummer=2025D14101", Keys: sdk.DocKeys{TKDocument: "2025D14101"}.Map()},
		sdk.Item{ID: "2025A00001", Title: "Activiteit"})
	f.tools["obk_search"] = keyed("obk",
		sdk.Item{ID: "kst-36800-VII-14", Title: "Antwoord", URL: "https://zoek.officielebekendmakingen.nl/kst-36800-VII-14.html", Keys: sdk.DocKeys{Publication: "kst-36800-VII-14", Kamerstuk: "kst-36800-VII-14"}.Map()},
		sdk.Item{ID: "ah-tk-20242025-1888", Title: "Antwoord", URL: "https://zoek.officielebekendmakingen.nl/ah-tk-20242025-1888.html", Keys: sdk.DocKeys{Publication: "ah-tk-20242025-1888"}.Map()},
		// An ECLI obk does not declare: not used, the result stays apart.
		sdk.Item{ID: "stcrt-2025-1", Title: "Besluit", URL: "https://zoek.officielebekendmakingen.nl/stcrt-2025-1.html", Keys: map[string]string{connector.KeyTKDocument: "2025D05511"}})
	s := New(Options{Platforms: allPlatforms, Invoke: f.invoke})
	res := decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"woningbouw"}`)))
	if res.ResultCount != 12 || res.DocumentCount != 6 {
		t.Errorf("result_count %d document_count %d, want 12 and 6", res.ResultCount, res.DocumentCount)
	}
	shown := map[string]Item{}
	seen := map[string]string{}
	for _, sec := range res.Sections {
		for _, it := range sec.Results {
			shown[sec.Platform+"/"+it.ID] = it
			for _, c := range it.AlsoOn {
				if prev, dup := seen[c.Platform+"/"+c.ID]; dup {
					t.Errorf("%s/%s is a copy of %s and again", c.Platform, c.ID, prev)
				}
				seen[c.Platform+"/"+c.ID] = sec.Platform + "/" + it.ID
			}
		}
	}
	for k := range seen {
		if _, twice := shown[k]; twice {
			t.Errorf("%s is shown and listed as a copy", k)
		}
	}
	want := []Copy{
		{Platform: "openarchivaris", ID: "oa-1", URL: "https://openarchivaris.nl/d/1", By: "source_url"},
		{Platform: "ori", ID: "6074541", URL: "http://api1.ibabs.eu/publicdownload.aspx?id=7&site=soest", By: "source_url"},
	}
	if d := cmp.Diff(want, shown["obv/document:ibabs:soest:7"].AlsoOn); d != "" {
		t.Errorf("the council file's copies (-want +got):\n%s", d)
	}
	// Sections come in the connectors' order: obk first, so its
	// Kamerstuk is the document shown.
	want = []Copy{
		{Platform: "opentk", ID: "2025D05511", URL: "https://berthub.eu/tkconv/document.html?nummer=2025D05511", By: "tk_document_number"},
		{Platform: "tk", ID: "guid-1", URL: "https://www.tweedekamer.nl/d1", By: "kamerstuk"},
	}
	if d := cmp.Diff(want, shown["obk/kst-36800-VII-14"].AlsoOn); d != "" {
		t.Errorf("the TK document's copies (-want +got):\n%s", d)
	}
	want = []Copy{
		{Platform: "opentk", ID: "2025D14101", URL: "https://berthub.eu/tkconv/document.html?nummer=2025D14101", By: "tk_document_number"},
		{Platform: "tk", ID: "guid-2", URL: "https://www.tweedekamer.nl/d2", By: "publication_id"},
	}
	if d := cmp.Diff(want, shown["obk/ah-tk-20242025-1888"].AlsoOn); d != "" {
		t.Errorf("the Kamer answer's copies (-want +got):\n%s", d)
	}
	if _, ok := shown["obk/stcrt-2025-1"]; !ok {
		t.Error("an undeclared key joined obk's result to the TK document")
	}
	for _, sec := range res.Sections {
		want := map[string]int{"ori": 1, "openarchivaris": 1, "opentk": 2, "tk": 2}[sec.Platform]
		if sec.ListedElsewhere != want {
			t.Errorf("%s: listed_elsewhere %d, want %d", sec.Platform, sec.ListedElsewhere, want)
		}
	}
	if res.Hint != "" {
		t.Errorf("a search with results got a hint: %q", res.Hint)
	}
}

// TestGroupIsTransitiveAndPrefersALink: keys chain results into one
// document (a-b by one kind, b-c by another), the result shown is the
// group's first with a link, and each copy says the key it shares with
// it, or the one that joined it when it shares none.
func TestGroupIsTransitiveAndPrefersALink(t *testing.T) {
	all := func(int) []string { return connector.KeyKinds() }
	rs := []Keyed{
		{Keys: map[string]string{"kamerstuk": "36800-VII-14"}},                                                // 0: no link
		{Keys: map[string]string{"kamerstuk": "36800-VII-14", "tk_document_number": "2025D1"}, HasLink: true}, // 1
		{Keys: map[string]string{"tk_document_number": "2025D1"}, HasLink: true},                              // 2
		{Keys: map[string]string{"ecli": "ECLI:NL:HR:2024:1"}},                                                // 3: alone
		{}, // 4: no keys
	}
	g := Group(rs, all)
	if d := cmp.Diff([]int{1, 1, 1, 3, 4}, g.Shown); d != "" {
		t.Errorf("shown (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"kamerstuk", "", "tk_document_number", "", ""}, g.By); d != "" {
		t.Errorf("by (-want +got):\n%s", d)
	}
	if g.Documents != 3 {
		t.Errorf("documents %d, want 3", g.Documents)
	}
}

// TestDutchHintWhenNothingFound: "nitrogen" finds nothing anywhere and
// the answer says to search in Dutch, with the word to try; a Dutch query
// that finds nothing gets no hint.
func TestDutchHintWhenNothingFound(t *testing.T) {
	f := newFake()
	for _, p := range allPlatforms {
		f.tools[p.ID+"_search"] = keyed(p.ID)
	}
	s := New(Options{Platforms: allPlatforms, Invoke: f.invoke})
	res := decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"nitrogen"}`)))
	if res.ResultCount != 0 || !strings.Contains(res.Hint, `search in Dutch, e.g. query="stikstof"`) {
		t.Errorf("count %d, hint %q", res.ResultCount, res.Hint)
	}
	res = decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"stikstofuitstoot"}`)))
	if res.Hint != "" {
		t.Errorf("a Dutch query got a hint: %q", res.Hint)
	}
}

// TestGroupAgainstAnOracle: on random results (keys drawn from a few
// values, so that chains form; some kinds undeclared), Group's documents
// are exactly the connected sets of results sharing a declared key, found
// here the slow way (pairwise edges, then a search), each shown by its
// first member with a link, else its first.
func TestGroupAgainstAnOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 3))
	kinds := connector.KeyKinds()
	for round := range 500 {
		n := r.IntN(40)
		rs := make([]Keyed, n)
		decl := make([][]string, n)
		for i := range rs {
			rs[i].HasLink = r.IntN(3) > 0
			for _, k := range kinds {
				if r.IntN(2) == 0 {
					decl[i] = append(decl[i], k)
				}
				if r.IntN(3) == 0 {
					if rs[i].Keys == nil {
						rs[i].Keys = map[string]string{}
					}
					rs[i].Keys[k] = fmt.Sprint(r.IntN(6))
				}
			}
		}
		g := Group(rs, func(i int) []string { return decl[i] })
		uses := func(i int, k string) bool { _, ok := rs[i].Keys[k]; return ok && slices.Contains(decl[i], k) }
		comp := make([]int, n)
		for i := range comp {
			comp[i] = -1
		}
		docs := 0
		for i := range rs {
			if comp[i] >= 0 {
				continue
			}
			stack := []int{i}
			comp[i] = i
			for len(stack) > 0 {
				a := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for b := range rs {
					if comp[b] >= 0 {
						continue
					}
					for _, k := range kinds {
						if uses(a, k) && uses(b, k) && rs[a].Keys[k] == rs[b].Keys[k] {
							comp[b] = i
							stack = append(stack, b)
							break
						}
					}
				}
			}
			docs++
		}
		if g.Documents != docs {
			t.Fatalf("round %d: %d documents, the oracle %d", round, g.Documents, docs)
		}
		for i := range rs {
			want := -1
			for j := range rs {
				if comp[j] == comp[i] && (want < 0 || !rs[want].HasLink && rs[j].HasLink) {
					want = j
				}
			}
			if g.Shown[i] != want {
				t.Fatalf("round %d: result %d shown as %d, the oracle %d", round, i, g.Shown[i], want)
			}
			if (g.By[i] == "") != (want == i) {
				t.Fatalf("round %d: result %d (shown as %d) by %q", round, i, want, g.By[i])
			}
		}
	}
}

package crosssearch

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// BenchmarkFanOut is the search's own overhead over six platforms that
// answer at once: argument checks, six goroutines, translation, decoding
// the connectors' results and encoding the combined one.
func BenchmarkFanOut(b *testing.B) {
	f := newFake()
	s := New(Options{Platforms: allPlatforms, Invoke: f.invoke})
	args := json.RawMessage(`{"query":"klimaat","limit":10}`)
	for b.Loop() {
		f.mu.Lock()
		f.calls = f.calls[:0]
		f.mu.Unlock()
		r := s.Handle(context.Background(), &callinfo.Info{Session: "b"}, args)
		if r.Err != nil {
			b.Fatal(resultText(r))
		}
	}
}

// BenchmarkGroup is the grouping's cost on a 100-result cross-search
// (five platforms of 20 results; ten council files on three platforms and
// five TK documents on two, so 25 results are copies) beside the
// merge it adds to: decoding the five answers into sections and encoding
// the combined result. Both are timed in each iteration, so the ratio
// comes from one run: group-ns/op is the grouping alone, merge-ns/op the
// merge without it, group/merge their ratio.
func BenchmarkGroup(b *testing.B) {
	ids := []string{"obv", "openarchivaris", "opentk", "ori", "tk"}
	declared := map[string][]string{}
	for _, p := range allPlatforms {
		if p.Profile != nil {
			declared[p.ID] = p.Profile.Keys
		}
	}
	answers := make([][]byte, len(ids))
	for s, id := range ids {
		sr := sdk.SearchResult{Platform: id, Results: []sdk.Item{}}
		for i := range 20 {
			it := sdk.Item{ID: fmt.Sprintf("%s-%d", id, i), Title: fmt.Sprintf("Raadsvoorstel %d over woningbouw in de gemeente", i),
				Date: "2025-03-01", Organization: "Gemeente Soest", Snippet: strings.Repeat("woningbouw ", 20), URL: "https://example.org/" + id}
			// The council platforms share source URLs for their first ten
			// results, tk and opentk document numbers for their first
			// five; the rest are their own.
			switch {
			case (id == "obv" || id == "ori" || id == "openarchivaris") && i < 10:
				it.Keys = sdk.DocKeys{SourceURL: fmt.Sprintf("https://api1.ibabs.eu/publicdownload.aspx?site=soest&id=%d", i)}.Map()
			case (id == "opentk" || id == "tk") && i < 5:
				it.Keys = sdk.DocKeys{TKDocument: fmt.Sprintf("2025D%05d", i)}.Map()
			case id == "opentk" || id == "tk":
				it.Keys = sdk.DocKeys{TKDocument: fmt.Sprintf("2025D%05d", i+(len(id)*100))}.Map()
			default:
				it.Keys = sdk.DocKeys{SourceURL: fmt.Sprintf("https://%s.example.org/doc/%d", id, i)}.Map()
			}
			sr.Results = append(sr.Results, it)
		}
		answers[s], _ = json.Marshal(sr)
	}
	merge := func() ([]Section, [][]map[string]string) {
		secs := make([]Section, len(ids))
		keys := make([][]map[string]string, len(ids))
		for s, id := range ids {
			var sr connector.SearchResult
			if err := json.Unmarshal(answers[s], &sr); err != nil {
				b.Fatal(err)
			}
			secs[s] = Section{Platform: id, Status: StatusOK}
			secs[s].Results, keys[s] = items(sr.Results, time.Now())
		}
		return secs, keys
	}
	var mergeNS, groupNS time.Duration
	docs := 0
	for b.Loop() {
		t0 := time.Now()
		secs, keys := merge()
		if _, err := json.Marshal(Result{Sections: secs}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		_, docs = groupSections(secs, keys, declared)
		t2 := time.Now()
		mergeNS += t1.Sub(t0)
		groupNS += t2.Sub(t1)
	}
	if docs != 75 {
		b.Fatalf("%d documents, want 75", docs)
	}
	n := float64(b.N)
	b.ReportMetric(float64(groupNS.Nanoseconds())/n, "group-ns/op")
	b.ReportMetric(float64(mergeNS.Nanoseconds())/n, "merge-ns/op")
	b.ReportMetric(float64(groupNS)/float64(mergeNS), "group/merge")
}

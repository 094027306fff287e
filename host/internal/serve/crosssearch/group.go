package crosssearch

// One document once. The platforms overlap: a council's file is harvested
// by OpenBesluitvorming, ORI and Open Archivaris alike; a Tweede Kamer
// document is on tk and opentk, and as a Kamerstuk on obk. Each connector
// declares in its manifest which document keys its results carry
// (connector.SearchProfile.Keys: source URL, TK document number, Kamerstuk,
// ECLI, publication id) and sets them per result, normalised by the sdk.
// Results that share any key are one document: the key relation is made
// transitive with a union-find over the results (obv and openarchivaris
// share a source URL, tk and opentk a document number, tk and obk a
// Kamerstuk: each pair is one edge, and a chain of edges is one
// document). The host reads no platform's fields: only the kinds a
// manifest declares, and only equal values.
//
// A group is shown once, as its first member (sections in the
// connectors' order, results in the platform's order) that has a link,
// else its first; every other member is listed under it in also_on with
// its platform, id, url and the key kind that joined it, so no copy's link
// is lost.

import (
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Copy is another platform's copy of a result's document.
type Copy struct {
	Platform string `json:"platform"`
	ID       string `json:"id"`
	URL      string `json:"url,omitempty"`
	// By is the key kind it shares with the result shown ("source_url",
	// …), or the one that joined it through another copy.
	By string `json:"by"`
}

// Keyed is one result to group: its keys by kind, as its connector set
// them, and whether it has a link.
type Keyed struct {
	Keys    map[string]string
	HasLink bool
}

// Grouping is the outcome of [Group] for n results.
type Grouping struct {
	// Shown[i] is the index of the result that shows result i's document:
	// i itself for the result shown, another index for a copy.
	Shown []int
	// By[i] is, for a copy, the key kind it shares with the result shown,
	// or when it shares none (it joined through another copy) the kind
	// that joined it; "" for a result shown.
	By []string
	// Documents is the number of distinct documents.
	Documents int
}

// Group groups results by shared keys. declared(i) gives the key kinds
// result i's platform declares; a key of another kind, or an empty or
// overlong one, is not used (connector.KeyError).
func Group(rs []Keyed, declared func(i int) []string) Grouping {
	n := len(rs)
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	by := make([]string, n)
	owner := make(map[[2]string]int, n)
	kinds := connector.KeyKinds()
	for i, r := range rs {
		if len(r.Keys) == 0 {
			continue
		}
		decl := declared(i)
		for _, kind := range kinds { // a fixed order: the same "by" every run
			v, ok := r.Keys[kind]
			if !ok || connector.KeyError(decl, kind, v) != nil {
				continue
			}
			k := [2]string{kind, v}
			j, seen := owner[k]
			if !seen {
				owner[k] = i
				continue
			}
			if by[i] == "" {
				by[i] = kind
			}
			if by[j] == "" {
				by[j] = kind
			}
			a, b := find(i), find(j)
			if a != b {
				// The smaller index is the root: the group's first result.
				parent[max(a, b)] = min(a, b)
			}
		}
	}
	// The result shown is the group's first with a link, else its first.
	shown := make([]int, n)
	pick := make(map[int]int, n)
	for i := range rs {
		root := find(i)
		p, ok := pick[root]
		if !ok || (!rs[p].HasLink && rs[i].HasLink) {
			pick[root] = i
		}
	}
	g := Grouping{Shown: shown, By: by, Documents: len(pick)}
	for i := range rs {
		shown[i] = pick[find(i)]
		switch {
		case shown[i] == i:
			by[i] = ""
		default:
			// A key shared with the result shown says more than the
			// edge that joined the copy (opentk under obk joined through
			// tk's number; tk under obk shares its Kamerstuk).
			if k := sharedKind(rs[i], rs[shown[i]], declared(i), declared(shown[i]), kinds); k != "" {
				by[i] = k
			}
		}
	}
	return g
}

// sharedKind is the first key kind a and b both carry, declare and agree
// on, or "".
func sharedKind(a, b Keyed, da, db []string, kinds []string) string {
	for _, k := range kinds {
		va, ok := a.Keys[k]
		if !ok || va != b.Keys[k] || connector.KeyError(da, k, va) != nil || connector.KeyError(db, k, va) != nil {
			continue
		}
		return k
	}
	return ""
}

// groupSections lists each document once across the answered sections:
// a copy leaves its section's results and joins also_on of the result
// shown. It returns the number of results and of distinct documents.
func groupSections(secs []Section, keys [][]map[string]string, declared map[string][]string) (results, documents int) {
	type at struct{ sec, item int }
	var rs []Keyed
	var pos []at
	for s := range secs {
		for j, it := range secs[s].Results {
			var k map[string]string
			if j < len(keys[s]) { // a section made without keys groups by none
				k = keys[s][j]
			}
			rs = append(rs, Keyed{Keys: k, HasLink: it.URL != ""})
			pos = append(pos, at{s, j})
		}
	}
	g := Group(rs, func(i int) []string { return declared[secs[pos[i].sec].Platform] })
	drop := make([][]bool, len(secs))
	for i, p := range pos {
		sh := g.Shown[i]
		if sh == i {
			continue
		}
		if drop[p.sec] == nil {
			drop[p.sec] = make([]bool, len(secs[p.sec].Results))
		}
		drop[p.sec][p.item] = true
		secs[p.sec].ListedElsewhere++
		c := &secs[pos[sh].sec].Results[pos[sh].item]
		it := secs[p.sec].Results[p.item]
		c.AlsoOn = append(c.AlsoOn, Copy{Platform: secs[p.sec].Platform, ID: it.ID, URL: it.URL, By: g.By[i]})
	}
	for s := range secs {
		if drop[s] == nil {
			continue
		}
		kept := secs[s].Results[:0:0]
		for j, it := range secs[s].Results {
			if !drop[s][j] {
				kept = append(kept, it)
			}
		}
		secs[s].Results = kept
	}
	return len(rs), g.Documents
}

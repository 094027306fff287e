package sdk

import (
	"fmt"
	"strings"
	"testing"
)

func BenchmarkFinder(b *testing.B) {
	var sb strings.Builder
	for n := 1; sb.Len() < 1_300_000; n++ {
		fmt.Fprintf(&sb, "[page %d]\n", n)
		for i := range 20 {
			fmt.Fprintf(&sb, "Paragraaf %d.%d van het verslag over de financiën van de gemeente, één reünie.\n", n, i)
		}
	}
	pages := SplitPages(sb.String(), TextPageSize)
	terms, _ := FindTerms(`"een reunie vóór de zomer"`)
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		fd := newFinder(terms, PageMarks{Prefix: "[page "}, len(pages))
		for i, p := range pages {
			next := ""
			if i+1 < len(pages) {
				next = pages[i+1]
			}
			fd.page(i+1, p, next)
		}
		fd.answer("x")
	}
}

func BenchmarkFold(b *testing.B) {
	s := strings.Repeat("Paragraaf 12.3 van het verslag over de financiën van de gemeente, één reünie.\n", 250)
	b.SetBytes(int64(len(s)))
	var f folded
	for b.Loop() {
		f.reset()
		f.add(s, 0)
	}
}

func BenchmarkFinderEveryPage(b *testing.B) {
	var sb strings.Builder
	for n := 1; sb.Len() < 1_300_000; n++ {
		fmt.Fprintf(&sb, "[page %d]\n", n)
		for i := range 20 {
			fmt.Fprintf(&sb, "%d.%d Het beleid rond de herstelregeling kende sinds 2015 een reeks wijzigingen, waarvan niet iedere wijziging even goed was doordacht; de geïntegreerde aanpak kwam pas in 2017 op gang.\n", n, i)
		}
	}
	pages := SplitPages(sb.String(), TextPageSize)
	terms, _ := FindTerms(`"geintegreerde aanpak" wijziging`)
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		fd := newFinder(terms, PageMarks{}, len(pages))
		for i, p := range pages {
			next := ""
			if i+1 < len(pages) {
				next = pages[i+1]
			}
			fd.page(i+1, p, next)
		}
		fd.answer("x")
	}
}

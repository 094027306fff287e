package platformsim

import (
	"strings"

	"github.com/besluitbron/besluitbron/internal/pdfwrite"
)

// makePDF renders pages of text as a small valid PDF, long lines wrapped.
// The Tweede Kamer serves its documents as PDF, so the simulator does
// too, from recorded text.
func makePDF(pages []string) []byte {
	var lines [][]string
	for _, p := range pages {
		lines = append(lines, wrapLines(p, 90))
	}
	return pdfwrite.Pages(lines)
}

// wrapLines splits text into lines of at most n runes, at spaces.
func wrapLines(text string, n int) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		ws := strings.Fields(line)
		cur := ""
		for _, w := range ws {
			if cur != "" && len([]rune(cur))+1+len([]rune(w)) > n {
				out = append(out, cur)
				cur = ""
			}
			if cur != "" {
				cur += " "
			}
			cur += w
		}
		out = append(out, cur)
	}
	return out
}

package sdk

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SearchResult is the normalised answer of every connector's search tool.
type SearchResult struct {
	// Platform is the connector id.
	Platform string `json:"platform"`
	// Total is the number of matches the platform reports, when it does.
	Total *int `json:"total,omitempty"`
	// TotalIsApproximate is set when the platform says Total is an estimate.
	TotalIsApproximate bool `json:"total_is_approximate,omitempty"`
	// HasMore tells whether a next page exists (offset + len(Results)).
	HasMore bool   `json:"has_more"`
	Offset  int    `json:"offset"`
	Results []Item `json:"results"`
	// Notes are caveats the model should pass on (partial results, filters
	// the platform ignores, stale data).
	Notes []string `json:"notes,omitempty"`
}

// Item is one normalised search hit or list entry.
type Item struct {
	ID    string `json:"id"`
	Type  string `json:"type,omitempty"`
	Title string `json:"title"`
	// Date is an ISO date (YYYY-MM-DD) when known.
	Date string `json:"date,omitempty"`
	// Organization is the source: municipality, chamber, court.
	Organization string `json:"organization,omitempty"`
	Snippet      string `json:"snippet,omitempty"`
	// URL links to the original document, for citation.
	URL string `json:"url,omitempty"`
	// Extra holds platform-specific fields under the connector id.
	Extra map[string]map[string]any `json:"extra,omitempty"`
}

// Document is the normalised full text of one document, one page at a time.
type Document struct {
	Platform     string `json:"platform"`
	ID           string `json:"id"`
	Type         string `json:"type,omitempty"`
	Title        string `json:"title"`
	Date         string `json:"date,omitempty"`
	Organization string `json:"organization,omitempty"`
	URL          string `json:"url,omitempty"`
	// Format is "markdown" or "text".
	Format string `json:"format"`
	// Page is 1-based; Pages is the number of pages of Text.
	Page  int                       `json:"page"`
	Pages int                       `json:"pages"`
	Text  string                    `json:"text"`
	Extra map[string]map[string]any `json:"extra,omitempty"`
}

// ListResult is a rarely changing list (sources, committees, value lists).
type ListResult struct {
	Platform string `json:"platform"`
	List     string `json:"list"`
	Count    int    `json:"count"`
	Items    []Item `json:"items"`
}

var dutchMonths = map[string]time.Month{
	"januari": 1, "februari": 2, "maart": 3, "april": 4, "mei": 5, "juni": 6,
	"juli": 7, "augustus": 8, "september": 9, "oktober": 10, "november": 11, "december": 12,
}

// ISODate normalises the date forms the platforms use ("2024-11-07",
// "2024-11-07 20:00:00", "2024-11-07T20:00:00Z", "7 november 2024") to
// YYYY-MM-DD. It returns "" for anything else rather than guess.
func ISODate(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 10 && s[4] == '-' && s[7] == '-' {
		if _, err := time.Parse("2006-01-02", s[:10]); err == nil {
			return s[:10]
		}
	}
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 3 {
		d, err1 := strconv.Atoi(f[0])
		m, ok := dutchMonths[f[1]]
		y, err2 := strconv.Atoi(f[2])
		if err1 == nil && ok && err2 == nil && d >= 1 && d <= 31 {
			return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
		}
	}
	return ""
}

// StripTags removes HTML tags such as the <b> highlights of snippets and
// unescapes the common entities.
func StripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&nbsp;", " ").Replace(b.String())
}

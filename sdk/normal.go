package sdk

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// The normalised results live in the contract (package connector), which
// the host reads them from; these aliases keep connectors writing
// sdk.SearchResult and friends.
type (
	// SearchResult is the normalised answer of every connector's search
	// tool (see [connector.SearchResult]).
	SearchResult = connector.SearchResult
	// Item is one normalised search hit or list entry (see [connector.Item]).
	Item = connector.Item
	// Document is the normalised full text of one document, one page at a
	// time (see [connector.Document]).
	Document = connector.Document
	// ListResult is a rarely changing list (see [connector.ListResult]).
	ListResult = connector.ListResult
	// Found is a document tool's answer to a find (see [connector.Found]).
	Found = connector.Found
	// FoundPage is a page that matches a find (see [connector.FoundPage]).
	FoundPage = connector.FoundPage
	// FoundTerm is a word or phrase of a find (see [connector.FoundTerm]).
	FoundTerm = connector.FoundTerm
	// Snippet is text around a find's match (see [connector.Snippet]).
	Snippet = connector.Snippet
)

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
		if isISODate(s[:10]) {
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

// isISODate reports whether time.Parse("2006-01-02", s) succeeds: four
// digits, a month of two from 01 to 12 and a day of two that the month
// has (s[4] and s[7] are dashes). It is written out because time.Parse,
// cheap natively, took 2 µs in a WebAssembly connector.
func isISODate(s string) bool {
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	y := int(s[0]-'0')*1000 + int(s[1]-'0')*100 + int(s[2]-'0')*10 + int(s[3]-'0')
	m := int(s[5]-'0')*10 + int(s[6]-'0')
	d := int(s[8]-'0')*10 + int(s[9]-'0')
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
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

package tk

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"
)

// param is one OData system query option; options keep the order given, so
// URLs (and cache keys) are stable.
type param struct{ key, value string }

// odataURL joins the service root, a resource path and query options. Keys
// are written as is ("$filter"), values percent-encoded with %20 for spaces,
// the form the platform's own next links use.
func odataURL(base, path string, params ...param) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(base, "/"))
	b.WriteByte('/')
	b.WriteString(path)
	sep := byte('?')
	for _, p := range params {
		if p.value == "" {
			continue
		}
		b.WriteByte(sep)
		sep = '&'
		b.WriteString(p.key)
		b.WriteByte('=')
		b.WriteString(strings.ReplaceAll(url.QueryEscape(p.value), "+", "%20"))
	}
	return b.String()
}

// Literal quotes s as an OData string literal: single quotes are doubled.
// Callers reject control characters first ([CheckText]).
func Literal(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// CheckText rejects control characters (and invalid UTF-8) in a text
// argument: they have no place in a title filter and would only reach the
// platform as noise.
func CheckText(arg, s string) error {
	for i, r := range s {
		if r == unicode.ReplacementChar && !strings.HasPrefix(s[i:], "\uFFFD") {
			return fmt.Errorf("argument %q: not valid UTF-8", arg)
		}
		if unicode.IsControl(r) {
			return fmt.Errorf("argument %q: contains a control character (%U) at byte %d", arg, r, i)
		}
	}
	return nil
}

// Terms splits a query into AND-terms: words, or phrases in double quotes.
// Punctuation around a word is dropped (inner hyphens, dots and apostrophes
// stay: "WW-uitkering", "d'Hondt"), since the platform matches substrings
// and "Woo," would otherwise miss "Woo".
func Terms(q string) []string {
	q = strings.NewReplacer("“", `"`, "”", `"`, "„", `"`).Replace(q)
	var terms []string
	seen := map[string]bool{}
	add := func(t string) {
		t = strings.Join(strings.Fields(t), " ")
		if t != "" && !seen[strings.ToLower(t)] {
			seen[strings.ToLower(t)] = true
			terms = append(terms, t)
		}
	}
	parts := strings.Split(q, `"`)
	for i, part := range parts {
		if i%2 == 1 && i < len(parts)-1 { // inside a closed pair of quotes
			add(part)
			continue
		}
		for _, w := range strings.Fields(part) {
			add(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
		}
	}
	return terms
}

// Filter node costs measured by a third party on the live service (the
// platform rejects a $filter of more than 100 nodes with HTTP 400):
// contains() 4, a string comparison 4, a date or Boolean comparison 5, any()
// 5 plus its body, and/or 1 plus 1 for a conversion between nullable and
// non-nullable Booleans. FilterNodes counts every join at its upper cost.
const (
	nodeLimit   = 100
	nodesCall   = 4
	nodesString = 4
	nodesTyped  = 5
	nodesJoin   = 2
	nodesAnyZak = 5 + 5 // any() plus z/Nummer eq '…' (one path segment more)
)

// FilterNodes is an upper estimate of the node count of a search filter with
// words terms over fields text fields, plus the other filters.
func FilterNodes(words, fields int, soort, zaak bool, dates int) int {
	n := nodesTyped // Verwijderd eq false
	if words > 0 {
		perWord := fields*nodesCall + (fields-1)*nodesJoin
		n += words * (perWord + nodesJoin)
	}
	if soort {
		n += nodesString + nodesJoin
	}
	if zaak {
		n += nodesAnyZak + nodesJoin
	}
	n += dates * (nodesTyped + nodesJoin)
	return n
}

// AmsterdamMidnight is the OData DateTimeOffset literal of midnight in the
// Netherlands at the start of day (YYYY-MM-DD). The platform stores dates as
// Dutch local midnights ("2024-10-01T00:00:00+02:00"), so a UTC boundary
// would drop the first day of a range and leak the day after its end.
//
// Summer time follows the EU rule in force since 1996 (last Sunday of March
// to last Sunday of October); the platform holds nothing older than 2008
// that a search filters on.
func AmsterdamMidnight(day time.Time) string {
	off := "+01:00"
	y := day.Year()
	if day.After(lastSunday(y, time.March)) && !day.After(lastSunday(y, time.October)) {
		off = "+02:00"
	}
	return day.Format("2006-01-02") + "T00:00:00" + off
}

func lastSunday(year int, month time.Month) time.Time {
	d := time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC) // last day of month
	return d.AddDate(0, 0, -int(d.Weekday()))
}

// parseDay checks an ISO date argument.
func parseDay(arg, s string) (time.Time, error) {
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		return time.Time{}, fmt.Errorf("argument %q: %q is not an ISO date (YYYY-MM-DD)", arg, s)
	}
	if d.Year() < 1800 || d.Year() > 2999 {
		return time.Time{}, fmt.Errorf("argument %q: year %d is out of range", arg, d.Year())
	}
	return d, nil
}

// entityURL is the OData URL of one entity (extra.tk.api_url of a case or
// activity; its citation is its page, [ZaakPageURL], [ActivityPageURL]).
func entityURL(base, set, id string) string {
	return odataURL(base, set+"("+id+")")
}

// ResourceURL is the document's file on the platform (extra.tk.resource_url;
// its citation is its page, [DocumentPageURL]).
func ResourceURL(base, id string) string {
	return odataURL(base, "Document("+id+")/resource")
}

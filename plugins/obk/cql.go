package obk

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/besluitbron/besluitbron/sdk"
)

// collection scopes every query to the official publications; the same SRU
// endpoint also serves other KOOP collections.
const collection = "c.product-area==officielepublicaties"

// CQLQuote returns s as a CQL quoted string. Inside quotes CQL gives meaning
// to the backslash and the double quote (escapes) and to *, ? and ^ (masking
// and anchoring), so all five are escaped: a value is always searched
// literally. Braces are dropped because the KOOP server answers HTTP 500 to
// them even inside quotes (third-party report), and control characters
// because they have no place in a search.
func CQLQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\\' || r == '"' || r == '*' || r == '?' || r == '^':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '{' || r == '}' || unicode.IsControl(r):
			// dropped, see above
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// FreeTextTerms splits free text into the terms searched: "double-quoted
// phrases" stay whole, other words stand alone. A quoted multi-word string
// is a phrase to the KOOP index, so unquoted words must each be a clause of
// their own to be ANDed (a phrase of all of them would rarely match).
func FreeTextTerms(q string) []string {
	var terms []string
	for i, part := range strings.Split(q, `"`) {
		if i%2 == 1 { // inside quotes
			if p := strings.Join(strings.Fields(part), " "); hasWordChar(p) {
				terms = append(terms, p)
			}
			continue
		}
		for _, w := range strings.Fields(part) {
			w = strings.Trim(w, ".,;:!()[]")
			if hasWordChar(w) {
				terms = append(terms, w)
			}
		}
	}
	return terms
}

func hasWordChar(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// BuildCQL maps search arguments to the CQL query, the collection clause
// first and the sort clause last. It assumes validated arguments.
func BuildCQL(a SearchArgs) string {
	clauses := []string{collection}
	for _, t := range FreeTextTerms(a.Query) {
		clauses = append(clauses, "cql.textAndIndexes="+CQLQuote(t))
	}
	for _, t := range FreeTextTerms(a.Title) {
		clauses = append(clauses, "dt.title="+CQLQuote(t))
	}
	if len(a.Publication) > 0 {
		var or []string
		for _, p := range a.Publication {
			or = append(or, "w.publicatienaam=="+CQLQuote(p))
		}
		c := strings.Join(or, " or ")
		if len(or) > 1 {
			c = "(" + c + ")"
		}
		clauses = append(clauses, c)
	}
	if a.Organization != "" {
		clauses = append(clauses, "dt.creator="+CQLQuote(strings.TrimSpace(a.Organization)))
	}
	if a.OrganizationType != "" {
		clauses = append(clauses, "w.organisatietype=="+CQLQuote(a.OrganizationType))
	}
	if a.Dossier != "" {
		clauses = append(clauses, "w.dossiernummer=="+CQLQuote(a.Dossier))
	}
	if a.DocumentType != "" {
		clauses = append(clauses, "dt.type="+CQLQuote(strings.TrimSpace(a.DocumentType)))
	}
	if a.DateFrom != "" {
		clauses = append(clauses, "dt.date>="+CQLQuote(a.DateFrom))
	}
	if a.DateTo != "" {
		clauses = append(clauses, "dt.date<="+CQLQuote(a.DateTo))
	}
	q := strings.Join(clauses, " and ")
	switch a.Sort {
	case "", "date_desc":
		q += " sortBy dt.date/sort.descending"
	case "date_asc":
		q += " sortBy dt.date/sort.ascending"
	}
	return q
}

// PublicationTypes are the journals (w.publicatienaam values) the index is
// known to use, with the id prefix of their publications.
var PublicationTypes = []struct{ Name, Prefix, Description string }{
	{"Staatscourant", "stcrt", "national gazette: ministerial regulations, notices, permits"},
	{"Staatsblad", "stb", "acts and royal decrees"},
	{"Tractatenblad", "trb", "treaties"},
	{"Gemeenteblad", "gmb", "municipal publications"},
	{"Provinciaal blad", "prb", "provincial publications"},
	{"Waterschapsblad", "wsb", "water board publications"},
	{"Blad gemeenschappelijke regeling", "bgr", "publications of joint arrangements (e.g. omgevingsdiensten)"},
	{"Kamerstuk", "kst", "parliamentary papers (bills, letters, reports), by dossier"},
	{"Handelingen", "h", "parliamentary proceedings"},
	{"Kamervragen (Aanhangsel)", "ah", "written questions with their answers"},
	{"Kamervragen zonder antwoord", "kv", "written questions not yet answered"},
	{"Niet-dossierstuk", "nds", "parliamentary papers outside a dossier"},
	{"Agenda", "ag", "parliamentary agendas"},
}

// OrganizationTypes are the w.organisatietype values the index is known to
// use.
var OrganizationTypes = []string{
	"gemeente", "provincie", "waterschap", "ministerie", "staten generaal",
	"zelfstandig bestuursorgaan", "regionaal samenwerkingsorgaan", "rechterlijke macht",
	"dienst en agentschap", "openbaar lichaam voor bedrijf en beroep", "adviescollege",
	"hoog college van staat", "politiekorps", "ggd", "deelgemeente",
}

// validate checks what the schema checks, again, plus what it cannot
// (real calendar dates, their order, enum values), naming the argument.
func (a *SearchArgs) validate() error {
	if a.Limit == 0 {
		a.Limit = 20
	}
	if a.Limit < 1 || a.Limit > MaxLimit {
		return fmt.Errorf("argument \"limit\": %d is outside 1…%d", a.Limit, MaxLimit)
	}
	if a.Offset < 0 || a.Offset > MaxOffset {
		return fmt.Errorf("argument \"offset\": %d is outside 0…%d (the platform serves only the first 9,999 hits; narrow the filters instead)", a.Offset, MaxOffset)
	}
	if a.Query != "" && len(FreeTextTerms(a.Query)) == 0 {
		return fmt.Errorf("argument \"query\": %q has no word to search for", a.Query)
	}
	if a.Title != "" && len(FreeTextTerms(a.Title)) == 0 {
		return fmt.Errorf("argument \"title\": %q has no word to search for", a.Title)
	}
	if a.Organization != "" && !hasWordChar(a.Organization) {
		return fmt.Errorf("argument \"organization\": %q names no organization", a.Organization)
	}
	if a.DocumentType != "" && !hasWordChar(a.DocumentType) {
		return fmt.Errorf("argument \"document_type\": %q names no type", a.DocumentType)
	}
	for _, p := range a.Publication {
		if !knownPublication(p) {
			return sdk.UnknownValue("publication", p, publicationNames(), "obk_list_values")
		}
	}
	if a.OrganizationType != "" {
		// The platform's values are lower case; "Gemeente" means gemeente.
		t, err := sdk.EnumValue("organization_type", a.OrganizationType, OrganizationTypes)
		if err != nil {
			return sdk.UnknownValue("organization_type", a.OrganizationType, OrganizationTypes, "obk_list_values")
		}
		a.OrganizationType = t
	}
	if a.Dossier != "" && !dossierPattern.MatchString(a.Dossier) {
		return fmt.Errorf("argument \"dossier\": %q is not a dossier number like 33328 or 36600-VII", a.Dossier)
	}
	for _, d := range []struct{ name, v string }{{"date_from", a.DateFrom}, {"date_to", a.DateTo}} {
		if d.v != "" && sdk.ISODate(d.v) != d.v {
			return fmt.Errorf("argument %q: %q is not a valid ISO date (YYYY-MM-DD)", d.name, d.v)
		}
	}
	if a.DateFrom != "" && a.DateTo != "" && a.DateFrom > a.DateTo {
		return fmt.Errorf("arguments: date_from %s is after date_to %s", a.DateFrom, a.DateTo)
	}
	switch a.Sort {
	case "", "date_desc", "date_asc", "relevance":
	default:
		return sdk.UnknownValue("sort", a.Sort, []string{"date_desc", "date_asc", "relevance"}, "")
	}
	return nil
}

// publicationNames are the journals' names, as publication takes them.
func publicationNames() []string {
	out := make([]string, len(PublicationTypes))
	for i, t := range PublicationTypes {
		out[i] = t.Name
	}
	return out
}

func knownPublication(p string) bool {
	for _, t := range PublicationTypes {
		if t.Name == p {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

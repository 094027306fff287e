package web

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// typeWords names the normalised result types in people's words, Dutch
// first. Types are what platforms call their records (OpenBesluitvorming's
// "Meeting", Open Raadsinformatie's "MediaObject", OpenTK's "Verslag"),
// not connector ids, so one generic dictionary serves every connector; the
// key is the type lower-cased without spaces and underscores. A type not
// listed is shown as the platform wrote it.
var typeWords = map[string][2]string{
	"document":           {"Document", "Document"},
	"mediaobject":        {"Document", "Document"},
	"meeting":            {"Vergadering", "Meeting"},
	"vergadering":        {"Vergadering", "Meeting"},
	"motion":             {"Motie", "Motion"},
	"motie":              {"Motie", "Motion"},
	"recording":          {"Opname", "Recording"},
	"agendaitem":         {"Agendapunt", "Agenda item"},
	"organization":       {"Organisatie", "Organisation"},
	"person":             {"Persoon", "Person"},
	"persoon":            {"Persoon", "Person"},
	"activity":           {"Activiteit", "Activity"},
	"activiteit":         {"Activiteit", "Activity"},
	"event":              {"Bijeenkomst", "Event"},
	"vote":               {"Stemming", "Vote"},
	"voteevent":          {"Stemming", "Vote"},
	"report":             {"Rapport", "Report"},
	"verslag":            {"Verslag", "Record of proceedings"},
	"publication":        {"Publicatie", "Publication"},
	"record":             {"Stuk", "Record"},
	"municipality":       {"Gemeente", "Municipality"},
	"gemeente":           {"Gemeente", "Municipality"},
	"province":           {"Provincie", "Province"},
	"provincie":          {"Provincie", "Province"},
	"water":              {"Waterschap", "Water board"},
	"waterschap":         {"Waterschap", "Water board"},
	"organizationtype":   {"Soort organisatie", "Type of organisation"},
	"kamerstuk":          {"Kamerstuk", "Parliamentary paper"},
	"handelingen":        {"Handelingen", "Proceedings"},
	"uitspraak":          {"Uitspraak", "Judgment"},
	"conclusie":          {"Conclusie", "Advisory opinion"},
	"staatscourant":      {"Staatscourant", "Government Gazette"},
	"staatsblad":         {"Staatsblad", "Bulletin of Acts and Decrees"},
	"gemeenteblad":       {"Gemeenteblad", "Municipal Gazette"},
	"provinciaalblad":    {"Provinciaal blad", "Provincial Gazette"},
	"waterschapsblad":    {"Waterschapsblad", "Water Board Gazette"},
	"zaak":               {"Zaak", "Case"},
	"toezegging":         {"Toezegging", "Commitment"},
	"commissie":          {"Commissie", "Committee"},
	"fractie":            {"Fractie", "Parliamentary group"},
	"tweedekamerlid":     {"Tweede Kamerlid", "Member of the House of Representatives"},
	"briefregering":      {"Brief regering", "Letter from the government"},
	"oodocument":         {"Openbaar gemaakt document", "Disclosed document"},
	"persoongeschenk":    {"Geschenk aan een Kamerlid", "Gift to a Member of Parliament"},
	"schriftelijkevraag": {"Schriftelijke vraag", "Written question"},
}

// typeKey is a type's key in typeWords.
func typeKey(t string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '_' || r == '-' {
			return -1
		}
		return unicode.ToLower(r)
	}, strings.TrimSpace(t))
}

// properTypes are types that are names ("Staatscourant", "Tweede
// Kamerlid"): they keep their capitals inside a phrase.
var properTypes = map[string]bool{"staatscourant": true, "staatsblad": true, "gemeenteblad": true, "provinciaalblad": true,
	"waterschapsblad": true, "tweedekamerlid": true, "handelingen": true}

// typeWord names a result type in lang; capital says whether it starts a
// phrase ("Vergadering") or sits inside one ("nieuwste vergadering").
func typeWord(lang, t string, capital bool) string {
	k := typeKey(t)
	w, ok := typeWords[k]
	if !ok {
		return t
	}
	s := w[0]
	if lang == "en" {
		s = w[1]
	}
	if !capital && !properTypes[k] {
		r, n := utf8.DecodeRuneInString(s)
		s = string(unicode.ToLower(r)) + s[n:]
	}
	return s
}

var (
	mdLink     = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	mdLineMark = regexp.MustCompile(`^(?:#{1,6}\s*|[-*+]\s+|>\s*|\d+[.)]\s+)`)
	spaces     = regexp.MustCompile(`\s+`)
)

// plainText turns a snippet that may carry markdown (the platforms return
// markdown documents, and a snippet is a piece of one) into one line of
// plain text: no heading or list markers, no emphasis markers, links as
// their words. It is shown as text, never as HTML.
func plainText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.TrimSpace(l)
		for {
			m := mdLineMark.FindString(l)
			if m == "" {
				break
			}
			l = strings.TrimSpace(l[len(m):])
		}
		lines[i] = l
	}
	s = strings.Join(lines, " ")
	s = mdLink.ReplaceAllString(s, "$1")
	s = strings.NewReplacer("**", "", "__", "", "`", "", " # ", " ", " ## ", " ", " ### ", " ").Replace(s)
	return strings.TrimSpace(spaces.ReplaceAllString(s, " "))
}

// A note kind is what a connector's note tells a reader. Connectors write
// notes in English for assistants ("offset, limit and sort were applied by
// this connector to those rows"): what they say about the results matters
// to a person too, but their words do not fit a Dutch page, and the
// mechanics (paging done locally, a total inferred) matter to nobody
// reading it. So the page recognises the kinds of notes by their phrases
// and says each kind once in the page's language; a note of no known kind
// is summarised on the Dutch page as one Dutch line with the original
// behind a "technical details" disclosure, and shown as written on the
// English page. The assistants still get every note unchanged over MCP.
type noteKind struct {
	key     string   // message key ("" = not shown: mechanics only)
	phrases []string // any of them, lower-case, marks the kind
}

// noteKinds are tried in order: the first whose phrase occurs wins.
var noteKinds = []noteKind{
	{"note.cache", []string{"from besluitbron's cache"}},
	{"note.sunset", []string{"announces its end"}},
	{"note.unverified", []string{"unverified"}},
	{"note.capped", []string{"no paging", "serves only the first", "only the first"}},
	{"note.metadata", []string{"full-text search", "free-text search", "titles and subjects only", "metadata filters only"}},
	{"note.datewindow", []string{"relevance window"}},
	{"note.orgwords", []string{"matched as contained words"}},
	{"note.partial", []string{"left out", "could not be read", "unreadable", "incomplete", "unexpected form", "failed shards"}},
	{"", []string{"has_more", "total", "applied by this connector", "returned %d results for limit"}},
}

// noteView is one note as a page shows it: Text in the page's language,
// and Original, when set, the connector's words for a disclosure.
type noteView struct {
	Text     string
	Original string
}

// viewNotes words a section's notes for its page: one line per kind.
func viewNotes(lang, platform string, notes []string) []noteView {
	var out []noteView
	seen := map[string]bool{}
	var unknown []string
	for _, n := range notes {
		low := strings.ToLower(n)
		kind := "?"
		for _, k := range noteKinds {
			for _, ph := range k.phrases {
				if strings.Contains(low, ph) {
					kind = k.key
					break
				}
			}
			if kind != "?" {
				break
			}
		}
		switch {
		case kind == "?":
			unknown = append(unknown, n)
		case kind == "" || seen[kind]:
		default:
			seen[kind] = true
			out = append(out, noteView{Text: trName(lang, kind, platform)})
		}
	}
	if len(unknown) > 0 {
		if lang == "en" {
			for _, n := range unknown {
				out = append(out, noteView{Text: n})
			}
		} else {
			out = append(out, noteView{Text: trName(lang, "note.other", platform), Original: strings.Join(unknown, "\n")})
		}
	}
	return out
}

// trName is the message key with the platform's name, for messages that
// name it; the others are returned as they are.
func trName(lang, key, name string) string {
	if strings.Contains(tr(lang, key), "%s") {
		return tr(lang, key, name)
	}
	return tr(lang, key)
}

package web

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// typeWord names a result type in lang in the platform's words
// (connector.Manifest.TypeLabels: the page keeps no dictionary of
// platform types, so a connector written elsewhere gets its types named
// too); capital says whether it starts a phrase ("Vergadering") or sits
// inside one ("nieuwste vergadering"). A type the platform does not
// label, or a result of no known platform, is shown as written.
func (p *Platform) typeWord(lang, t string, capital bool) string {
	if p == nil {
		return t
	}
	l, ok := p.Types.Of(t)
	if !ok {
		return t
	}
	s := l.In(lang)
	if !capital && !l.Proper {
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

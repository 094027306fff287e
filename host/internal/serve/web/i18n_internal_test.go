package web

import (
	"regexp"
	"slices"
	"testing"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

var verb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)

// TestMessagesAgree: every text has both languages, with the same
// formatting verbs in the same order (a Dutch "%d" against an English "%s"
// would print "%!s(int=3)" on one page only), and a count's ".0" or ".1"
// form takes at most the count.
func TestMessagesAgree(t *testing.T) {
	for key, m := range messages {
		if m[0] == "" || m[1] == "" {
			t.Errorf("%s: a language is missing: %q", key, m)
		}
		nl, en := verb.FindAllString(m[0], -1), verb.FindAllString(m[1], -1)
		if !slices.Equal(nl, en) {
			t.Errorf("%s: Dutch verbs %v, English %v", key, nl, en)
		}
	}
}

// TestTypeWordsAndPlainText: the types a platform labels in its manifest
// are named in both languages, whatever their case or separators; a type
// it does not label, or a result of no known platform, is shown as
// written; a snippet's markdown is gone.
func TestTypeWordsAndPlainText(t *testing.T) {
	p := &Platform{ID: "x", Types: connector.TypeLabels{
		{Type: "Meeting", NL: "Vergadering", EN: "Meeting"}, {Type: "MediaObject", NL: "Document", EN: "Document"}, {Type: "Motion", NL: "Motie", EN: "Motion"},
		{Type: "AgendaItem", NL: "Agendapunt", EN: "Agenda item"}, {Type: "Provinciaal blad", NL: "Provinciaal blad", EN: "Provincial Gazette", Proper: true},
		{Type: "Uitspraak", NL: "Uitspraak", EN: "Judgment"}, {Type: "publication", NL: "Publicatie", EN: "Publication"},
		{Type: "Staatscourant", NL: "Staatscourant", EN: "Government Gazette", Proper: true},
	}}
	for _, c := range []struct{ in, nl, en string }{
		{"Meeting", "Vergadering", "Meeting"}, {"MediaObject", "Document", "Document"}, {"Motion", "Motie", "Motion"},
		{"agenda_item", "Agendapunt", "Agenda item"}, {"AgendaItem", "Agendapunt", "Agenda item"}, {"Provinciaal blad", "Provinciaal blad", "Provincial Gazette"},
		{"Uitspraak", "Uitspraak", "Judgment"}, {"publication", "Publicatie", "Publication"}, {"Onbekend soort", "Onbekend soort", "Onbekend soort"},
	} {
		if nl, en := p.typeWord("nl", c.in, true), p.typeWord("en", c.in, true); nl != c.nl || en != c.en {
			t.Errorf("%s: %q / %q, want %q / %q", c.in, nl, en, c.nl, c.en)
		}
	}
	if got := p.typeWord("nl", "publication", false); got != "publicatie" {
		t.Errorf("inside a phrase: %q", got)
	}
	if got := p.typeWord("nl", "Staatscourant", false); got != "Staatscourant" {
		t.Errorf("a name inside a phrase: %q", got)
	}
	// The page keeps no dictionary of its own: another platform's types,
	// and a platform that labels none, are shown as written.
	other := &Platform{ID: "y"}
	var none *Platform
	for _, q := range []*Platform{other, none} {
		if got := q.typeWord("nl", "Meeting", true); got != "Meeting" {
			t.Errorf("a type its platform does not label: %q, want it as written", got)
		}
	}
	for in, want := range map[string]string{
		"# Actieplan\n## Beslispunten\n- **Vaststellen**": "Actieplan Beslispunten Vaststellen",
		"Zie [de bijlage](https://x/y) en `code`":         "Zie de bijlage en code",
		"  1. Eerste\n> citaat  ":                         "Eerste citaat",
		"5 * 3 = 15 # geen kop":                           "5 * 3 = 15 geen kop",
	} {
		if got := plainText(in); got != want {
			t.Errorf("plainText(%q) = %q, want %q", in, got, want)
		}
	}
}

package web_test

import (
	"html"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// The messages an ambiguous organisation filter comes back with: the
// council connectors' tool error (as the MCP server passes it on, with the
// platform's name in front) and besluitbron_search's section reason.
const (
	connectorAmbiguous = `OpenBesluitvorming: organization "Bergen" matches 2 organisations: Gemeente Bergen (Limburg) — pass organization="bergen"; Gemeente Bergen (Noord-Holland) — pass organization="bergen_nh". The user could not be asked (the call comes from no MCP client); ask which one is meant and call again with its organization`
	searchAmbiguous    = `organization "Dorp" matches 11 organisations on OpenBesluitvorming: Gemeente Dorp (Limburg) — pass organization="Gemeente Dorp (Limburg)" (key "dorp_l"); Gemeente Dorp — pass organization="dorp_2"; and 9 more (give a fuller name). None was picked: ask which one is meant and search again with it`
)

// TestAmbiguousFilterIsAChoiceInDutch: a filter that fits several
// organisations shows them on the Dutch page in Dutch words, each a link
// that searches again with its key, and no English a reader could see;
// the English page says the same in English.
func TestAmbiguousFilterIsAChoiceInDutch(t *testing.T) {
	for name, msg := range map[string]string{"connector": connectorAmbiguous, "besluitbron_search": searchAmbiguous} {
		t.Run(name, func(t *testing.T) {
			f := &fake{answer: func(tool string, _ map[string]any, _ *callinfo.Info) invoke.Answer {
				if tool == "obv_search" {
					return toolErr(msg)
				}
				return toolErr("OpenBesluitvorming: list_sources: the platform answered HTTP 500: error")
			}}
			srv := serve(t, f, nil)
			_, body, _ := get(t, srv.URL+"/?q=woningbouw&p=obv&f.obv=Bergen")
			text := visible(body)
			if m := englishWords.FindAllString(text, -1); len(m) > 0 || strings.Contains(text, "pass organization") || strings.Contains(text, "matches") {
				t.Errorf("English on the Dutch page: %q\n%s", m, text)
			}
			switch name {
			case "connector":
				mustContain(t, text, "„Bergen” past bij 2 organisaties bij OpenBesluitvorming. Kies welke u bedoelt: Gemeente Bergen (Limburg) Gemeente Bergen (Noord-Holland)")
				mustContain(t, html.UnescapeString(body), `href="/?f.obv=bergen_nh&p=obv&q=woningbouw#r-obv">Gemeente Bergen (Noord-Holland)</a>`,
					`href="/?f.obv=bergen&p=obv&q=woningbouw#r-obv">Gemeente Bergen (Limburg)</a>`)
			default:
				mustContain(t, text, "„Dorp” past bij 11 organisaties bij OpenBesluitvorming.", "Gemeente Dorp (Limburg) Gemeente Dorp en nog 9; typ een vollediger naam")
				mustContain(t, html.UnescapeString(body), `href="/?f.obv=dorp_l&p=obv&q=woningbouw#r-obv"`, `href="/?f.obv=dorp_2&p=obv&q=woningbouw#r-obv"`)
			}
			_, body, _ = get(t, srv.URL+"/?q=woningbouw&p=obv&f.obv=Bergen&lang=en")
			if text := visible(body); !strings.Contains(text, "fits") || !strings.Contains(text, "Choose the one you mean") {
				t.Errorf("English page: %s", text)
			}
		})
	}
}

// TestOtherErrorsAreNotChoices: a message that only looks like a list
// (no candidate, a count under two) stays an error.
func TestOtherErrorsAreNotChoices(t *testing.T) {
	for _, msg := range []string{
		`OpenBesluitvorming: organization "Bergen" matches 1 organisations: Gemeente Bergen — pass organization="bergen"`,
		`OpenBesluitvorming: organization "Bergen" matches 2 organisations: none here`,
		`OpenBesluitvorming: argument "organization": no organisation "Bergen" on OpenBesluitvorming; take a key or name from obv_list_sources`,
	} {
		f := &fake{answer: func(string, map[string]any, *callinfo.Info) invoke.Answer { return toolErr(msg) }}
		srv := serve(t, f, nil)
		_, body, _ := get(t, srv.URL+"/?q=x&p=obv&f.obv=Bergen")
		if strings.Contains(body, "Kies welke u bedoelt") || !strings.Contains(body, "Technische melding") {
			t.Errorf("%q shown as a choice", msg)
		}
	}
}

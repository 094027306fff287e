package web_test

import (
	"context"
	"fmt"
	"html"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/host/internal/serve/web"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// pageWords are the words the page had for the platforms' record types
// when it kept them in a dictionary of its own (words.go's typeWords, by
// connector.TypeKey), and whether each kept its capital inside a phrase.
// The manifests say them now; these are what the page must still show.
var pageWords = map[string]struct {
	nl, en string
	proper bool
}{
	"document": {"Document", "Document", false}, "mediaobject": {"Document", "Document", false},
	"meeting": {"Vergadering", "Meeting", false}, "vergadering": {"Vergadering", "Meeting", false},
	"motion": {"Motie", "Motion", false}, "motie": {"Motie", "Motion", false},
	"recording": {"Opname", "Recording", false}, "agendaitem": {"Agendapunt", "Agenda item", false},
	"organization": {"Organisatie", "Organisation", false}, "person": {"Persoon", "Person", false}, "persoon": {"Persoon", "Person", false},
	"activity": {"Activiteit", "Activity", false}, "activiteit": {"Activiteit", "Activity", false},
	"event": {"Bijeenkomst", "Event", false}, "vote": {"Stemming", "Vote", false}, "voteevent": {"Stemming", "Vote", false},
	"report": {"Rapport", "Report", false}, "verslag": {"Verslag", "Record of proceedings", false},
	"publication":  {"Publicatie", "Publication", false},
	"municipality": {"Gemeente", "Municipality", false}, "gemeente": {"Gemeente", "Municipality", false},
	"province": {"Provincie", "Province", false}, "provincie": {"Provincie", "Province", false},
	"water": {"Waterschap", "Water board", false}, "waterschap": {"Waterschap", "Water board", false},
	"organizationtype": {"Soort organisatie", "Type of organisation", false},
	"kamerstuk":        {"Kamerstuk", "Parliamentary paper", false}, "handelingen": {"Handelingen", "Proceedings", true},
	"uitspraak": {"Uitspraak", "Judgment", false}, "conclusie": {"Conclusie", "Advisory opinion", false},
	"staatscourant": {"Staatscourant", "Government Gazette", true}, "staatsblad": {"Staatsblad", "Bulletin of Acts and Decrees", true},
	"gemeenteblad": {"Gemeenteblad", "Municipal Gazette", true}, "provinciaalblad": {"Provinciaal blad", "Provincial Gazette", true},
	"waterschapsblad": {"Waterschapsblad", "Water Board Gazette", true},
	"zaak":            {"Zaak", "Case", false}, "toezegging": {"Toezegging", "Commitment", false}, "commissie": {"Commissie", "Committee", false},
	"fractie": {"Fractie", "Parliamentary group", false}, "tweedekamerlid": {"Tweede Kamerlid", "Member of the House of Representatives", true},
	"briefregering": {"Brief regering", "Letter from the government", false}, "oodocument": {"Openbaar gemaakt document", "Disclosed document", false},
	"persoongeschenk": {"Geschenk aan een Kamerlid", "Gift to a Member of Parliament", false}, "schriftelijkevraag": {"Schriftelijke vraag", "Written question", false},
}

// carried are types each platform's results are known to carry (its
// search schema's enums, its recorded answers, its freshness reading),
// as it spells them: each must be labelled by its own manifest.
var carried = map[string][]string{
	"obv":            {"Meeting", "Document", "Motion", "Recording", "gemeente", "provincie", "waterschap"},
	"ori":            {"MediaObject", "Meeting", "AgendaItem", "Organization", "Activity", "municipality", "province"},
	"tk":             {"document", "Motie", "Brief regering", "Persoon", "Zaak", "Activiteit"},
	"opentk":         {"Document", "Activiteit", "Verslag", "Toezegging", "PersoonGeschenk", "OODocument", "Motie", "Brief regering", "commissie", "Tweede Kamerlid"},
	"obk":            {"publication", "organization_type", "Staatscourant", "Staatsblad", "Gemeenteblad", "Provinciaal blad", "Waterschapsblad", "Kamerstuk", "Handelingen"},
	"rechtspraak":    {"Uitspraak", "Conclusie"},
	"openarchivaris": {"document", "gemeente", "provincie", "waterschap"},
}

func manifests(t *testing.T) map[string]connector.Manifest {
	t.Helper()
	out := map[string]connector.Manifest{}
	for _, p := range []*sdk.Plugin{obv.Plugin(), ori.Plugin(), tk.Plugin(), opentk.Plugin(), obk.Plugin(), rechtspraak.Plugin(), openarchivaris.Plugin()} {
		m, err := p.Describe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out[m.ID] = m
	}
	return out
}

// TestEveryConnectorsTypesInPeoplesWords: every connector labels the
// types its results carry, in the words the page used for them before
// the manifests said them, and every word the page had is some
// connector's; the search page and the Laadstatus show those labels, in
// Dutch and English, for every platform. It catches a connector whose
// types lost their words when the page's dictionary went, and a label
// that differs from what readers saw.
func TestEveryConnectorsTypesInPeoplesWords(t *testing.T) {
	ms := manifests(t)
	said := map[string]bool{}
	for id, m := range ms {
		for _, l := range m.TypeLabels {
			k := connector.TypeKey(l.Type)
			w, ok := pageWords[k]
			switch {
			case !ok:
				t.Errorf("%s labels %q, which the page never named", id, l.Type)
			case l.NL != w.nl || l.EN != w.en || l.Proper != w.proper:
				t.Errorf("%s labels %q %q / %q (proper %v); the page said %q / %q (proper %v)", id, l.Type, l.NL, l.EN, l.Proper, w.nl, w.en, w.proper)
			}
			said[k] = true
		}
		for _, ty := range carried[id] {
			if _, ok := m.TypeLabels.Of(ty); !ok {
				t.Errorf("%s does not label %q, which its results carry", id, ty)
			}
		}
		if f := m.Freshness; f != nil && f.Type != "" {
			if _, named := pageWords[connector.TypeKey(f.Type)]; named {
				if _, ok := m.TypeLabels.Of(f.Type); !ok {
					t.Errorf("%s does not label its freshness reading's type %q", id, f.Type)
				}
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(pageWords)) {
		if !said[k] {
			t.Errorf("no connector labels %q: the page's word for it is gone", k)
		}
	}

	// Through the page: each platform's results of each type it labels,
	// on the Dutch and the English page, and its freshness reading on the
	// Laadstatus.
	var ps []web.Platform
	for _, id := range slices.Sorted(maps.Keys(ms)) {
		p, ok := web.PlatformOf(id, ms[id])
		if !ok {
			t.Fatalf("%s: not on the page", id)
		}
		ps = append(ps, p)
	}
	f := &fake{answer: func(tool string, _ map[string]any, _ *callinfo.Info) invoke.Answer {
		id, found := strings.CutSuffix(tool, "_search")
		if !found {
			return toolErr("unexpected " + tool)
		}
		var items []map[string]any
		for i, l := range ms[id].TypeLabels {
			items = append(items, map[string]any{"id": fmt.Sprint(i), "type": l.Type, "title": "t", "organization": "Org" + fmt.Sprint(i)})
		}
		return ok(map[string]any{"platform": id, "has_more": false, "offset": 0, "results": items})
	}}
	now := time.Date(2026, 6, 30, 10, 0, 0, 0, time.UTC)
	var snap loadstatus.Snapshot
	for _, id := range slices.Sorted(maps.Keys(ms)) {
		if fr := ms[id].Freshness; fr != nil && fr.Type != "" {
			snap.Platforms = append(snap.Platforms, loadstatus.Status{Platform: id, Title: ms[id].Title, State: loadstatus.Up, CheckedAt: now,
				Freshness: &loadstatus.Freshness{Newest: "2026-06-29", NewestOf: fr.Type}})
		}
	}
	srv := serve(t, f, func(o *web.Options) {
		o.Platforms = ps
		o.Status = func() loadstatus.Snapshot { return snap }
		o.Now = func() time.Time { return now }
	})
	for _, id := range slices.Sorted(maps.Keys(ms)) {
		for _, lang := range []string{"nl", "en"} {
			_, body, _ := get(t, srv.URL+"/?van=2024-01-01&p="+id+"&lang="+lang)
			text := html.UnescapeString(body)
			for i, l := range ms[id].TypeLabels {
				w := pageWords[connector.TypeKey(l.Type)]
				want := w.nl
				if lang == "en" {
					want = w.en
				}
				if !strings.Contains(text, fmt.Sprintf("Org%d · %s<", i, want)) {
					t.Errorf("%s, %s page: %q is not shown as %q", id, lang, l.Type, want)
				}
			}
		}
	}
	for _, lang := range []string{"nl", "en"} {
		_, body, _ := get(t, srv.URL+"/status?lang="+lang)
		text := html.UnescapeString(body)
		for _, st := range snap.Platforms {
			w, named := pageWords[connector.TypeKey(st.Freshness.NewestOf)]
			if !named {
				continue
			}
			want := w.nl
			if lang == "en" {
				want = w.en
			}
			if !w.proper {
				want = strings.ToLower(want[:1]) + want[1:]
			}
			if !strings.Contains(text, want+": ") && !strings.Contains(text, want+" ") {
				t.Errorf("%s, %s Laadstatus: the newest %q is not said as %q", st.Platform, lang, st.Freshness.NewestOf, want)
			}
		}
	}
}

// TestSearchArgsFromTheProfile: the page asks a platform through its
// manifest's search profile, as besluitbron_search does
// (connector.SearchProfile.Arguments): the profile's argument names,
// whatever the tool calls them, a range the platform takes only whole
// filled to today, no offset where the tool does not page, and words
// never sent to a platform that takes none. It catches a page that
// guesses "query", "date_from" or "offset" from names.
func TestSearchArgsFromTheProfile(t *testing.T) {
	f := &fake{answer: func(string, map[string]any, *callinfo.Info) invoke.Answer {
		return ok(map[string]any{"platform": "x", "has_more": false, "offset": 0, "results": []map[string]any{}})
	}}
	now := time.Date(2026, 6, 30, 10, 0, 0, 0, time.UTC)
	srv := serve(t, f, func(o *web.Options) {
		o.Now = func() time.Time { return now }
		o.Platforms = []web.Platform{
			{ID: "aa", Title: "AA", SearchTool: "aa_zoek", Profile: &connector.SearchProfile{Tool: "zoek", QueryArg: "q", DateFromArg: "van", DateToArg: "tot", LimitArg: "rows", MaxLimit: 5}},
			{ID: "bb", Title: "BB", SearchTool: "bb_search", Profile: &connector.SearchProfile{Tool: "search", DateFromArg: "date_from", DateToArg: "date_to", DatesWhole: true, MaxLimit: 100, OffsetArg: "start"},
				Filter: &web.Filter{Arg: "court", LabelNL: "Instantie", LabelEN: "Court"}},
		}
	})
	for _, c := range []struct {
		query string
		want  map[string]map[string]any
	}{
		{"?q=stikstof&p=aa&p=bb&van=2024-01-01&o=10", map[string]map[string]any{
			"aa_zoek": {"q": "stikstof", "van": "2024-01-01", "rows": float64(5)}}},
		{"?p=aa&p=bb&van=2024-01-01&o=10", map[string]map[string]any{
			"aa_zoek":   {"van": "2024-01-01", "rows": float64(5)},
			"bb_search": {"date_from": "2024-01-01", "date_to": "2026-06-30", "limit": float64(10), "start": float64(10)}}},
		{"?q=stikstof&p=bb&f.bb=HR&tot=2024-12-31", map[string]map[string]any{
			"bb_search": {"court": "HR", "date_from": "1800-01-01", "date_to": "2024-12-31", "limit": float64(10)}}},
	} {
		before := len(f.recorded())
		if code, body, _ := get(t, srv.URL+"/"+c.query); code != 200 {
			t.Fatalf("%s: status %d\n%s", c.query, code, body)
		}
		got := map[string]map[string]any{}
		for _, call := range f.recorded()[before:] {
			got[call.tool] = call.args
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: asked %v, want %v", c.query, got, c.want)
		}
		for tool, want := range c.want {
			if !maps.Equal(got[tool], want) {
				t.Errorf("%s: %s asked %v, want %v", c.query, tool, got[tool], want)
			}
		}
	}
}

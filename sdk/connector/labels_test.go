package connector_test

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// TestTypeLabelsOf: a type is found however the platform spells it
// (case, spaces, underscores, hyphens), in both languages; an unlabelled
// or empty type is not found, so a page shows it as written.
func TestTypeLabelsOf(t *testing.T) {
	ls := connector.TypeLabels{
		{Type: "AgendaItem", NL: "Agendapunt", EN: "Agenda item"},
		{Type: "Provinciaal blad", NL: "Provinciaal blad", EN: "Provincial Gazette", Proper: true},
	}
	for _, c := range []struct{ in, nl, en string }{
		{"AgendaItem", "Agendapunt", "Agenda item"}, {"agenda_item", "Agendapunt", "Agenda item"}, {" agenda-item ", "Agendapunt", "Agenda item"},
		{"provinciaalblad", "Provinciaal blad", "Provincial Gazette"},
	} {
		l, ok := ls.Of(c.in)
		if !ok || l.In("nl") != c.nl || l.In("en") != c.en {
			t.Errorf("%q: %+v %v, want %q / %q", c.in, l, ok, c.nl, c.en)
		}
	}
	for _, in := range []string{"", " ", "Meeting", "agenda"} {
		if l, ok := ls.Of(in); ok {
			t.Errorf("%q: found %+v", in, l)
		}
	}
}

// TestTypeLabelsValidate: every label has a type, both languages and one
// short line each, and a type (by its key) is labelled once; the error
// names the entry. The labels survive the manifest's JSON, as the host
// receives it from a module or a process.
func TestTypeLabelsValidate(t *testing.T) {
	for _, c := range []struct {
		ls   connector.TypeLabels
		want string
	}{
		{nil, ""},
		{connector.TypeLabels{{Type: "Meeting", NL: "Vergadering", EN: "Meeting"}, {Type: "Staatscourant", NL: "Staatscourant", EN: "Government Gazette", Proper: true}}, ""},
		{connector.TypeLabels{{Type: " ", NL: "x", EN: "x"}}, "type_labels[0].type: empty"},
		{connector.TypeLabels{{Type: "Meeting", NL: "Vergadering"}}, "type_labels[0] (Meeting): nl and en are required"},
		{connector.TypeLabels{{Type: "AgendaItem", NL: "a", EN: "a"}, {Type: "agenda_item", NL: "b", EN: "b"}}, `type_labels[1].type "agenda_item": labelled twice`},
		{connector.TypeLabels{{Type: "Meeting", NL: strings.Repeat("v", 101), EN: "Meeting"}}, "type_labels[0].nl: 101 bytes, at most 100"},
		{connector.TypeLabels{{Type: "Meeting", NL: "Vergadering", EN: "Meet\ning"}}, "type_labels[0].en: a control character"},
	} {
		m := quotaManifest(connector.Service{Name: "api", Units: 1, Per: connector.Duration(time.Second)})
		m.TypeLabels = c.ls
		err := m.Validate()
		if (c.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.ls, err, c.want)
		}
		if c.want != "" {
			continue
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var back connector.Manifest
		if err := json.Unmarshal(b, &back); err != nil || len(back.TypeLabels) != len(c.ls) {
			t.Fatalf("the labels did not survive JSON: %v, %s", err, b)
		}
		for i := range c.ls {
			if back.TypeLabels[i] != c.ls[i] {
				t.Errorf("label %d after JSON: %+v, want %+v", i, back.TypeLabels[i], c.ls[i])
			}
		}
		if cl := m.Clone(); len(cl.TypeLabels) != len(c.ls) {
			t.Errorf("Clone lost the labels: %+v", cl.TypeLabels)
		}
	}
}

// TestSearchProfileArguments: the common arguments land on the profile's
// names; what the tool does not take is left out; the limit is capped; a
// range the tool takes only whole is filled.
func TestSearchProfileArguments(t *testing.T) {
	full := &connector.SearchProfile{Tool: "search", QueryArg: "query", DateFromArg: "date_from", DateToArg: "date_to", MaxLimit: 100, OffsetArg: "offset"}
	whole := &connector.SearchProfile{Tool: "search", DateFromArg: "van", DateToArg: "tot", DatesWhole: true, LimitArg: "rows", MaxLimit: 20}
	for _, c := range []struct {
		name string
		sp   *connector.SearchProfile
		r    connector.SearchRequest
		want map[string]any
	}{
		{"all", full, connector.SearchRequest{Query: "stikstof", DateFrom: "2024-01-01", DateTo: "2024-12-31", Limit: 10, Offset: 20},
			map[string]any{"query": "stikstof", "date_from": "2024-01-01", "date_to": "2024-12-31", "limit": 10, "offset": 20}},
		{"none given", full, connector.SearchRequest{Limit: 10}, map[string]any{"limit": 10}},
		{"capped", full, connector.SearchRequest{Query: "x", Limit: 500}, map[string]any{"query": "x", "limit": 100}},
		{"no query taken", whole, connector.SearchRequest{Query: "x", Limit: 10, Offset: 10}, map[string]any{"rows": 10}},
		{"whole from", whole, connector.SearchRequest{DateFrom: "2024-01-01", Limit: 50, Today: "2026-12-05"}, map[string]any{"van": "2024-01-01", "tot": "2026-12-05", "rows": 20}},
		{"whole to", whole, connector.SearchRequest{DateTo: "2024-01-01", Limit: 5, Today: "2026-12-05"}, map[string]any{"van": "1800-01-01", "tot": "2024-01-01", "rows": 5}},
	} {
		if got := c.sp.Arguments(c.r); !maps.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

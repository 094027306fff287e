package platformsim

import (
	"strings"
	"testing"
)

func TestODataFilter(t *testing.T) {
	rec := map[string]any{
		"Titel": "Motie over de Wet open overheid", "Onderwerp": "Motie van het lid Kröger over klimaat",
		"Datum": "2024-10-31T00:00:00+01:00", "Verwijderd": false, "Kamer": 2.0, "Organisatie": nil,
		"Zaak": []any{map[string]any{"Nummer": "2025Z12846"}, map[string]any{"Nummer": "2024Z00001"}},
	}
	known := func(p string) bool { _, ok := rec[p]; return ok }
	for filter, want := range map[string]bool{
		"Verwijderd eq false":                                         true,
		"Verwijderd eq true":                                          false,
		"contains(Titel,'open overheid')":                             true,
		"contains(Onderwerp,'KROGER')":                                true, // case and accents fold
		"contains(Titel,'wet') and contains(Titel,'zwembad')":         false,
		"contains(Titel,'zwembad') or contains(Titel,'motie')":        true,
		"not contains(Titel,'motie')":                                 false,
		"Datum ge 2024-10-30T23:00:00Z":                               true, // the same instant in another offset
		"Datum lt 2024-10-31T00:00:00+01:00":                          false,
		"year(Datum) eq 2024":                                         true,
		"Kamer eq 2 and Organisatie eq null":                          true,
		"Organisatie ne null":                                         false,
		"Zaak/any(z:z/Nummer eq '2025Z12846')":                        true,
		"Zaak/any(z:z/Nummer eq '2099Z00000')":                        false,
		"Zaak/all(z:startswith(z/Nummer,'20'))":                       true,
		"(contains(Titel,'x') or Kamer eq 2) and Verwijderd eq false": true,
		"Titel eq 'Motie over de Wet open overheid'":                  true,
		"Titel eq 'it''s'":                                            false,
	} {
		n, _, err := parseODataFilter(filter, "Document", known)
		if err != nil {
			t.Errorf("%s: %v", filter, err)
			continue
		}
		got, err := n.eval(odataEnv{rec: rec})
		if err != nil || got != want {
			t.Errorf("%s = %v (%v), want %v", filter, got, err, want)
		}
	}
	for filter, want := range map[string]string{
		"Foo eq 1":                  "Could not find a property named 'Foo' on type 'TK.DA.GGM.OData.Document'",
		"contains(Titel,'x'":        "')' expected",
		"Titel eq 'open":            "unterminated string",
		"bogus(Titel)":              "unknown function",
		"Verwijderd eq false and":   "expression expected",
		"Zaak/any(z z/Nummer eq 1)": "':' expected",
	} {
		if _, _, err := parseODataFilter(filter, "Document", known); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", filter, err, want)
		}
	}
	// Node counting follows the platform's order of magnitude: 30 words
	// over two fields pass 100.
	var parts []string
	for i := 0; i < 30; i++ {
		parts = append(parts, "(contains(Titel,'a') or contains(Onderwerp,'a'))")
	}
	if _, nodes, err := parseODataFilter(strings.Join(parts, " and "), "Document", known); err != nil || nodes <= 100 {
		t.Errorf("30 words: %d nodes, %v", nodes, err)
	}
}

func TestCQL(t *testing.T) {
	r := &obkRecord{Identifier: "kst-33328-AI", Title: "Wet open overheid; Verslag", Creator: []string{"Eerste Kamer der Staten-Generaal"},
		Type: []string{"Kamerstuk"}, Date: "2023-12-28", Publicatienaam: "Kamerstuk", Dossiernummer: "33328", Organisatietype: "staten generaal"}
	r.text = newDoc(r.Title, "implementatie van de Woo")
	r.title = newDoc(r.Title)
	for q, want := range map[string]bool{
		`c.product-area==officielepublicaties`:                                 true,
		`cql.textAndIndexes="woo"`:                                             true,
		`cql.textAndIndexes="implementatie van de Woo"`:                        true,
		`cql.textAndIndexes="implementatie Woo"`:                               false, // a phrase, not words
		`cql.textAndIndexes all "Woo implementatie"`:                           true,
		`cql.textAndIndexes="overhei"`:                                         false, // no stemming, no wildcards
		`dt.title="open" and w.dossiernummer=="33328"`:                         true,
		`(w.publicatienaam=="Staatscourant" or w.publicatienaam=="Kamerstuk")`: true,
		`dt.date>="2024-01-01"`:                                                false,
		`dt.date<="2023-12-28" and dt.date>="2023-12-28"`:                      true,
		`dt.creator="Eerste Kamer" not dt.creator="Tweede"`:                    true,
		`dt.identifier any "kst-"`:                                             true,
		`w.organisatietype=="Staten Generaal"`:                                 true,
		`dt.title="Wet \"open\" overheid" sortBy dt.date/sort.descending`:      true,
		`c.product-area==officielepublicaties and cql.textAndIndexes="a\*b"`:   false,
	} {
		cq, err := parseCQL(q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		got, err := r.eval(cq.root)
		if err != nil || got != want {
			t.Errorf("%s = %v (%v), want %v", q, got, err, want)
		}
	}
	cq, _ := parseCQL(`dt.title="x" sortBy dt.modified/sort.ascending`)
	if cq.sortBy != "dt.modified" || cq.sortDesc {
		t.Errorf("sortBy: %+v", cq)
	}
	for q, want := range map[string]string{
		`dt.title="open`:   "unterminated",
		`dt.title="x" and`: "unexpected end",
		`(dt.title="x"`:    "missing ')'",
		`dt.title="{x}"`:   "",
		`dt.title={x}`:     "token recognition error",
	} {
		_, err := parseCQL(q)
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", q, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", q, err, want)
		}
	}
}

func TestFTS(t *testing.T) {
	d := newDoc("Motie van het lid De Hoop over meer sociale huurwoningen in het WW-uitkering woningbouwprogramma")
	for q, want := range map[string]bool{
		"motie woningbouw":            true,
		"motie zwembad":               false,
		`"sociale huurwoningen"`:      true,
		`"huurwoningen sociale"`:      false,
		"zwembad OR woningbouw":       true,
		"motie NOT woningbouw":        false,
		"motie NOT zwembad":           true,
		"NEAR(sociale huurwoningen)":  true,
		"woningbouw*":                 true,
		"WW-uitkering":                true,
		"(zwembad OR motie) AND hoop": true,
	} {
		m, err := parseFTS(q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		if sc, _ := m(d); (sc > 0) != want {
			t.Errorf("%s: score %d, want match %v", q, sc, want)
		}
	}
	for _, q := range []string{"klimaat AND", `"open`, "OR x", "(a", "NOT"} {
		if _, err := parseFTS(q); err == nil {
			t.Errorf("%q parsed", q)
		}
	}
}

func TestSnippet(t *testing.T) {
	text := "Het college wil tot 2030 ruim 900 woningen bouwen & de woningbouw versnellen in Soesterberg."
	got := snippet(text, queryTerms("woningbouw"), "<b>", "</b>", 40, true)
	if !strings.Contains(got, "<b>woningbouw</b>") || !strings.Contains(got, "&amp;") || !strings.HasPrefix(got, "...") {
		t.Errorf("snippet %q", got)
	}
	if got := snippet(text, nil, "<b>", "</b>", 20, false); !strings.HasPrefix(got, "Het college") || !strings.HasSuffix(got, "...") {
		t.Errorf("no terms: %q", got)
	}
}

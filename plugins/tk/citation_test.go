package tk_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// isPage says why u is not a page on tweedekamer.nl a person opens, or "".
func isPage(u string) string {
	switch {
	case !strings.HasPrefix(u, "https://www.tweedekamer.nl/"):
		return "not a page on https://www.tweedekamer.nl"
	case strings.Contains(u, "gegevensmagazijn") || strings.Contains(u, "OData") || strings.Contains(u, "/resource"):
		return "an API link"
	}
	return ""
}

// TestCitationIsAPageOnHTTPS holds tk to the citation rule: every url is
// the record's page on tweedekamer.nl (never the OData record or file,
// which stay in extra.tk), on https, and tk_search and tk_get_document
// cite the same page for one document, whether it is opened by Id or by
// number and whatever its text was read from.
func TestCitationIsAPageOnHTTPS(t *testing.T) {
	var docs struct {
		Value []json.RawMessage `json:"value"`
	}
	raw, err := os.ReadFile(td + "tk-search-documents.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &docs); err != nil || len(docs.Value) == 0 {
		t.Fatalf("fixture: %v", err)
	}
	first := docs.Value[0]
	id := "0b9f3f4e-8a51-4d0c-9a55-0e3c1f1b2a77"
	h := sdktest.NewHost(t).
		Handle(base+"/Document?*", 200, td+"tk-search-documents.json").
		Handle(base+"/Zaak?*", 200, td+"tk-search-zaak.json").
		Handle(base+"/Activiteit?*", 200, td+"tk-search-activiteit.json").
		HandleBody(metaURL(id), 200, first).
		HandleBody(metaURL("2024D41173"), 200, []byte(`{"value":[`+string(first)+`]}`)).
		HandleBody(base+"/Document("+id+")/resource", 200, makePDF([]string{"Motie van het lid Dassen c.s."}))

	var all []sdk.Item
	for _, args := range []string{`{"query":"ijsbaan"}`, `{"entity":"Zaak","query":"Woo"}`, `{"entity":"Activiteit"}`} {
		var sr sdk.SearchResult
		sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "search", args), &sr)
		if len(sr.Results) == 0 {
			t.Fatalf("search %s: no results", args)
		}
		all = append(all, sr.Results...)
	}
	for _, r := range all {
		if why := isPage(r.URL); why != "" {
			t.Errorf("%s %s: url %q is %s", r.Type, r.ID, r.URL, why)
		}
	}
	motie := all[0]
	if motie.URL != "https://www.tweedekamer.nl/kamerstukken/detail?id=2024D41173&did=2024D41173" || motie.Extra["tk"]["resource_url"] != base+"/Document("+id+")/resource" {
		t.Errorf("document: url %q, extra %v", motie.URL, motie.Extra["tk"])
	}
	for _, r := range all {
		switch r.Type {
		case "Wetgeving":
			if r.URL != "https://www.tweedekamer.nl/kamerstukken/detail?id=2025Z12846" {
				t.Errorf("zaak url = %q", r.URL)
			}
		case "Plenair debat":
			if r.URL != "https://www.tweedekamer.nl/debat_en_vergadering/plenaire_vergaderingen/details/activiteit?id=2024A02517" {
				t.Errorf("plenary activity url = %q", r.URL)
			}
		}
	}
	for _, arg := range []string{id, "2024D41173"} {
		var d sdk.Document
		sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "get_document", `{"id":"`+arg+`"}`), &d)
		if d.URL != motie.URL {
			t.Errorf("get_document(%s) url %q, tk_search url %q: one document, two citations", arg, d.URL, motie.URL)
		}
		if d.Extra["tk"]["resource_url"] != base+"/Document("+id+")/resource" {
			t.Errorf("get_document(%s): the file is not kept in extra.tk: %v", arg, d.Extra["tk"])
		}
	}
}

func TestActivityPageURL(t *testing.T) {
	for soort, want := range map[string]string{
		"Plenair debat (wetgeving)": "https://www.tweedekamer.nl/debat_en_vergadering/plenaire_vergaderingen/details/activiteit?id=2024A00001",
		"Stemmingen":                "https://www.tweedekamer.nl/debat_en_vergadering/plenaire_vergaderingen/details/activiteit?id=2024A00001",
		"Vragenuur":                 "https://www.tweedekamer.nl/debat_en_vergadering/plenaire_vergaderingen/details/activiteit?id=2024A00001",
		"Commissiedebat":            "https://www.tweedekamer.nl/debat_en_vergadering/commissievergaderingen/details?id=2024A00001",
		"Procedurevergadering":      "https://www.tweedekamer.nl/debat_en_vergadering/commissievergaderingen/details?id=2024A00001",
		"":                          "https://www.tweedekamer.nl/debat_en_vergadering/commissievergaderingen/details?id=2024A00001",
	} {
		if got := tk.ActivityPageURL("2024A00001", soort); got != want {
			t.Errorf("ActivityPageURL(%q) = %q, want %q", soort, got, want)
		}
	}
	// Without a number the site has no page for a record: no url.
	if got := tk.ActivityPageURL("", "Commissiedebat") + tk.ZaakPageURL(" ") + tk.DocumentPageURL(""); got != "" {
		t.Errorf("pages without a number: %q", got)
	}
}

package tk_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

const (
	base = tk.BaseURL
	td   = "../../testdata/tk/"
)

func TestManifestValid(t *testing.T) {
	m := sdktest.CheckManifest(t, tk.Plugin())
	if s, ok := m.Service(tk.ServiceOData); !ok || s.Limited() {
		t.Errorf("odata service = %+v, want declared without a limit", s)
	}
	if s, ok := m.Service(tk.ServiceOBK); !ok || s.Units != 10 || time.Duration(s.Per) != 30*time.Second || !strings.HasPrefix(s.Description, "[T]") {
		t.Errorf("obk service = %+v, want 10 per 30 s marked [T]", s)
	}
	if got := m.AllowedHosts; !cmp.Equal(got, []string{"gegevensmagazijn.tweedekamer.nl", "zoek.officielebekendmakingen.nl"}) {
		t.Errorf("allowed hosts = %v", got)
	}
	if c, ok := m.CacheClass(tk.ClassMetadata); !ok || time.Duration(c.TTL) != 24*time.Hour {
		t.Errorf("metadata cache class = %+v", c)
	}
	if len(m.Resources) != 1 || m.Resources[0].URITemplate != "besluitbron://tk/document/{+id}" || m.Resources[0].Tool != "get_document" {
		t.Errorf("resources = %+v", m.Resources)
	}
	for _, tool := range m.Tools {
		if tool.CostNote == "" {
			t.Errorf("tool %s has no cost note", tool.Name)
		}
	}
	if d := m.Tools[0].Description; !strings.Contains(d, "NO full-text search") {
		t.Errorf("search description must say there is no full-text search: %s", d)
	}
}

func TestAmsterdamMidnight(t *testing.T) {
	// 2024: summer time from Sunday 31 March to Sunday 27 October.
	for _, c := range []struct{ day, want string }{
		{"2024-01-15", "2024-01-15T00:00:00+01:00"},
		{"2024-03-31", "2024-03-31T00:00:00+01:00"}, // clocks go forward at 02:00
		{"2024-04-01", "2024-04-01T00:00:00+02:00"},
		{"2024-10-27", "2024-10-27T00:00:00+02:00"}, // clocks go back at 03:00
		{"2024-10-28", "2024-10-28T00:00:00+01:00"},
		{"2025-03-30", "2025-03-30T00:00:00+01:00"},
		{"2025-03-31", "2025-03-31T00:00:00+02:00"},
	} {
		d, _ := time.Parse("2006-01-02", c.day)
		if got := tk.AmsterdamMidnight(d); got != c.want {
			t.Errorf("AmsterdamMidnight(%s) = %s, want %s", c.day, got, c.want)
		}
	}
}

func TestTerms(t *testing.T) {
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"Woo, stikstof!", []string{"Woo", "stikstof"}},
		{`"sociale advocatuur" rechtsbijstand`, []string{"sociale advocatuur", "rechtsbijstand"}},
		{`“Wet open overheid”`, []string{"Wet open overheid"}},
		{`d'Hondt 's-Gravenhage WW-uitkering`, []string{"d'Hondt", "s-Gravenhage", "WW-uitkering"}},
		{`onafgesloten "quote woorden`, []string{"onafgesloten", "quote", "woorden"}},
		{"Woo woo WOO", []string{"Woo"}},
		{"ijsbaan één", []string{"ijsbaan", "één"}},
		{"... ---", nil},
	} {
		if got := tk.Terms(c.q); !cmp.Equal(got, c.want) {
			t.Errorf("Terms(%q) = %q, want %q", c.q, got, c.want)
		}
	}
}

func TestLiteral(t *testing.T) {
	if got := tk.Literal("d'Hondt's"); got != "'d''Hondt''s'" {
		t.Errorf("Literal = %s", got)
	}
}

func TestSearchURL(t *testing.T) {
	for _, c := range []struct {
		name string
		args tk.SearchArgs
		want string
	}{
		{"defaults", tk.SearchArgs{},
			base + "/Document?$filter=Verwijderd%20eq%20false&$select=Id%2CSoort%2CDocumentNummer%2CTitel%2COnderwerp%2CDatum%2CVergaderjaar%2CKamer%2COrganisatie%2CContentType%2CContentLength%2CVolgnummer&$expand=Kamerstukdossier%28%24select%3DNummer%2CToevoeging%29%2CHuidigeDocumentVersie%28%24select%3DExterneIdentifier%29&$orderby=Datum%20desc%2CId%20desc&$top=25&$count=true"},
		{"words, quote, soort, dates across summer time, paging", tk.SearchArgs{Query: "d'Hondt Woo", Soort: "Motie", DateFrom: "2024-03-01", DateTo: "2024-06-30", Limit: 50, Offset: 100, Sort: "date_asc"},
			base + "/Document?$filter=" +
				"Verwijderd%20eq%20false%20and%20Soort%20eq%20%27Motie%27%20and%20Datum%20ge%202024-03-01T00%3A00%3A00%2B01%3A00%20and%20Datum%20lt%202024-07-01T00%3A00%3A00%2B02%3A00" +
				"%20and%20%28contains%28Titel%2C%27d%27%27Hondt%27%29%20or%20contains%28Onderwerp%2C%27d%27%27Hondt%27%29%29" +
				"%20and%20%28contains%28Titel%2C%27Woo%27%29%20or%20contains%28Onderwerp%2C%27Woo%27%29%29" +
				"&$select=Id%2CSoort%2CDocumentNummer%2CTitel%2COnderwerp%2CDatum%2CVergaderjaar%2CKamer%2COrganisatie%2CContentType%2CContentLength%2CVolgnummer&$expand=Kamerstukdossier%28%24select%3DNummer%2CToevoeging%29%2CHuidigeDocumentVersie%28%24select%3DExterneIdentifier%29&$orderby=Datum%20asc%2CId%20asc&$top=50&$skip=100&$count=true"},
		{"zaak", tk.SearchArgs{Zaak: "2025z12846", Limit: 250},
			base + "/Document?$filter=Verwijderd%20eq%20false%20and%20Zaak%2Fany%28z%3Az%2FNummer%20eq%20%272025Z12846%27%29&$select=Id%2CSoort%2CDocumentNummer%2CTitel%2COnderwerp%2CDatum%2CVergaderjaar%2CKamer%2COrganisatie%2CContentType%2CContentLength%2CVolgnummer&$expand=Kamerstukdossier%28%24select%3DNummer%2CToevoeging%29%2CHuidigeDocumentVersie%28%24select%3DExterneIdentifier%29&$orderby=Datum%20desc%2CId%20desc&$top=250&$count=true"},
		{"Zaak dates on GestartOp", tk.SearchArgs{Entity: "Zaak", DateFrom: "2025-01-01"},
			base + "/Zaak?$filter=Verwijderd%20eq%20false%20and%20GestartOp%20ge%202025-01-01T00%3A00%3A00%2B01%3A00&$select=Id%2CNummer%2CSoort%2CTitel%2COnderwerp%2CStatus%2CGestartOp%2CAfgedaan%2CVergaderjaar%2COrganisatie&$orderby=GestartOp%20desc%2CId%20desc&$top=25&$count=true"},
		{"Activiteit matches Onderwerp only", tk.SearchArgs{Entity: "Activiteit", Query: "Woo"},
			base + "/Activiteit?$filter=Verwijderd%20eq%20false%20and%20contains%28Onderwerp%2C%27Woo%27%29&$select=Id%2CNummer%2CSoort%2COnderwerp%2CDatum%2CStatus%2CVergaderjaar%2CVoortouwnaam%2CVoortouwafkorting&$orderby=Datum%20desc%2CId%20desc&$top=25&$count=true"},
		{"Dutch characters and a phrase", tk.SearchArgs{Query: `"één loket" ijsbaan`},
			base + "/Document?$filter=Verwijderd%20eq%20false%20and%20%28contains%28Titel%2C%27%C3%A9%C3%A9n%20loket%27%29%20or%20contains%28Onderwerp%2C%27%C3%A9%C3%A9n%20loket%27%29%29%20and%20%28contains%28Titel%2C%27ijsbaan%27%29%20or%20contains%28Onderwerp%2C%27ijsbaan%27%29%29&$select=Id%2CSoort%2CDocumentNummer%2CTitel%2COnderwerp%2CDatum%2CVergaderjaar%2CKamer%2COrganisatie%2CContentType%2CContentLength%2CVolgnummer&$expand=Kamerstukdossier%28%24select%3DNummer%2CToevoeging%29%2CHuidigeDocumentVersie%28%24select%3DExterneIdentifier%29&$orderby=Datum%20desc%2CId%20desc&$top=25&$count=true"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := tk.SearchURL(base, c.args)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("URL (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFilterNodes(t *testing.T) {
	// Six words over two fields with every other filter fits in 100 nodes;
	// the count must never undercut the measured costs.
	if n := tk.FilterNodes(6, 2, true, false, 2); n > 100 {
		t.Errorf("6 words with soort and dates = %d nodes, want ≤ 100", n)
	}
	if n := tk.FilterNodes(7, 2, true, false, 2); n <= 100 {
		t.Errorf("7 words with soort and dates = %d nodes, want > 100", n)
	}
	// contains(Titel,'x') or contains(Onderwerp,'x') is 9 nodes measured.
	if got := tk.FilterNodes(1, 2, false, false, 0) - tk.FilterNodes(0, 2, false, false, 0); got < 9 {
		t.Errorf("one word = %d nodes, less than the measured 9", got)
	}
}

func TestSearch(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/Document?*", 200, td+"tk-search-documents.json")
	res := sdktest.Call(t, tk.Plugin(), h, "search", `{"query":"ijsbaan","soort":"Motie","limit":2}`)
	var sr sdk.SearchResult
	sdktest.Decode(t, res, &sr)
	reqs := h.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if r := reqs[0]; r.Method != "GET" || r.Service != tk.ServiceOData || r.Cost != 1 || r.CacheClass != connector.ClassSearch ||
		!strings.Contains(r.URL, "contains%28Titel%2C%27ijsbaan%27%29") || !strings.Contains(r.URL, "&$top=2&$count=true") {
		t.Errorf("request = %+v", r)
	}
	if sr.Platform != "tk" || sr.Total == nil || *sr.Total != 57 || !sr.HasMore || len(sr.Results) != 2 || len(sr.Notes) != 1 {
		t.Fatalf("result = %+v", sr)
	}
	want := sdk.Item{
		ID: "0b9f3f4e-8a51-4d0c-9a55-0e3c1f1b2a77", Type: "Motie",
		Title:        "Motie van het lid Dassen c.s. over één financiële regeling voor gemeenten met ijsbanen",
		Date:         "2024-10-31",
		Organization: "Tweede Kamer",
		Snippet:      "Vaststelling van de begrotingsstaten van het Ministerie van Binnenlandse Zaken en Koninkrijksrelaties (VII) voor het jaar 2025",
		URL:          "https://www.tweedekamer.nl/kamerstukken/detail?id=2024D41173&did=2024D41173",
		Keys:         map[string]string{"tk_document_number": "2024D41173"},
		Extra: map[string]map[string]any{"tk": {
			"resource_url":    base + "/Document(0b9f3f4e-8a51-4d0c-9a55-0e3c1f1b2a77)/resource",
			"document_nummer": "2024D41173", "content_type": "application/pdf", "content_length": float64(48213),
			"kamer": float64(2), "vergaderjaar": "2024-2025",
			"votes": `tk_get_votes {"id":"2024D41173"}`,
		}},
	}
	if diff := cmp.Diff(want, sr.Results[0]); diff != "" {
		t.Errorf("first result (-want +got):\n%s", diff)
	}
	second := sr.Results[1]
	if second.Title != "Motie over de Wet open overheid" || second.Snippet != "" || second.Organization != tk.Organization {
		t.Errorf("a Titel equal to Onderwerp is no context, and a null Organisatie is the chamber: %+v", second)
	}
}

func TestSearchPaging(t *testing.T) {
	// The platform's own sample: a next link and no count.
	h := sdktest.NewHost(t).Handle(base+"/Document?*", 200, td+"tk-odata-document.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "search", `{"offset":250,"limit":250}`), &sr)
	if !sr.HasMore || sr.Total != nil || sr.Offset != 250 || len(sr.Results) != 1 || len(sr.Notes) != 0 {
		t.Errorf("result = %+v", sr)
	}
	if u := h.Requests()[0].URL; !strings.Contains(u, "&$top=250&$skip=250&") {
		t.Errorf("URL = %s", u)
	}
	// The last page: offset + results reach the count.
	h = sdktest.NewHost(t).Handle(base+"/Document?*", 200, td+"tk-search-documents.json")
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "search", `{"offset":55}`), &sr)
	if sr.HasMore {
		t.Errorf("offset 55 + 2 results of 57: has_more should be false")
	}
	// The count decides over a next link.
	h = sdktest.NewHost(t).HandleBody(base+"/Document?*", 200, []byte(`{"@odata.count":1,"value":[{"Id":"x","Soort":"Motie","DocumentNummer":"2024D1"}],"@odata.nextLink":"`+base+`/Document?$skip=250"}`))
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "search", `{}`), &sr)
	if sr.HasMore || sr.Results[0].Title != "Motie 2024D1" {
		t.Errorf("result = %+v", sr)
	}
}

func TestSearchEmpty(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/Document?*", 200, td+"tk-search-empty.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "search", `{"query":"xyzzy"}`), &sr)
	if sr.Results == nil || len(sr.Results) != 0 || sr.HasMore || sr.Total == nil || *sr.Total != 0 {
		t.Errorf("empty result = %+v", sr)
	}
}

func TestSearchZaakAndActiviteit(t *testing.T) {
	h := sdktest.NewHost(t).
		Handle(base+"/Zaak?*", 200, td+"tk-search-zaak.json").
		Handle(base+"/Activiteit?*", 200, td+"tk-search-activiteit.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "search", `{"entity":"Zaak","query":"Woo"}`), &sr)
	z := sr.Results[0]
	if z.Title != "Wijziging van de Wet open overheid ter verbetering van de uitvoerbaarheid" || z.Date != "2025-06-24" ||
		z.URL != "https://www.tweedekamer.nl/kamerstukken/detail?id=2025Z12846" || z.Extra["tk"]["api_url"] != base+"/Zaak(c2b1a0f9-e8d7-4c6b-a5f4-e3d2c1b0a9f8)" || z.Extra["tk"]["nummer"] != "2025Z12846" || z.Extra["tk"]["afgedaan"] != false {
		t.Errorf("zaak = %+v", z)
	}
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "search", `{"entity":"Activiteit","date_from":"2024-04-17","date_to":"2024-04-17"}`), &sr)
	a := sr.Results[0]
	if a.Title != "Debat over de uitvoering van de Wet open overheid" || a.Date != "2024-04-17" || a.Type != "Plenair debat" ||
		a.Snippet != "Plenair debat · vaste commissie voor Binnenlandse Zaken · Uitgevoerd" || a.Extra["tk"]["voortouw_afkorting"] != "BiZa" {
		t.Errorf("activiteit = %+v", a)
	}
	if u := h.Requests()[1].URL; !strings.Contains(u, "Datum%20ge%202024-04-17T00%3A00%3A00%2B02%3A00%20and%20Datum%20lt%202024-04-18T00%3A00%3A00%2B02%3A00") {
		t.Errorf("one-day range = %s", u)
	}
}

func TestSearchErrors(t *testing.T) {
	cases := []struct{ name, args, want string }{
		{"entity", `{"entity":"Persoon"}`, `"entity"`},
		{"limit", `{"limit":251}`, `"limit"`},
		{"limit type", `{"limit":"ten"}`, `"limit"`},
		{"offset", `{"offset":-1}`, `"offset"`},
		{"date", `{"date_from":"31-12-2024"}`, `"date_from"`},
		{"impossible date", `{"date_to":"2024-02-30"}`, `"date_to"`},
		{"order", `{"date_from":"2025-01-01","date_to":"2024-01-01"}`, "after date_to"},
		{"control character", `{"query":"Woo\u0000"}`, `"query": contains a control character`},
		{"control in soort", `{"soort":"Motie\n"}`, `"soort"`},
		{"only punctuation", `{"query":"?!"}`, `"query"`},
		{"too many words", `{"query":"een twee drie vier vijf zes zeven","soort":"Motie","date_from":"2024-01-01","date_to":"2024-12-31"}`, "at most 6"},
		{"zaak with Zaak", `{"entity":"Zaak","zaak":"2025Z12846"}`, `"zaak": only works with entity Document`},
		{"zaak pattern", `{"zaak":"2025D12846"}`, `"zaak"`},
		{"sort", `{"sort":"relevance"}`, `"sort"`},
		{"long term", `{"query":"` + strings.Repeat("ë", 60) + `"}`, "longer than 100 bytes"},
		{"long query", `{"query":"` + strings.Repeat("a ", 160) + `"}`, `"query": 320 bytes, more than 300`},
		{"long soort", `{"soort":"` + strings.Repeat("a", 201) + `"}`, `"soort"`},
		{"unknown", `{"q":"x"}`, `"q"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			res := sdktest.Call(t, tk.Plugin(), h, "search", c.args)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want a tool error naming %s", res, c.want)
			}
			if n := len(h.Requests()); n != 0 {
				t.Errorf("bad arguments reached the platform (%d requests)", n)
			}
		})
	}
}

func TestSearchPlatformErrors(t *testing.T) {
	read := func(f string) string { return string(mustRead(t, td+f)) }
	for _, c := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"node limit", 400, read("tk-error-400-nodecount.json"), "HTTP 400: The query specified in the URI is not valid. The node count limit of '100' has been exceeded"},
		{"bad property", 400, read("tk-error-400-property.json"), "Could not find a property named 'Foo'"},
		{"timeout 500", 500, `{"error":{"code":"","message":"An error has occurred."}}`, "HTTP 500: An error has occurred."},
		{"503 html", 503, "<html><body>Service Unavailable</body></html>", "HTTP 503"},
		{"429", 429, "", "HTTP 429"},
		{"malformed", 200, `{"value": [`, "not the expected JSON"},
		{"wrong shape", 200, `{"foo": 1}`, "lacks value"},
		{"value not a list", 200, `{"value": {"Id": "x"}}`, "not the expected JSON"},
		{"entity wrong type", 200, `{"value": [{"Id": 5}]}`, "result 1 is not the expected entity"},
		{"missing Id", 200, `{"@odata.count": 1, "value": [{"Titel": "x"}]}`, "result 1 lacks Id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t).HandleBody(base+"/Document?*", c.status, []byte(c.body))
			res := sdktest.Call(t, tk.Plugin(), h, "search", `{"query":"Woo"}`)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want tool error containing %q", res, c.want)
			}
		})
	}
	h := sdktest.NewHost(t).HandleErr(base+"/Document?*", &connector.FetchError{Kind: connector.FetchUnavailable, Message: "connection reset"})
	res := sdktest.Call(t, tk.Plugin(), h, "search", `{"query":"Woo"}`)
	if !res.IsError || !strings.Contains(res.Text, "search: unavailable: connection reset") {
		t.Errorf("fetch error: %+v", res)
	}
}

// TestSearchSoftFailures: a result the connector cannot read is left out
// with a note, and a field in another form is left out of its result,
// with a note; neither fails the search.
func TestSearchSoftFailures(t *testing.T) {
	body := `{"@odata.count":4,"value":[` +
		`{"Id":"a","Soort":"Motie","Onderwerp":"Motie over de Woo","Datum":"2024-10-01T00:00:00+02:00","ContentLength":"groot","Kamer":2},` +
		`{"Titel":"zonder Id"},` +
		`{"Id":6},` +
		`{"Id":"d","Soort":"Brief regering","Onderwerp":"Brief over de Woo","Kamer":"twee"}]}`
	h := sdktest.NewHost(t).HandleBody(base+"/Document?*", 200, []byte(body))
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "search", `{"query":"Woo"}`), &sr)
	if len(sr.Results) != 2 || sr.Results[0].ID != "a" || sr.Results[1].ID != "d" || sr.HasMore {
		t.Fatalf("result = %+v", sr)
	}
	if a := sr.Results[0]; a.Date != "2024-10-01" || a.Extra["tk"]["content_length"] != nil || a.Extra["tk"]["kamer"] != float64(2) {
		t.Errorf("result with a changed field = %+v", a)
	}
	want := []string{
		"2 of the 4 results the platform sent could not be read and were left out (result 2 lacks Id).",
		"The platform sent results with ContentLength, Kamer in an unexpected form; left out.",
		"Words were matched in titles and subjects only: the Tweede Kamer API has no full-text search.",
	}
	if diff := cmp.Diff(want, sr.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// TestSearchKamerstukKey: a Kamerstuk's one dossier and its Volgnummer
// are its key, as obk's kst- id gives it ("36800-VII-14"); a document in
// no dossier, or in two, has none.
func TestSearchKamerstukKey(t *testing.T) {
	body := `{"@odata.count":3,"value":[` +
		`{"Id":"a","Soort":"Brief regering","DocumentNummer":"2025D05511","Onderwerp":"Brief","Datum":"2025-02-10T00:00:00","Volgnummer":14,"Kamerstukdossier":[{"Nummer":36800,"Toevoeging":"VII"}]},` +
		`{"Id":"b","Soort":"Schriftelijke vragen","DocumentNummer":"2025D05512","Onderwerp":"Vragen","Datum":"2025-02-10T00:00:00","Volgnummer":0,"Kamerstukdossier":[]},` +
		`{"Id":"c","Soort":"Motie","DocumentNummer":"2025D05513","Onderwerp":"Motie","Datum":"2025-02-10T00:00:00","Volgnummer":3,"Kamerstukdossier":[{"Nummer":1,"Toevoeging":null},{"Nummer":2,"Toevoeging":null}]}]}`
	h := sdktest.NewHost(t).HandleBody(base+"/Document?*", 200, []byte(body))
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, tk.Plugin(), h, "search", `{"query":"brief"}`), &sr)
	want := []map[string]string{
		{"tk_document_number": "2025D05511", "kamerstuk": "36800-VII-14"},
		{"tk_document_number": "2025D05512"},
		{"tk_document_number": "2025D05513"},
	}
	for i, it := range sr.Results {
		if diff := cmp.Diff(want[i], it.Keys); diff != "" {
			t.Errorf("%s keys (-want +got):\n%s", it.ID, diff)
		}
	}
}

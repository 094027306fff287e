package obk_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

const (
	sru  = "https://repository.overheid.nl/sru"
	zoek = "https://zoek.officielebekendmakingen.nl"
	td   = "../../testdata/obk/"
)

func TestManifestValid(t *testing.T) {
	m := sdktest.CheckManifest(t, obk.Plugin())
	if s, _ := m.Service(obk.ServiceZoek); s.Units != 10 || s.Per != connector.Duration(30e9) || !strings.Contains(s.Description, "third party") {
		t.Errorf("zoek service = %+v, want 10 per 30s marked as a third-party figure", s)
	}
	if s, _ := m.Service(obk.ServiceSRU); !s.Limited() || !strings.Contains(s.Description, "polite default") {
		t.Errorf("sru service = %+v, want a limited polite default", s)
	}
	if len(m.Resources) != 1 || m.Resources[0].URITemplate != "besluitbron://obk/document/{+id}" {
		t.Errorf("resources = %+v", m.Resources)
	}
}

func TestCQLQuote(t *testing.T) {
	for in, want := range map[string]string{
		`woo`:             `"woo"`,
		`Financiën`:       `"Financiën"`,
		`say "hi"`:        `"say \"hi\""`,
		`a\b`:             `"a\\b"`,
		`bouw* of ^test?`: `"bouw\* of \^test\?"`,
		"x{1}\ty":         `"x1y"`,
	} {
		if got := obk.CQLQuote(in); got != want {
			t.Errorf("CQLQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestBuildCQL(t *testing.T) {
	const c = "c.product-area==officielepublicaties"
	for _, tc := range []struct {
		name string
		args obk.SearchArgs
		want string
	}{
		{"nothing", obk.SearchArgs{}, c + " sortBy dt.date/sort.descending"},
		{"words and phrase", obk.SearchArgs{Query: `  ijzerhandel "Wet open overheid" (één) and`, Sort: "relevance"},
			c + ` and cql.textAndIndexes="ijzerhandel" and cql.textAndIndexes="Wet open overheid" and cql.textAndIndexes="één" and cql.textAndIndexes="and"`},
		{"filters", obk.SearchArgs{
			Publication: []string{"Gemeenteblad", "Provinciaal blad"}, Organization: " Súdwest-Fryslân ", OrganizationType: "gemeente",
			Dossier: "36600-VII", Title: "verordening", DocumentType: "beleidsregel", DateFrom: "2024-01-01", DateTo: "2024-12-31", Sort: "date_asc",
		}, c + ` and dt.title="verordening" and (w.publicatienaam=="Gemeenteblad" or w.publicatienaam=="Provinciaal blad") and dt.creator="Súdwest-Fryslân" and w.organisatietype=="gemeente" and w.dossiernummer=="36600-VII" and dt.type="beleidsregel" and dt.date>="2024-01-01" and dt.date<="2024-12-31" sortBy dt.date/sort.ascending`},
		{"injection", obk.SearchArgs{Organization: `x" or dt.creator="y`, Sort: "relevance"}, c + ` and dt.creator="x\" or dt.creator=\"y"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := obk.BuildCQL(tc.args); got != tc.want {
				t.Errorf("BuildCQL =\n %s\nwant\n %s", got, tc.want)
			}
		})
	}
}

func TestSearch(t *testing.T) {
	h := sdktest.NewHost(t).Handle(sru+"?*", 200, td+"obk-sru-page.xml")
	res := sdktest.Call(t, obk.Plugin(), h, "search", `{"query":"Woo","publication":["Kamerstuk","Staatscourant"],"limit":2,"offset":20}`)
	var sr sdk.SearchResult
	sdktest.Decode(t, res, &sr)
	reqs := h.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	cql := `c.product-area==officielepublicaties and cql.textAndIndexes="Woo" and (w.publicatienaam=="Kamerstuk" or w.publicatienaam=="Staatscourant") sortBy dt.date/sort.descending`
	wantURL := sru + "?maximumRecords=2&operation=searchRetrieve&query=" + url.QueryEscape(cql) + "&startRecord=21&version=2.0"
	if r := reqs[0]; r.URL != wantURL || r.Service != obk.ServiceSRU || r.Cost != 1 || r.CacheClass != connector.ClassSearch || r.Method != "GET" {
		t.Errorf("request = %+v\nwant URL %s", r, wantURL)
	}
	if sr.Total == nil || *sr.Total != 57 || !sr.HasMore || sr.Offset != 20 || len(sr.Results) != 2 {
		t.Fatalf("result = %+v", sr)
	}
	want := []sdk.Item{
		{
			ID: "kst-33328-AI", Type: "Kamerstuk",
			Title:        "Voorstel van wet van de leden Snels en Sneller houdende regels over de toegankelijkheid van informatie van publiek belang (Wet open overheid); Verslag van een schriftelijk overleg",
			Date:         "2023-12-28",
			Organization: "Eerste Kamer der Staten-Generaal",
			Snippet:      "Verslag van een schriftelijk overleg over de implementatie van de Woo & de Wijzigingswet Woo",
			URL:          "https://zoek.officielebekendmakingen.nl/kst-33328-AI.html",
			Keys:         map[string]string{"publication_id": "kst-33328-AI"}, // AI is no number: no Kamerstuk key
			Extra: map[string]map[string]any{"obk": {
				"document_type": "Kamerstuk", "available": "2024-01-09", "modified": "2024-01-09", "subject": "Bestuur | Organisatie en beleid",
				"publisher": "Eerste Kamer der Staten-Generaal", "dossier": "33328", "sub_number": "AI", "session_year": "2023-2024",
				"organization_type": "staten generaal", "document_status": "Opgemaakt",
				"pdf_url": "https://repository.overheid.nl/frbr/officielepublicaties/kst/33328/kst-33328-AI/1/pdf/kst-33328-AI.pdf",
				"xml_url": "https://repository.overheid.nl/frbr/officielepublicaties/kst/33328/kst-33328-AI/1/xml/kst-33328-AI.xml",
			}},
		},
		{
			ID: "stcrt-2024-1234", Type: "Staatscourant",
			Title:        "Besluit van de Minister van Financiën tot vaststelling van beleidsregels over de Wet open overheid bij ijkwezen en financiële toezichthouders",
			Date:         "2024-01-12", // no dcterms:date: the publication date stands in
			Organization: "Ministerie van Financiën",
			URL:          "https://zoek.officielebekendmakingen.nl/stcrt-2024-1234.html",
			Keys:         map[string]string{"publication_id": "stcrt-2024-1234"},
			Extra: map[string]map[string]any{"obk": {
				"document_type": "beleidsregel", "available": "2024-01-12", "modified": "2024-01-12", "subject": "Financiën | Overheidsfinanciën",
				"publisher": "Ministerie van Financiën", "publication_number": "1234", "volume": "2024", "organization_type": "ministerie",
				"xml_url": "https://repository.overheid.nl/frbr/officielepublicaties/stcrt/2024/stcrt-2024-1234/1/xml/stcrt-2024-1234.xml",
			}},
		},
	}
	if d := cmp.Diff(want, sr.Results); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
}

func TestSearchSharedSample(t *testing.T) {
	h := sdktest.NewHost(t).Handle(sru+"?*", 200, td+"obk-sru-response.xml")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "search", `{"organization":"Bergeijk","organization_type":"gemeente","publication":["Gemeenteblad"],"limit":1}`), &sr)
	if len(sr.Results) != 1 || sr.HasMore != true || *sr.Total != 641420 || len(sr.Notes) != 0 {
		t.Fatalf("result = %+v", sr)
	}
	r := sr.Results[0]
	if r.ID != "gmb-2023-174296" || r.Type != "Gemeenteblad" || r.Organization != "Bergeijk" || r.Date != "2023-04-20" ||
		r.URL != "https://zoek.officielebekendmakingen.nl/gmb-2023-174296.html" || r.Snippet != "verwijderen van asbest van het dak" {
		t.Errorf("item = %+v", r)
	}
}

func TestSearchEmptyAndLastPages(t *testing.T) {
	h := sdktest.NewHost(t).Handle(sru+"?*", 200, td+"obk-sru-empty.xml")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "search", `{"query":"xyzzy"}`), &sr)
	if sr.HasMore || len(sr.Results) != 0 || sr.Results == nil || *sr.Total != 0 {
		t.Errorf("empty = %+v", sr)
	}
	// The shared sample reports 641,420 hits: at the paging ceiling the
	// result must say it cannot go on, not claim more.
	h = sdktest.NewHost(t).Handle(sru+"?*", 200, td+"obk-sru-response.xml")
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "search", `{"organization":"Bergeijk","offset":9998,"limit":1}`), &sr)
	if sr.HasMore || len(sr.Notes) != 2 || !strings.Contains(sr.Notes[0], "first 9,999") {
		t.Errorf("ceiling = %+v", sr)
	}
	if !strings.Contains(h.Requests()[0].URL, "startRecord=9999") {
		t.Errorf("url = %s", h.Requests()[0].URL)
	}
}

func TestSearchBadArguments(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"limit", `{"limit":101}`, `"limit"`},
		{"offset", `{"offset":10000}`, `"offset"`},
		{"negative offset", `{"offset":-1}`, `"offset"`},
		{"date", `{"date_from":"2023-02-29"}`, `"date_from"`},
		{"date format", `{"date_to":"28-12-2023"}`, `"date_to"`},
		{"order", `{"date_from":"2025-01-01","date_to":"2024-01-01"}`, "after date_to"},
		{"publication", `{"publication":["Staatskrant"]}`, `"publication"`},
		{"org type", `{"organization_type":"stad"}`, `"organization_type"`},
		{"dossier", `{"dossier":"kst-33328"}`, `"dossier"`},
		{"sort", `{"sort":"title"}`, `"sort"`},
		{"empty query", `{"query":" \"\" ... "}`, `"query"`},
		{"type", `{"query":5}`, `"query"`},
		{"unknown", `{"q":"woo"}`, `"q"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			res := sdktest.Call(t, obk.Plugin(), h, "search", c.args)
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
	diag, html := readFile(t, td+"obk-sru-diagnostic.xml"), readFile(t, td+"obk-sru-503.html")
	for _, c := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"diagnostic", 200, diag, "did not accept the query: Query syntax error (mismatched input 'huisarts' expecting <EOF>) [info:srw/diagnostic/1/10]"},
		{"diagnostic root", 200, `<diagnostics xmlns="http://docs.oasis-open.org/ns/search-ws/diagnostic"><diagnostic><message>Unsupported index</message></diagnostic></diagnostics>`, "Unsupported index"},
		{"503 html", 503, html, "HTTP 503: 503 Service Temporarily Unavailable (the platform is busy"},
		{"500 plain", 500, "Internal Server Error", "HTTP 500: Internal Server Error"},
		{"malformed", 200, `<sru:searchRetrieveResponse xmlns:sru="x"><sru:numberOfRecords>1`, "not the expected SRU XML"},
		{"explain", 200, `<explainResponse><version>2.0</version></explainResponse>`, "<explainResponse>"},
		{"no count", 200, `<searchRetrieveResponse><version>2.0</version></searchRetrieveResponse>`, "lacks numberOfRecords"},
		{"bad count", 200, `<searchRetrieveResponse><numberOfRecords>many</numberOfRecords></searchRetrieveResponse>`, "not a count"},
		{"no identifier", 200, `<searchRetrieveResponse><numberOfRecords>1</numberOfRecords><records><record><recordData><gzd><originalData><meta><owmskern><title>x</title></owmskern></meta></originalData></gzd></recordData></record></records></searchRetrieveResponse>`, "record 1: no dcterms:identifier"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t).HandleBody(sru+"?*", c.status, []byte(c.body))
			res := sdktest.Call(t, obk.Plugin(), h, "search", `{"query":"medicatiefout"}`)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want tool error containing %q", res, c.want)
			}
		})
	}
	h := sdktest.NewHost(t).HandleErr(sru+"?*", &connector.FetchError{Kind: connector.FetchQueueTimeout, Message: "no room before the deadline"})
	if res := sdktest.Call(t, obk.Plugin(), h, "search", `{}`); !res.IsError || !strings.Contains(res.Text, "no room before the deadline") {
		t.Errorf("fetch error: %+v", res)
	}
}

func TestListValues(t *testing.T) {
	h := sdktest.NewHost(t)
	var l sdk.ListResult
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "list_values", `{}`), &l)
	if l.List != "publication_types" || l.Count != 13 || l.Items[0].ID != "Staatscourant" || l.Items[0].Extra["obk"]["id_prefix"] != "stcrt" {
		t.Errorf("publication types = %+v", l)
	}
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "list_values", `{"list":"organization_types"}`), &l)
	if l.List != "organization_types" || l.Count != len(obk.OrganizationTypes) || l.Items[0].ID != "gemeente" {
		t.Errorf("organization types = %+v", l)
	}
	if res := sdktest.Call(t, obk.Plugin(), h, "list_values", `{"list":"courts"}`); !res.IsError || !strings.Contains(res.Text, `"list"`) {
		t.Errorf("bad list: %+v", res)
	}
	if n := len(h.Requests()); n != 0 {
		t.Errorf("list_values made %d upstream requests, want none", n)
	}
}

// TestSearchRecordWithoutIdentifier: a record the connector cannot cite
// is left out with a note; the other records are still answered.
func TestSearchRecordWithoutIdentifier(t *testing.T) {
	rec := func(id, title string) string {
		return `<record><recordData><gzd><originalData><meta><owmskern>` + id + `<title>` + title + `</title></owmskern></meta></originalData></gzd></recordData></record>`
	}
	body := `<searchRetrieveResponse><numberOfRecords>3</numberOfRecords><records>` +
		rec(`<identifier>gmb-2024-1</identifier>`, "Eerste") + rec("", "Zonder id") + rec(`<identifier>gmb-2024-3</identifier>`, "Derde") +
		`</records></searchRetrieveResponse>`
	h := sdktest.NewHost(t).HandleBody(sru+"?*", 200, []byte(body))
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, obk.Plugin(), h, "search", `{"query":"parkeren"}`), &sr)
	if len(sr.Results) != 2 || sr.Results[0].ID != "gmb-2024-1" || sr.Results[1].ID != "gmb-2024-3" || sr.HasMore {
		t.Errorf("results = %+v", sr)
	}
	if len(sr.Notes) != 1 || sr.Notes[0] != "1 of the 3 records the platform sent could not be read and were left out (record 2: no dcterms:identifier)." {
		t.Errorf("notes = %q", sr.Notes)
	}
}

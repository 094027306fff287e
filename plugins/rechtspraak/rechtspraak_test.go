package rechtspraak_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

const (
	base   = "https://data.rechtspraak.nl"
	zoeken = base + "/uitspraken/zoeken?"
	td     = "../../testdata/rechtspraak/"
)

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestManifestValid(t *testing.T) {
	m := sdktest.CheckManifest(t, rechtspraak.Plugin())
	for _, name := range []string{rechtspraak.ServiceSearch, rechtspraak.ServiceContent} {
		s, ok := m.Service(name)
		if !ok || s.Units != 10 || s.Per != connector.Duration(1e9) || !strings.Contains(s.Description, "Polite default") {
			t.Errorf("service %s = %+v, want a 10-per-second polite default", name, s)
		}
	}
	for _, tool := range m.Tools {
		if tool.Name == "search" && (!strings.Contains(tool.Description, "NO FREE-TEXT SEARCH") || strings.Contains(string(tool.InputSchema), `"query"`)) {
			t.Errorf("search must say it has no free-text search and take no query: %s", tool.Description)
		}
	}
}

func TestSearchURL(t *testing.T) {
	no := false
	for _, c := range []struct {
		name string
		args rechtspraak.SearchArgs
		want string
	}{
		{"defaults", rechtspraak.SearchArgs{}, "max=20&return=DOC&sort=DESC"},
		{"all filters", rechtspraak.SearchArgs{
			Court: "http://psi.rechtspraak.nl/AG DH", Subject: "http://psi.rechtspraak.nl/rechtsgebied#bestuursrecht_belastingrecht",
			Type: "Conclusie", DateFrom: "2020-01-01", DateTo: "2020-12-31", ModifiedFrom: "2023-01-01", ModifiedTo: "2023-01-05T12:00:00",
			WithText: &no, Sort: "modified_asc", Limit: 100, Offset: 200,
		}, "creator=http%3A%2F%2Fpsi.rechtspraak.nl%2FAG+DH&date=2020-01-01&date=2020-12-31&from=200&max=100&modified=2023-01-01T00%3A00%3A00&modified=2023-01-05T12%3A00%3A00&sort=ASC&subject=http%3A%2F%2Fpsi.rechtspraak.nl%2Frechtsgebied%23bestuursrecht_belastingrecht&type=Conclusie"},
		{"one day", rechtspraak.SearchArgs{DateFrom: "2020-07-23", DateTo: "2020-07-23"}, "date=2020-07-23&max=20&return=DOC&sort=DESC"},
		{"modified since", rechtspraak.SearchArgs{ModifiedFrom: "2024-02-29T23:59:59"}, "max=20&modified=2024-02-29T23%3A59%3A59&return=DOC&sort=DESC"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := rechtspraak.SearchURL(base, &c.args)
			if err != nil || got != zoeken+c.want {
				t.Errorf("SearchURL = %s, %v\nwant %s", got, err, zoeken+c.want)
			}
		})
	}
}

func TestSearch(t *testing.T) {
	h := sdktest.NewHost(t).Handle(zoeken+"*", 200, td+"rechtspraak-zoeken.xml")
	res := sdktest.Call(t, rechtspraak.Plugin(), h, "search", `{"court":"http://standaarden.overheid.nl/owms/terms/Gerechtshof_Amsterdam","limit":2}`)
	var sr sdk.SearchResult
	sdktest.Decode(t, res, &sr)
	reqs := h.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if r := reqs[0]; r.URL != zoeken+"creator=http%3A%2F%2Fstandaarden.overheid.nl%2Fowms%2Fterms%2FGerechtshof_Amsterdam&max=2&return=DOC&sort=DESC" ||
		r.Service != rechtspraak.ServiceSearch || r.Cost != 1 || r.CacheClass != connector.ClassSearch {
		t.Errorf("request = %+v", r)
	}
	if sr.Total == nil || *sr.Total != 2 || sr.HasMore || len(sr.Results) != 2 || !strings.Contains(strings.Join(sr.Notes, " "), "no free-text search") {
		t.Fatalf("result = %+v", sr)
	}
	want := []sdk.Item{
		{
			ID: "ECLI:NL:RBARN:1999:AA1000", Title: "ECLI:NL:RBARN:1999:AA1000, Rechtbank Arnhem, 24-09-1999, 05.072594.99",
			Date: "1999-09-24", Organization: "Rechtbank Arnhem", URL: "https://uitspraken.rechtspraak.nl/details?id=ECLI:NL:RBARN:1999:AA1000",
			Keys:  map[string]string{"ecli": "ECLI:NL:RBARN:1999:AA1000"},
			Extra: map[string]map[string]any{"rechtspraak": {"case_numbers": "05.072594.99", "modified": "2013-04-04"}},
		},
		{
			ID: "ECLI:NL:GHAMS:2020:3025", Title: "ECLI:NL:GHAMS:2020:3025, Gerechtshof Amsterdam, 23-07-2020, 17/00394 17/00357",
			Date: "2020-07-23", Organization: "Gerechtshof Amsterdam",
			Snippet: "Naheffingsaanslag OB en boete; verdedigingsbeginsel; bewijslast; fraude in de keten?; wist of had belanghebbende moeten weten van fraude?; art. 8:45 Awb/zorgvuldigheidsbeginsel; neutraliteitsbeginsel; vertrouwensbeginsel; getuigen",
			URL:     "https://uitspraken.rechtspraak.nl/details?id=ECLI:NL:GHAMS:2020:3025",
			Keys:    map[string]string{"ecli": "ECLI:NL:GHAMS:2020:3025"},
			Extra:   map[string]map[string]any{"rechtspraak": {"case_numbers": "17/00394 17/00357", "modified": "2023-08-08"}},
		},
	}
	if d := cmp.Diff(want, sr.Results); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
}

func TestSearchPagingAndEmpty(t *testing.T) {
	feed := `<feed xmlns="http://www.w3.org/2005/Atom"><subtitle type="text">Aantal gevonden ECLI's: 3751381</subtitle>` +
		`<entry><id>ECLI:NL:HR:2023:1049</id><title type="text">ECLI:NL:HR:2023:1049, Hoge Raad, 07-07-2023, 21/01234</title><summary type="text">Belastingrecht; één overweging over ijkwaarden &amp; vermögen</summary><updated>2023-07-07T10:00:00Z</updated></entry></feed>`
	h := sdktest.NewHost(t).HandleBody(zoeken+"*", 200, []byte(feed))
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "search", `{"type":"Uitspraak","limit":1,"offset":40,"sort":"modified_asc"}`), &sr)
	if !sr.HasMore || *sr.Total != 3751381 || sr.Offset != 40 || sr.Results[0].Type != "Uitspraak" ||
		sr.Results[0].Snippet != "Belastingrecht; één overweging over ijkwaarden & vermögen" ||
		sr.Results[0].URL != "https://uitspraken.rechtspraak.nl/details?id=ECLI:NL:HR:2023:1049" {
		t.Errorf("page = %+v", sr)
	}
	if u := h.Requests()[0].URL; u != zoeken+"from=40&max=1&return=DOC&sort=ASC&type=Uitspraak" {
		t.Errorf("url = %s", u)
	}
	h = sdktest.NewHost(t).Handle(zoeken+"*", 200, td+"rechtspraak-zoeken-empty.xml")
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "search", `{"date_from":"1850-01-01","date_to":"1850-01-02"}`), &sr)
	if sr.HasMore || len(sr.Results) != 0 || sr.Results == nil || *sr.Total != 0 {
		t.Errorf("empty = %+v", sr)
	}
}

func TestSearchResolvesNames(t *testing.T) {
	h := sdktest.NewHost(t).
		Handle(base+"/Waardelijst/Instanties", 200, td+"rechtspraak-waardelijst-instanties.xml").
		Handle(base+"/Waardelijst/Rechtsgebieden", 200, td+"rechtspraak-waardelijst-rechtsgebieden.xml").
		Handle(zoeken+"*", 200, td+"rechtspraak-zoeken-empty.xml")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "search", `{"court":"hr","subject":"Belastingrecht"}`), &sr)
	reqs := h.Requests()
	if len(reqs) != 3 || reqs[0].CacheClass != connector.ClassList || reqs[0].Service != rechtspraak.ServiceSearch {
		t.Fatalf("requests = %+v", reqs)
	}
	if want := zoeken + "creator=http%3A%2F%2Fstandaarden.overheid.nl%2Fowms%2Fterms%2FHoge_Raad_der_Nederlanden&max=20&return=DOC&sort=DESC&subject=http%3A%2F%2Fpsi.rechtspraak.nl%2Frechtsgebied%23bestuursrecht_belastingrecht"; reqs[2].URL != want {
		t.Errorf("url = %s\nwant %s", reqs[2].URL, want)
	}
	res := sdktest.Call(t, rechtspraak.Plugin(), h, "search", `{"court":"Rechtbank Atlantis"}`)
	if !res.IsError || !strings.Contains(res.Text, `argument "court"`) || !strings.Contains(res.Text, "rechtspraak_list_courts") {
		t.Errorf("unknown court: %+v", res)
	}
}

func TestSearchBadArguments(t *testing.T) {
	for _, c := range []struct{ name, args, want string }{
		{"free text", `{"query":"huurrecht"}`, `argument "query": Rechtspraak open data has no free-text search`},
		{"q", `{"q":"huurrecht","court":"HR"}`, `argument "q"`},
		{"limit", `{"limit":1000}`, `"limit"`},
		{"offset", `{"offset":-5}`, `"offset"`},
		{"type", `{"type":"Beschikking"}`, `"type"`},
		{"sort", `{"sort":"relevance"}`, `"sort"`},
		{"impossible date", `{"date_from":"2022-02-30","date_to":"2022-03-01"}`, `"date_from"`},
		{"half range", `{"date_from":"2022-01-01"}`, `"date_to"`},
		{"other half", `{"date_to":"2022-01-01"}`, `"date_from"`},
		{"order", `{"date_from":"2022-02-01","date_to":"2022-01-01"}`, "after date_to"},
		{"modified", `{"modified_from":"2022-01-01 10:00"}`, `"modified_from"`},
		{"modified to alone", `{"modified_to":"2022-01-01"}`, `"modified_from"`},
		{"modified order", `{"modified_from":"2022-02-01","modified_to":"2022-01-01"}`, "after modified_to"},
		{"with_text type", `{"with_text":"yes"}`, `"with_text"`},
		{"unknown", `{"procedure":"Cassatie"}`, "procedure"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t)
			res := sdktest.Call(t, rechtspraak.Plugin(), h, "search", c.args)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want a tool error containing %s", res, c.want)
			}
			if n := len(h.Requests()); n != 0 {
				t.Errorf("bad arguments reached the platform (%d requests)", n)
			}
		})
	}
}

func TestSearchPlatformErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"non-XML for a bad date", 200, readFile(t, td+"rechtspraak-error.html"), "not the expected Atom XML"},
		{"500 page", 500, readFile(t, td+"rechtspraak-error.html"), "HTTP 500: Runtime Error"},
		{"503", 503, "Service Unavailable", "HTTP 503: Service Unavailable (the platform is busy"},
		{"wrong root", 200, `<html><body>Onderhoud</body></html>`, "<html> where an Atom feed"},
		{"no id", 200, `<feed xmlns="http://www.w3.org/2005/Atom"><subtitle>Aantal gevonden ECLI's: 1</subtitle><entry><title>x</title></entry></feed>`, "none of the feed's 1 entries has an id (ECLI)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t).HandleBody(zoeken+"*", c.status, []byte(c.body))
			res := sdktest.Call(t, rechtspraak.Plugin(), h, "search", `{}`)
			if !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("got %+v, want tool error containing %q", res, c.want)
			}
		})
	}
	// Without the count the result still comes, with a guess said aloud.
	h := sdktest.NewHost(t).HandleBody(zoeken+"*", 200, []byte(`<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>ECLI:NL:HR:2023:1</id><title>t</title></entry></feed>`))
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "search", `{"limit":1}`), &sr)
	if sr.Total != nil || !sr.HasMore || !strings.Contains(sr.Notes[0], "did not report a total") {
		t.Errorf("no count = %+v", sr)
	}
	h = sdktest.NewHost(t).HandleErr(zoeken+"*", &connector.FetchError{Kind: connector.FetchUnavailable, Message: "connection reset"})
	if res := sdktest.Call(t, rechtspraak.Plugin(), h, "search", `{}`); !res.IsError || !strings.Contains(res.Text, "connection reset") {
		t.Errorf("fetch error: %+v", res)
	}
}

func TestLists(t *testing.T) {
	h := sdktest.NewHost(t).
		Handle(base+"/Waardelijst/Instanties", 200, td+"rechtspraak-waardelijst-instanties.xml").
		Handle(base+"/Waardelijst/Rechtsgebieden", 200, td+"rechtspraak-waardelijst-rechtsgebieden.xml").
		Handle(base+"/Waardelijst/Proceduresoorten", 200, td+"rechtspraak-waardelijst-proceduresoorten.xml").
		HandleBody(base+"/Waardelijst/InstantiesBuitenlands", 200, []byte(`<Instanties><Instantie><Identifier>http://psi.rechtspraak.nl/instantie/ES/#AudienciaNacionalNationaalHof</Identifier><Naam>Audiencia Nacional (Nationaal Hof)</Naam><Afkorting>XX</Afkorting><Type>BuitenlandseInstantie</Type><BeginDate>1950-01-01</BeginDate></Instantie></Instanties>`))
	var l sdk.ListResult
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "list_courts", `{}`), &l)
	if l.List != "courts" || l.Count != 5 {
		t.Fatalf("courts = %+v", l)
	}
	if d := cmp.Diff(sdk.Item{
		ID: "http://psi.rechtspraak.nl/GHvJAntil", Type: "Koninkrijksinstantie", Title: "Gemeenschappelijk Hof van Justitie van de Nederlandse Antillen en Aruba",
		Extra: map[string]map[string]any{"rechtspraak": {"abbreviation": "OGHNAA", "begin_date": "1950-01-01", "end_date": "2010-10-09"}},
	}, l.Items[3]); d != "" {
		t.Errorf("historic court (-want +got):\n%s", d)
	}
	if l.Items[4].Title != "Ambtenarengerecht 's-Gravenhage" || l.Items[4].ID != "http://psi.rechtspraak.nl/AG DH" {
		t.Errorf("court with a space in its id = %+v", l.Items[4])
	}
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "list_courts", `{"foreign":true}`), &l)
	if l.List != "foreign_courts" || l.Count != 1 {
		t.Errorf("foreign = %+v", l)
	}
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "list_subjects", `{}`), &l)
	if l.Count != 3 || l.Items[2].Title != "Belastingrecht" || l.Items[2].Extra["rechtspraak"]["parent"] != "Bestuursrecht" {
		t.Errorf("subjects = %+v", l)
	}
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "list_procedure_types", `{}`), &l)
	if l.Count != 2 || l.Items[1].Title != "Hoger beroep" {
		t.Errorf("procedures = %+v", l)
	}
	for _, r := range h.Requests() {
		if r.CacheClass != connector.ClassList || r.Service != rechtspraak.ServiceSearch || r.Cost != 1 {
			t.Errorf("list request = %+v", r)
		}
	}
	if res := sdktest.Call(t, rechtspraak.Plugin(), h, "list_subjects", `{"parent":"x"}`); !res.IsError || !strings.Contains(res.Text, "parent") {
		t.Errorf("bad argument: %+v", res)
	}
}

func TestListErrors(t *testing.T) {
	for _, c := range []struct {
		name, body, want string
		status           int
	}{
		{"wrong root", `<Rechtsgebieden><Rechtsgebied><Identifier>x</Identifier></Rechtsgebied></Rechtsgebieden>`, "<Rechtsgebieden> where <Instanties>", 200},
		{"empty", `<Instanties/>`, "empty", 200},
		{"no identifier", `<Instanties><Instantie><Naam>Hoge Raad</Naam></Instantie></Instanties>`, "entry 1 has no Identifier", 200},
		{"malformed", `<Instanties><Instantie>`, "not the expected XML", 200},
		{"404", `<html><head><title>Not Found</title></head></html>`, "HTTP 404: Not Found", 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := sdktest.NewHost(t).HandleBody(base+"/Waardelijst/Instanties", c.status, []byte(c.body))
			res := sdktest.Call(t, rechtspraak.Plugin(), h, "list_courts", `{}`)
			if !res.IsError || !strings.Contains(res.Text, c.want) || !strings.Contains(res.Text, "list_courts") {
				t.Errorf("got %+v, want tool error containing %q", res, c.want)
			}
		})
	}
}

// TestSearchEntryWithoutIDFailsSoft: an entry without an ECLI is left out
// with a note naming it; the other entries are listed.
func TestSearchEntryWithoutIDFailsSoft(t *testing.T) {
	body := `<feed xmlns="http://www.w3.org/2005/Atom"><subtitle>Aantal gevonden ECLI's: 3</subtitle>` +
		`<entry><id>ECLI:NL:HR:2023:1</id><title>ECLI:NL:HR:2023:1, Hoge Raad, 01-02-2023, 21/01234</title></entry>` +
		`<entry><title>zonder id</title></entry>` +
		`<entry><id>ECLI:NL:HR:2023:3</id><title>ECLI:NL:HR:2023:3, Hoge Raad, 03-02-2023, 21/01236</title></entry></feed>`
	h := sdktest.NewHost(t).HandleBody(zoeken+"*", 200, []byte(body))
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "search", `{"limit":3}`), &sr)
	if len(sr.Results) != 2 || sr.Results[0].ID != "ECLI:NL:HR:2023:1" || sr.Results[1].ID != "ECLI:NL:HR:2023:3" || sr.HasMore {
		t.Errorf("result = %+v", sr)
	}
	if notes := strings.Join(sr.Notes, "\n"); !strings.Contains(notes, "Entries without an id (ECLI) are left out: entry 2.") {
		t.Errorf("notes = %q", sr.Notes)
	}
}

// TestCitationSameFromSearchAndDocument holds rechtspraak to the citation
// rule: search and get_document cite one https page per ECLI, whatever
// link the feed carries (older entries link http://…/inziendocument) and
// whatever deeplink the document's metadata names (http). It catches the
// two tools citing different addresses, or http.
func TestCitationSameFromSearchAndDocument(t *testing.T) {
	h := sdktest.NewHost(t).Handle(zoeken+"*", 200, "../../testdata/rechtspraak/rechtspraak-zoeken.xml").
		Handle("https://data.rechtspraak.nl/uitspraken/content?id=*", 200, "../../testdata/rechtspraak/rechtspraak-content.xml")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "search", `{}`), &sr)
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, rechtspraak.Plugin(), h, "get_document", `{"ecli":"ECLI:NL:GHAMS:2020:3025"}`), &d)
	found := false
	for _, r := range sr.Results {
		if !strings.HasPrefix(r.URL, "https://uitspraken.rechtspraak.nl/details?id=") {
			t.Errorf("%s: url %q", r.ID, r.URL)
		}
		if r.ID == d.ID {
			found = true
			if r.URL != d.URL {
				t.Errorf("search cites %q, get_document %q", r.URL, d.URL)
			}
		}
	}
	if !found {
		t.Fatalf("the recorded search lacks %s", d.ID)
	}
	if d.Extra["rechtspraak"]["deeplink"] != "http://deeplink.rechtspraak.nl/uitspraak?id=ECLI:NL:GHAMS:2020:3025" {
		t.Errorf("deeplink = %v", d.Extra["rechtspraak"]["deeplink"])
	}
}

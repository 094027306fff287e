package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// One document on several platforms, as each platform's documented API
// answers it (../shared/platforms/upstreams.md): the council of Soest's
// raadsvoorstel is harvested by OpenBesluitvorming (§2: downloadUrl), ORI
// (§1: original_url) and Open Archivaris (§7, its assumed shape: url),
// each spelling the iBabs address its own way; a Tweede Kamer answer is on
// the Kamer's OData API (§3: DocumentNummer, its Kamerstukdossier and
// Volgnummer), on OpenTK (§4: nummer) and, as Kamerstuk kst-36800-VII-14,
// on Officiële Bekendmakingen (§5: dcterms:identifier); OpenTK and
// Officiële Bekendmakingen share no key, the Kamer's API links them.
// OpenBesluitvorming also has a file of its own. These are fakes written
// here from the documentation, not the simulator: acceptance is checked
// against independent fakes.
const (
	oneDocIBabs = "https://api1.ibabs.eu/publicdownload.aspx?site=soest&id=7"
	oneDocTK    = "2025D05511"
)

// oneDocPlatforms serves the six platforms' searches on one server, by
// path; a request that asks for "nitrogen" finds nothing anywhere.
func oneDocPlatforms(t *testing.T) *httptest.Server {
	t.Helper()
	orgs, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "testdata", "ori", "ori-organizations.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		none := strings.Contains(r.URL.RawQuery+string(body), "nitrogen")
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/obv/api/search" && none:
			io.WriteString(w, `{"results":[],"totalCount":0,"totalIsApproximate":false,"hasMore":false}`)
		case r.URL.Path == "/obv/api/search":
			fmt.Fprintf(w, `{"results":[
 {"entityId":"document:ibabs:gemeente:soest:7","entityType":"Document","entityTypeLabel":"Document","organization":"Soest","date":"3 maart 2025","sortDate":"2025-03-03 00:00:00","title":"Raadsvoorstel woningbouw Kerkpad","summary":"De <b>woningbouw</b> aan het Kerkpad","summaryHtml":"De <b>woningbouw</b> aan het Kerkpad","downloadUrl":%q,"pageCount":4},
 {"entityId":"document:ibabs:gemeente:soest:8","entityType":"Document","entityTypeLabel":"Document","organization":"Soest","date":"3 maart 2025","sortDate":"2025-03-03 00:00:00","title":"Bijlage woningbouwprogramma","summary":"","downloadUrl":"https://api1.ibabs.eu/publicdownload.aspx?site=soest&id=8"}],
 "totalCount":2,"totalIsApproximate":false,"hasMore":false}`, oneDocIBabs)
		case r.URL.Path == "/ori/ori_*/_search" && strings.Contains(string(body), `"classification"`) && strings.Contains(string(body), `"size":500`):
			w.Write(orgs)
		case r.URL.Path == "/ori/ori_*/_search" && none:
			io.WriteString(w, `{"took":1,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":0,"relation":"eq"},"hits":[]}}`)
		case r.URL.Path == "/ori/ori_*/_search":
			// The same file, the host in capitals and the parameters in
			// another order.
			io.WriteString(w, `{"took":3,"timed_out":false,"_shards":{"total":1,"successful":1,"skipped":0,"failed":0},"hits":{"total":{"value":1,"relation":"eq"},"hits":[
 {"_index":"ori_soest_20250629013104","_type":"_doc","_id":"6074541","_score":9.1,"_source":{"@type":"MediaObject","@id":"6074541","name":"Raadsvoorstel woningbouw Kerkpad","original_url":"https://API1.ibabs.eu/publicdownload.aspx?id=7&site=soest","url":"https://api.openraadsinformatie.nl/v1/resolve/x","last_discussed_at":"2025-03-03T20:00:00"},"highlight":{"text":["de <mark>woningbouw</mark> aan het Kerkpad"]}}]}}`)
		case r.URL.Path == "/oa/api/search" && none:
			io.WriteString(w, `{"total":0,"results":[]}`)
		case r.URL.Path == "/oa/api/search":
			fmt.Fprintf(w, `{"total":1,"results":[{"id":"d-2025-soest-000007","title":"Raadsvoorstel woningbouw Kerkpad","date":"2025-03-03","government":"Gemeente Soest","governmentType":"gemeente","pages":4,"snippet":"<em>woningbouw</em>","url":%q}]}`, oneDocIBabs+"#page=1")
		case r.URL.Path == "/tk/Document" && none:
			io.WriteString(w, `{"@odata.count":0,"value":[]}`)
		case r.URL.Path == "/tk/Document":
			fmt.Fprintf(w, `{"@odata.count":1,"value":[{"Id":"0b7c5a8e-0000-4000-8000-000000000001","Soort":"Brief regering","DocumentNummer":%q,"Titel":"Woningbouw","Onderwerp":"Antwoord op vragen over woningbouw in Soest","Datum":"2025-02-10T00:00:00","Vergaderjaar":"2024-2025","Kamer":2,"Organisatie":"Tweede Kamer","Volgnummer":14,"Kamerstukdossier":[{"Nummer":36800,"Toevoeging":"VII"}]}]}`, oneDocTK)
		case r.URL.Path == "/obk/sru" && none:
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><sru:searchRetrieveResponse xmlns:sru="http://docs.oasis-open.org/ns/search-ws/sruResponse"><sru:version>2.0</sru:version><sru:numberOfRecords>0</sru:numberOfRecords><sru:records/></sru:searchRetrieveResponse>`)
		case r.URL.Path == "/obk/sru":
			w.Header().Set("Content-Type", "application/xml")
			io.WriteString(w, oneDocSRU)
		case r.URL.Path == "/opentk/search" && none:
			io.WriteString(w, `{"results":[],"milliseconds":1.0}`)
		case r.URL.Path == "/opentk/search":
			fmt.Fprintf(w, `{"results":[{"nummer":%q,"datum":"2025-02-10T00:00:00","score":-10.5,"category":"Document","onderwerp":"Antwoord op vragen over woningbouw in Soest","snip":"...<b>woningbouw</b>...","relurl":"get/%s","bijgewerkt":"2025-02-11T09:00:00","persoonnummer":-1}],"milliseconds":12.3}`, oneDocTK, oneDocTK)
		default:
			http.Error(w, "not here: "+r.URL.Path, http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// oneDocSRU is Officiële Bekendmakingen' SRU record of the Kamerstuk.
const oneDocSRU = `<?xml version="1.0" encoding="UTF-8"?>
<sru:searchRetrieveResponse xmlns:sru="http://docs.oasis-open.org/ns/search-ws/sruResponse">
<sru:version>2.0</sru:version><sru:numberOfRecords>1</sru:numberOfRecords><sru:records><sru:record>
<sru:recordSchema>http://standaarden.overheid.nl/sru/</sru:recordSchema><sru:recordPacking>xml</sru:recordPacking><sru:recordData>
<gzd:gzd xmlns:gzd="http://standaarden.overheid.nl/sru" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:overheidwetgeving="http://standaarden.overheid.nl/wetgeving/">
<gzd:originalData><overheidwetgeving:meta>
<overheidwetgeving:owmskern><dcterms:identifier>kst-36800-VII-14</dcterms:identifier><dcterms:title>Vaststelling van de begrotingsstaten van het Ministerie van Binnenlandse Zaken en Koninkrijksrelaties (VII) voor het jaar 2026; Brief regering; Antwoord op vragen over woningbouw in Soest</dcterms:title><dcterms:type scheme="OVERHEIDop.Rubriek">Kamerstuk</dcterms:type><dcterms:creator scheme="OVERHEID.StatenGeneraal">Tweede Kamer der Staten-Generaal</dcterms:creator><dcterms:modified>2025-02-10</dcterms:modified></overheidwetgeving:owmskern>
<overheidwetgeving:owmsmantel><dcterms:available>2025-02-10</dcterms:available><dcterms:date>2025-02-10</dcterms:date></overheidwetgeving:owmsmantel>
<overheidwetgeving:tpmeta><overheidwetgeving:publicatienaam>Kamerstuk</overheidwetgeving:publicatienaam><overheidwetgeving:dossiernummer>36800-VII</overheidwetgeving:dossiernummer><overheidwetgeving:ondernummer>14</overheidwetgeving:ondernummer></overheidwetgeving:tpmeta>
</overheidwetgeving:meta></gzd:originalData>
<gzd:enrichedData><gzd:preferredUrl>https://zoek.officielebekendmakingen.nl/kst-36800-VII-14.html</gzd:preferredUrl></gzd:enrichedData>
</gzd:gzd></sru:recordData><sru:recordPosition>1</sru:recordPosition></sru:record></sru:records></sru:searchRetrieveResponse>`

// oneDocHost is a host with the six connectors on oneDocPlatforms.
func oneDocHost(t *testing.T) string {
	t.Helper()
	if raceEnabled() {
		t.Skip("builds five connectors; runs without -race (make test runs it so), the grouping is raced in host/internal/serve/crosssearch")
	}
	up := oneDocPlatforms(t)
	tmp := t.TempDir()
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "[runtime]\ncompilation_cache_dir = %q\n[cache]\ndir = %q\n[status]\nenabled = false\n[mcp_rate_limit]\nenabled = false\n",
		testCompilationCache(t), filepath.Join(tmp, "cache"))
	for _, c := range []struct{ id, path string }{{"obv", "/obv"}, {"ori", "/ori"}, {"openarchivaris", "/oa"}, {"tk", "/tk"}, {"opentk", "/opentk"}, {"obk", "/obk"}} {
		fmt.Fprintf(&cfg, "[connectors.%s]\nmodule = %q\nbase_url = %q\nprivate_networks = [\"127.0.0.0/8\"]\npool_size = 1\n",
			c.id, wasmbuild.Path(t, "./plugins/"+c.id+"/cmd"), up.URL+c.path)
	}
	p := filepath.Join(tmp, "plugins.toml")
	if err := os.WriteFile(p, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(p, []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), &Options{Config: c, Version: "9.9.9-test", Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	return srv.URL
}

// oneDocResult is what the test reads of besluitbron_search.
type oneDocResult struct {
	ResultCount   int    `json:"result_count"`
	DocumentCount int    `json:"document_count"`
	Hint          string `json:"hint"`
	Platforms     []struct {
		Platform, Status, Error string
		ListedElsewhere         int `json:"listed_elsewhere"`
		Results                 []struct {
			ID, Title, URL string
			AlsoOn         []struct{ Platform, ID, URL, By string } `json:"also_on"`
		}
	}
}

// TestOneDocumentOnceThroughMCP: besluitbron_search over the five fakes
// lists the council file once with its copies on ori and openarchivaris
// under also_on (each with its own link), the Kamer answer once with its
// copies on opentk and tk, and counts 7 results as 3 documents; no copy
// is lost and none is listed twice. "nitrogen" finds nothing and gets the hint to
// search in Dutch, through besluitbron_search and a platform's search.
func TestOneDocumentOnceThroughMCP(t *testing.T) {
	base := oneDocHost(t)
	cs := mcpSession(t, base)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "besluitbron_search", Arguments: map[string]any{"query": "woningbouw"}})
	if err != nil || res.IsError {
		t.Fatalf("besluitbron_search: %v %s", err, resultText(res))
	}
	var r oneDocResult
	if err := json.Unmarshal([]byte(resultText(res)), &r); err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Platforms {
		if p.Status != "ok" {
			t.Errorf("%s: %s %s", p.Platform, p.Status, p.Error)
		}
	}
	if r.ResultCount != 7 || r.DocumentCount != 3 {
		t.Errorf("result_count %d, document_count %d; want 7 and 3", r.ResultCount, r.DocumentCount)
	}
	every := map[string]int{}
	shown := 0
	var council, tk []string
	for _, p := range r.Platforms {
		for _, it := range p.Results {
			shown++
			every[p.Platform+" "+it.ID]++
			var copies []string
			for _, c := range it.AlsoOn {
				every[c.Platform+" "+c.ID]++
				if c.URL == "" {
					t.Errorf("%s %s: its copy on %s has no link", p.Platform, it.ID, c.Platform)
				}
				copies = append(copies, c.Platform+" by "+c.By)
			}
			switch it.ID {
			case "document:ibabs:gemeente:soest:7":
				council = copies
			case oneDocTK, "0b7c5a8e-0000-4000-8000-000000000001", "kst-36800-VII-14":
				tk = append([]string{p.Platform}, copies...)
			}
		}
	}
	if shown != r.DocumentCount {
		t.Errorf("%d results shown for %d documents", shown, r.DocumentCount)
	}
	for k, n := range every {
		if n != 1 {
			t.Errorf("%s appears %d times", k, n)
		}
	}
	if len(every) != 7 {
		t.Errorf("%d of the 7 results are shown or listed: %v", len(every), every)
	}
	if strings.Join(council, ", ") != "ori by source_url, openarchivaris by source_url" && strings.Join(council, ", ") != "openarchivaris by source_url, ori by source_url" {
		t.Errorf("the council file's copies: %v", council)
	}
	// The Kamer answer on three platforms: shown on obk (the first
	// section), opentk and tk under it; opentk shares no key with obk and
	// is there through tk.
	if strings.Join(tk, ", ") != "obk, opentk by tk_document_number, tk by kamerstuk" {
		t.Errorf("the Kamer answer: shown on, then its copies: %v", tk)
	}
	t.Logf("woningbouw: %d results, %d documents, %d bytes", r.ResultCount, r.DocumentCount, len(resultText(res)))

	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "besluitbron_search", Arguments: map[string]any{"query": "nitrogen"}})
	if err != nil || res.IsError {
		t.Fatalf("besluitbron_search nitrogen: %v %s", err, resultText(res))
	}
	r = oneDocResult{}
	if err := json.Unmarshal([]byte(resultText(res)), &r); err != nil {
		t.Fatal(err)
	}
	if r.ResultCount != 0 || !strings.Contains(r.Hint, "search in Dutch") || !strings.Contains(r.Hint, `"stikstof"`) {
		t.Errorf("nitrogen: %d results, hint %q", r.ResultCount, r.Hint)
	}
	// A platform's own search says it too, in the host's note; a Dutch
	// query that finds something gets none.
	for q, want := range map[string]bool{"nitrogen": true, "woningbouw": false} {
		res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": q}})
		if err != nil || res.IsError {
			t.Fatalf("obv_search %s: %v %s", q, err, resultText(res))
		}
		if got := strings.Contains(resultText(res), "Note: The platforms' documents are in Dutch"); got != want {
			t.Errorf("obv_search %s: hint %v, want %v: %s", q, got, want, resultText(res))
		}
	}
}

// TestBrowserOneDocumentOnce: on the search page a query's results come
// first, the first result's title on the first screen of a desktop
// (1280×900) and of a phone (390×844; before, with five of these
// platforms, it started 1,095 and 1,539 px down, below the platform
// choice), and the council file is shown once,
// with "ook op" links to its copies on ORI and Open Archivaris;
// "nitrogen", found nowhere, gets the advice to search in Dutch.
func TestBrowserOneDocumentOnce(t *testing.T) {
	ctx := browser(t)
	base := oneDocHost(t)
	for _, v := range []struct {
		name          string
		width, height int64
		scale         float64
	}{{"desktop", 1280, 900, 1}, {"phone", 390, 844, 2}} {
		step(t, ctx, v.name+" viewport", chromedp.EmulateViewport(v.width, v.height, chromedp.EmulateScale(v.scale)))
		step(t, ctx, v.name+": search", chromedp.Navigate(base+"/?q=woningbouw"), chromedp.WaitVisible(chromedp.CSS("#r-obv .result")))
		y, err := chromedp.Run(ctx, chromedp.Evaluate[float64]("Math.round(document.querySelector('.result').getBoundingClientRect().top + window.scrollY)"))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s (%d×%d): the first result starts %.0f px down", v.name, v.width, v.height, y)
		// Its title (two lines, under 100 px) is seen without scrolling.
		if y > float64(v.height-100) {
			t.Errorf("%s: the first result starts %.0f px down: its title is not on the first %d px screen", v.name, y, v.height)
		}
		screenshot(t, ctx, "onedoc-"+v.name)
	}
	also := text(t, ctx, "#r-obv .result .also")
	if !strings.Contains(also, "ook op") || !strings.Contains(also, "Open Raadsinformatie") || !strings.Contains(also, "Open Archivaris") {
		t.Errorf("the council file's copies: %q", also)
	}
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.querySelectorAll('#r-ori .result, #r-openarchivaris .result').length"))
	if err != nil || n != 0 {
		t.Errorf("the copies are listed again in their own sections: %d (%v)", n, err)
	}
	// Nothing found for an English word: the page says to search in Dutch
	// and links the Dutch search.
	step(t, ctx, "search nitrogen", chromedp.Navigate(base+"/?q=nitrogen"), chromedp.WaitVisible(chromedp.CSS(".hint-dutch")))
	if got := text(t, ctx, ".hint-dutch"); !strings.Contains(got, "zoek in het Nederlands") || !strings.Contains(got, "stikstof") {
		t.Errorf("the hint: %q", got)
	}
	step(t, ctx, "search the Dutch word", chromedp.Click(chromedp.CSS(".hint-dutch a")), chromedp.WaitVisible(chromedp.CSS("#q")))
	if q, _ := chromedp.Run(ctx, chromedp.Evaluate[string]("document.querySelector('#q').value")); q != "stikstof" {
		t.Errorf("the hint's link searches %q", q)
	}
}

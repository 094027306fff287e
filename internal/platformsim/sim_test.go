package platformsim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

func testdata() string { return filepath.Join(wasmbuild.Root(), "testdata") }

// fakeClock is a settable clock for the bucket and the window counter.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// start serves a Sim on httptest and returns it, its root URL and its
// clock. The request log goes to logs when given.
func start(t *testing.T, logs io.Writer) (*Sim, string, *fakeClock) {
	t.Helper()
	clock := &fakeClock{t: time.Date(2025, 7, 1, 12, 0, 0, 0, time.UTC)}
	if logs == nil {
		logs = io.Discard
	}
	s, err := New(Options{DataDir: testdata(), Now: clock.Now, Logger: slog.New(slog.NewTextHandler(logs, nil)), Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	t.Cleanup(s.Close) // runs first: releases hanging handlers
	return s, srv.URL, clock
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func do(t *testing.T, req *http.Request) answer {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{resp.StatusCode, resp.Header, b}
}

func get(t *testing.T, u string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return do(t, req)
}

func post(t *testing.T, u, ctype string, body []byte) answer {
	t.Helper()
	req, err := http.NewRequest("POST", u, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	return do(t, req)
}

// recorded429 reads the platform's recorded 429 answer.
func recorded429(t *testing.T) (http.Header, map[string]any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata(), "obv", "obv-429.http"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return resp.Header, m
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestOBV429LikeThePlatform exhausts the bucket with searches of limit
// 100 (5 units each) and compares the refusal with the recorded one.
func TestOBV429LikeThePlatform(t *testing.T) {
	sim, root, clock := start(t, nil)
	u := root + "/obv/api/search?query=klimaat&limit=100"
	for i := 0; i < 12; i++ {
		if a := get(t, u); a.status != 200 {
			t.Fatalf("search %d: HTTP %d %s", i+1, a.status, a.body)
		}
	}
	clock.Advance(2 * time.Second) // 2 units back: the recorded situation
	a := get(t, u)
	if a.status != http.StatusTooManyRequests {
		t.Fatalf("13th search: HTTP %d, want 429", a.status)
	}
	wantHdr, wantBody := recorded429(t)
	for _, h := range []string{"Content-Type", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After"} {
		if got, want := a.header.Get(h), wantHdr.Get(h); got != want {
			t.Errorf("header %s = %q, recorded %q", h, got, want)
		}
	}
	var body map[string]any
	if err := json.Unmarshal(a.body, &body); err != nil {
		t.Fatalf("429 body: %v: %s", err, a.body)
	}
	if diff := cmp.Diff(wantBody, body); diff != "" {
		t.Errorf("429 body (-recorded +sim):\n%s", diff)
	}
	st := sim.Stats().Platforms["obv"]
	if st.TooMany != 1 || st.Requests != 13 || st.Units != 60 || st.MaxWindowUnits != 60 {
		t.Errorf("stats %+v", st)
	}
	// A minute later the bucket is full again.
	clock.Advance(time.Minute)
	if a := get(t, u); a.status != 200 || a.header.Get("RateLimit-Remaining") != "55" {
		t.Errorf("after a minute: HTTP %d remaining %q", a.status, a.header.Get("RateLimit-Remaining"))
	}
}

// TestOBVHeadersOnEveryAnswer: success, client errors and not found all
// carry RateLimit-*, and each client address has its own bucket.
func TestOBVHeadersOnEveryAnswer(t *testing.T) {
	_, root, _ := start(t, nil)
	for _, p := range []string{
		"/api/search?query=klimaat", "/api/search?limit=0&query=x", "/api/search", "/api/search?organization=nergens",
		"/api/entities/document%3Anotubiz%3Agemeente%3Asoest%3A12346", "/api/entities/nope:1", "/api/sources", "/api/stats", "/api/status", "/api/nothing",
	} {
		a := get(t, root+"/obv"+p)
		for _, h := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
			if a.header.Get(h) == "" {
				t.Errorf("%s (HTTP %d): no %s", p, a.status, h)
			}
		}
	}
	a := get(t, root+"/obv/api/sources", "X-Forwarded-For", "10.0.0.9, 192.0.2.1")
	b := get(t, root+"/obv/api/sources", "X-Forwarded-For", "192.0.2.2")
	if a.header.Get("RateLimit-Remaining") != "59" || b.header.Get("RateLimit-Remaining") != "59" {
		t.Errorf("fresh clients: remaining %q and %q, want 59 each", a.header.Get("RateLimit-Remaining"), b.header.Get("RateLimit-Remaining"))
	}
}

func TestOBVErrorsLikeThePlatform(t *testing.T) {
	_, root, _ := start(t, nil)
	cases := []struct {
		path   string
		status int
		want   string
	}{
		{"/api/search", 400, "query"},
		{"/api/search?query=x&limit=abc", 400, "limit"},
		{"/api/search?query=x&offset=-1", 400, "offset"},
		{"/api/search?query=x&entityType=Foo", 400, "Foo"},
		{"/api/search?organization=nergens", 400, "Onbekende organisatie: nergens"},
		{"/api/search?query=x&dateFrom=2024-13-01", 400, "2024-13-01"},
		{"/api/entities/document:x:y", 404, "document:x:y"},
	}
	for _, c := range cases {
		a := get(t, root+"/obv"+c.path)
		var e struct{ Error string }
		if a.status != c.status || json.Unmarshal(a.body, &e) != nil || !strings.Contains(e.Error, c.want) {
			t.Errorf("%s: HTTP %d %s, want %d with an error naming %q", c.path, a.status, a.body, c.status, c.want)
		}
	}
	// Limits above 100 are capped, not refused, and still cost by the
	// requested limit.
	a := get(t, root+"/obv/api/search?query=de&limit=500")
	// 60 - 7 (the requests above, 1 each, refused or not) - 21.
	if a.status != 200 || a.header.Get("RateLimit-Remaining") != "32" {
		t.Errorf("limit 500: HTTP %d remaining %q, want 200 and 32 (cost 21)", a.status, a.header.Get("RateLimit-Remaining"))
	}
}

// obvIDs runs an OBV search and returns the entity ids and hasMore.
func obvIDs(t *testing.T, root, query string) ([]string, bool) {
	t.Helper()
	a := get(t, root+"/obv/api/search?"+query)
	var r struct {
		Results []struct {
			EntityID    string `json:"entityId"`
			SummaryHTML string `json:"summaryHtml"`
		}
		TotalCount int
		HasMore    bool
	}
	if a.status != 200 || json.Unmarshal(a.body, &r) != nil {
		t.Fatalf("%s: HTTP %d %s", query, a.status, a.body)
	}
	var ids []string
	for _, x := range r.Results {
		ids = append(ids, x.EntityID)
	}
	return ids, r.HasMore
}

func TestSearchesDifferByQueryAndPage(t *testing.T) {
	_, root, _ := start(t, nil)
	klimaat, _ := obvIDs(t, root, "query=klimaat")
	stikstof, _ := obvIDs(t, root, "query=stikstof")
	soest, _ := obvIDs(t, root, "query=klimaat&organization=soest")
	if len(klimaat) < 3 || len(stikstof) == 0 || cmp.Equal(klimaat, stikstof) {
		t.Errorf("klimaat %v, stikstof %v: want different non-empty results", klimaat, stikstof)
	}
	for _, id := range soest {
		if !strings.Contains(id, ":soest:") {
			t.Errorf("organization soest gave %s", id)
		}
	}
	if len(soest) == 0 {
		t.Error("klimaat in soest: nothing")
	}
	p1, more1 := obvIDs(t, root, "query=klimaat&limit=2")
	p2, _ := obvIDs(t, root, "query=klimaat&limit=2&offset=2")
	if len(p1) != 2 || len(p2) == 0 || !more1 || p1[0] == p2[0] || p1[1] != klimaat[1] || p2[0] != klimaat[2] {
		t.Errorf("pages %v (more %v) and %v of %v", p1, more1, p2, klimaat)
	}
	if ids, _ := obvIDs(t, root, "query=zzzzqqq"); len(ids) != 0 {
		t.Errorf("nonsense query found %v", ids)
	}
	// Dutch characters fold: Kröger and kroger match alike.
	a, _ := obvIDs(t, root, "query=beëindiging")
	b, _ := obvIDs(t, root, "query=beeindiging")
	if len(a) == 0 || !cmp.Equal(a, b) {
		t.Errorf("beëindiging %v, beeindiging %v", a, b)
	}
}

// TestEveryPlatformSearchesAndReads exercises each platform's search and
// full text in its own format.
func TestEveryPlatformSearchesAndReads(t *testing.T) {
	_, root, _ := start(t, nil)
	t.Run("ori", func(t *testing.T) {
		body := `{"query":{"bool":{"must":{"simple_query_string":{"query":"klimaat","fields":["text","title","description","name"],"default_operator":"and"}},"filter":[{"range":{"last_discussed_at":{"gte":"2025-01-01"}}}]}},"size":5,"from":0,"highlight":{"pre_tags":["<mark>"],"post_tags":["</mark>"],"fields":{"text":{},"name":{}}},"_source":{"excludes":["text","md_text"]}}`
		a := post(t, root+"/ori/v1/elastic/ori_*/_search", "application/json", []byte(body))
		var r struct {
			Shards struct{ Total int } `json:"_shards"`
			Hits   struct {
				Total struct{ Value int }
				Hits  []struct {
					ID        string              `json:"_id"`
					Source    map[string]any      `json:"_source"`
					Highlight map[string][]string `json:"highlight"`
				}
			}
		}
		if a.status != 200 || json.Unmarshal(a.body, &r) != nil || r.Hits.Total.Value == 0 || r.Shards.Total < 2 {
			t.Fatalf("HTTP %d %s", a.status, a.body)
		}
		for _, h := range r.Hits.Hits {
			if d, _ := h.Source["last_discussed_at"].(string); d < "2025-01-01" {
				t.Errorf("hit %s dated %q, before the range", h.ID, d)
			}
			if _, ok := h.Source["text"]; ok {
				t.Errorf("hit %s carries excluded text", h.ID)
			}
			if !strings.Contains(strings.Join(h.Highlight["text"], ""), "<mark>") {
				t.Errorf("hit %s: highlight %v", h.ID, h.Highlight)
			}
		}
		one := get(t, root+"/ori/v1/elastic/ori_soest_2*/_search?q=_id%3A7001400&size=2")
		if !strings.Contains(string(one.body), "md_text") || !strings.Contains(string(one.body), `"_id":"7001400"`) {
			t.Errorf("by id: %s", one.body)
		}
		none := post(t, root+"/ori/v1/elastic/ori_nergens_2*/_search", "application/json", []byte(`{"query":{"match_all":{}}}`))
		if !strings.Contains(string(none.body), `"total":0`) {
			t.Errorf("unknown organisation: %s", none.body)
		}
		if a := post(t, root+"/ori/v1/elastic/ori_*/_doc", "application/json", nil); a.status != 403 || !strings.Contains(string(a.body), "nginx") {
			t.Errorf("POST outside _search: HTTP %d %s", a.status, a.body)
		}
		if a := post(t, root+"/ori/v1/elastic/ori_*/_search", "application/json", []byte(`{"query":`)); a.status != 400 || !strings.Contains(string(a.body), "parsing_exception") {
			t.Errorf("bad JSON: HTTP %d %s", a.status, a.body)
		}
	})
	t.Run("tk", func(t *testing.T) {
		q := url.Values{}
		q.Set("$filter", "Verwijderd eq false and Datum ge 2024-10-01T00:00:00+02:00 and (contains(Titel,'klimaat') or contains(Onderwerp,'klimaat'))")
		q.Set("$select", "Id,Soort,Titel,Onderwerp,Datum")
		q.Set("$orderby", "Datum desc,Id desc")
		q.Set("$top", "1")
		q.Set("$count", "true")
		a := get(t, root+"/tk/OData/v4/2.0/Document?"+q.Encode())
		var r struct {
			Count int              `json:"@odata.count"`
			Value []map[string]any `json:"value"`
		}
		if a.status != 200 || json.Unmarshal(a.body, &r) != nil || r.Count < 2 || len(r.Value) != 1 {
			t.Fatalf("HTTP %d %s", a.status, a.body)
		}
		if _, ok := r.Value[0]["ContentType"]; ok {
			t.Errorf("$select ignored: %v", r.Value[0])
		}
		// The Kröger motion: the Klimaat- en Energienota it was
		// submitted on is dated before its debate, 1 October.
		if r.Value[0]["Datum"] != "2024-10-15T00:00:00+02:00" {
			t.Errorf("newest first: %v", r.Value[0])
		}
		zaak := url.Values{"$filter": {"Zaak/any(z:z/Nummer eq '2025Z12846')"}}
		if a := get(t, root+"/tk/OData/v4/2.0/Document?"+zaak.Encode()); !strings.Contains(string(a.body), "2025D08800") {
			t.Errorf("by zaak: %s", a.body)
		}
		bad := url.Values{"$filter": {"Foo eq 1"}}
		if a := get(t, root+"/tk/OData/v4/2.0/Document?"+bad.Encode()); a.status != 400 || !strings.Contains(string(a.body), "Could not find a property named 'Foo'") {
			t.Errorf("unknown property: HTTP %d %s", a.status, a.body)
		}
		one := get(t, root+"/tk/OData/v4/2.0/Document(2b4c6d8e-0a1b-4c2d-9e3f-4a5b6c7d8e01)?$expand=HuidigeDocumentVersie($select=Id,ExterneIdentifier)")
		if !strings.Contains(string(one.body), `"HuidigeDocumentVersie":{`) || strings.Contains(string(one.body), `"Zaak"`) {
			t.Errorf("entity: %s", one.body)
		}
		// Decisions with their votes, as tk_get_votes asks for them: an
		// expansion two deep with nested options; deeper is refused.
		votes := url.Values{"$filter": {"Verwijderd eq false and Zaak/any(z:z/Nummer eq '2025Z02290')"},
			"$expand": {"Stemming($select=Soort,FractieGrootte,ActorFractie),Zaak($select=Nummer),Agendapunt($select=Id;$expand=Activiteit($select=Datum))"}}
		var bs struct {
			Value []struct {
				BesluitSoort string
				Stemming     []map[string]any
				Zaak         []map[string]any
				Agendapunt   struct {
					Onderwerp  *string
					Activiteit map[string]any
				}
			}
		}
		if a := get(t, root+"/tk/OData/v4/2.0/Besluit?"+votes.Encode()); a.status != 200 || json.Unmarshal(a.body, &bs) != nil || len(bs.Value) != 2 {
			t.Fatalf("votes: HTTP %d %s", a.status, a.body)
		}
		seats := 0
		for _, st := range bs.Value[1].Stemming {
			if len(st) != 3 {
				t.Errorf("nested $select ignored: %v", st)
			}
			seats += int(st["FractieGrootte"].(float64))
		}
		if v := bs.Value[1]; v.BesluitSoort != "Stemmen - aangenomen" || seats != 150 || len(v.Zaak) != 1 || len(v.Zaak[0]) != 1 ||
			v.Agendapunt.Onderwerp != nil || v.Agendapunt.Activiteit["Datum"] != "2025-02-18T00:00:00+01:00" || len(v.Agendapunt.Activiteit) != 1 {
			t.Errorf("votes: %+v (%d seats)", v, seats)
		}
		deep := url.Values{"$expand": {"Agendapunt($expand=Activiteit($expand=Zaak))"}}
		if a := get(t, root+"/tk/OData/v4/2.0/Besluit?"+deep.Encode()); a.status != 400 || !strings.Contains(string(a.body), "too deep") {
			t.Errorf("expansion three deep: HTTP %d %s", a.status, a.body)
		}
		byID := url.Values{"$filter": {"Zaak/any(z:z/Id eq D4C3B2A1-0F9E-4D8C-B7A6-000000000002)"}}
		if a := get(t, root+"/tk/OData/v4/2.0/Besluit?"+byID.Encode()); !strings.Contains(string(a.body), "b3e5d7f9-5a5a-4c2a-8e6b-000000000004") {
			t.Errorf("by Zaak Id (a bare Guid): HTTP %d %s", a.status, a.body)
		}
		// A document's cases, named by number in the data, expand whole.
		docZaak := url.Values{"$filter": {"DocumentNummer eq '2025D05511'"}, "$expand": {"Zaak($select=Nummer,Soort)"}}
		if a := get(t, root+"/tk/OData/v4/2.0/Document?"+docZaak.Encode()); !strings.Contains(string(a.body), `"Soort":"Motie"`) {
			t.Errorf("document's cases: %s", a.body)
		}
		pdf := get(t, root+"/tk/OData/v4/2.0/Document(2b4c6d8e-0a1b-4c2d-9e3f-4a5b6c7d8e01)/resource")
		if pdf.header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(pdf.body, []byte("%PDF-")) || !bytes.Contains(pdf.body, []byte("Kr\\366ger")) {
			t.Errorf("resource: %s %q", pdf.header.Get("Content-Type"), pdf.body[:min(40, len(pdf.body))])
		}
	})
	t.Run("opentk", func(t *testing.T) {
		search := func(q, soorten string) answer {
			var b bytes.Buffer
			w := multipart.NewWriter(&b)
			w.WriteField("q", q)
			w.WriteField("twomonths", "false")
			w.WriteField("soorten", soorten)
			w.Close()
			return post(t, root+"/opentk/tkconv/search", w.FormDataContentType(), b.Bytes())
		}
		var r struct {
			Results []struct{ Nummer, Category, Snip string }
		}
		a := search("stikstof", "alles")
		if a.status != 200 || json.Unmarshal(a.body, &r) != nil || len(r.Results) < 3 || !strings.Contains(r.Results[0].Snip, "<b>") {
			t.Fatalf("HTTP %d %s", a.status, a.body)
		}
		motions := search("woningbouw", "moties")
		if !strings.Contains(string(motions.body), "2025D05511") || strings.Contains(string(motions.body), "2025D06020") {
			t.Errorf("moties only: %s", motions.body)
		}
		if a := search(`"sociale huurwoningen"`, "alles"); !strings.Contains(string(a.body), "2025D05511") {
			t.Errorf("phrase: %s", a.body)
		}
		if a := search("stikstof NOT woningbouw", "alles"); strings.Contains(string(a.body), "2025D10333") {
			t.Errorf("NOT: %s", a.body)
		}
		if a := search("klimaat AND", "alles"); a.status != 500 || !strings.Contains(string(a.body), "fts5: syntax error") {
			t.Errorf("syntax error: HTTP %d %s", a.status, a.body)
		}
		doc := get(t, root+"/opentk/tkconv/getdoc/2025D06020")
		if doc.status != 200 || !strings.Contains(string(doc.body), "Woningbouwimpuls") || !strings.Contains(string(doc.body), "page2-div") {
			t.Errorf("getdoc: %s", doc.body)
		}
		if a := get(t, root+"/opentk/tkconv/getdoc/2099D00001"); a.status != 404 || string(a.body) != "Found nothing!!" {
			t.Errorf("unknown getdoc: HTTP %d %s", a.status, a.body)
		}
	})
	t.Run("obk", func(t *testing.T) {
		sru := func(cql string, startRecord int) answer {
			q := url.Values{"operation": {"searchRetrieve"}, "version": {"2.0"}, "query": {cql}, "maximumRecords": {"2"}}
			q.Set("startRecord", strconv.Itoa(startRecord))
			return get(t, root+"/obk/sru?"+q.Encode())
		}
		type resp struct {
			XMLName xml.Name
			N       int      `xml:"numberOfRecords"`
			IDs     []string `xml:"records>record>recordData>gzd>originalData>meta>owmskern>identifier"`
			Next    int      `xml:"nextRecordPosition"`
			Diag    string   `xml:"diagnostics>diagnostic>message"`
		}
		read := func(a answer) resp {
			var r resp
			if err := xml.Unmarshal(a.body, &r); err != nil {
				t.Fatalf("%v: %s", err, a.body)
			}
			return r
		}
		r := read(sru(`c.product-area==officielepublicaties and cql.textAndIndexes="klimaat" sortBy dt.date/sort.descending`, 1))
		if r.N < 3 || len(r.IDs) != 2 || r.Next != 3 {
			t.Errorf("klimaat: %+v", r)
		}
		r2 := read(sru(`c.product-area==officielepublicaties and cql.textAndIndexes="klimaat" sortBy dt.date/sort.descending`, 3))
		if len(r2.IDs) == 0 || r2.IDs[0] == r.IDs[0] {
			t.Errorf("page 2: %+v after %+v", r2, r)
		}
		soest := read(sru(`c.product-area==officielepublicaties and dt.creator="Soest" and (w.publicatienaam=="Gemeenteblad" or w.publicatienaam=="Staatscourant")`, 1))
		if soest.N != 2 {
			t.Errorf("Soest Gemeenteblad: %+v", soest)
		}
		if d := read(sru(`dt.title="x" and`, 1)); d.Diag != "Query syntax error" {
			t.Errorf("syntax: %+v", d)
		}
		if d := read(sru(`foo.bar="x"`, 1)); d.Diag != "Unsupported index" {
			t.Errorf("index: %+v", d)
		}
		if a := get(t, root+"/zoek/kst-33328-AI.xml"); a.status != 200 || !bytes.Contains(a.body, []byte("<officiele-publicatie")) {
			t.Errorf("zoek: HTTP %d", a.status)
		}
	})
	t.Run("rechtspraak", func(t *testing.T) {
		a := get(t, root+"/rechtspraak/uitspraken/zoeken?creator=http://standaarden.overheid.nl/owms/terms/Raad_van_State&return=DOC&sort=DESC&max=5")
		var f struct {
			Subtitle string   `xml:"subtitle"`
			IDs      []string `xml:"entry>id"`
			Sums     []string `xml:"entry>summary"`
		}
		if err := xml.Unmarshal(a.body, &f); err != nil || len(f.IDs) != 2 || f.IDs[0] != "ECLI:NL:RVS:2025:1200" || !strings.Contains(f.Sums[0], "Woo") {
			t.Errorf("Raad van State: %v %+v", err, f)
		}
		if a := get(t, root+"/rechtspraak/uitspraken/zoeken?date=2022-02-30"); a.status != 500 || !strings.Contains(string(a.body), "DateTime") {
			t.Errorf("impossible date: HTTP %d %s", a.status, a.body)
		}
		if a := get(t, root+"/rechtspraak/uitspraken/content?id=ECLI:NL:HR:2019:2007"); !bytes.Contains(a.body, []byte("Urgenda")) {
			t.Errorf("content: %s", a.body)
		}
		if a := get(t, root+"/rechtspraak/Waardelijst/Instanties"); !bytes.Contains(a.body, []byte("Hoge Raad")) {
			t.Errorf("value list: HTTP %d", a.status)
		}
	})
	t.Run("openarchivaris", func(t *testing.T) {
		a := get(t, root+"/openarchivaris/api/search?q=klimaat+fiets&limit=3")
		var r struct {
			Total   int
			Results []struct{ ID, Snippet string }
		}
		if a.status != 200 || json.Unmarshal(a.body, &r) != nil || r.Total < 3 || r.Results[0].ID != "d-2025-utrecht-000912" {
			t.Errorf("HTTP %d %s", a.status, a.body)
		}
		if a := get(t, root+"/openarchivaris/api/documents/d-2025-zwolle-000077"); !bytes.Contains(a.body, []byte(`"text"`)) {
			t.Errorf("document: %s", a.body)
		}
		if a := get(t, root+"/openarchivaris/api/nope"); !bytes.Contains(a.body, []byte("<div id=\"app\">")) {
			t.Errorf("unknown path: %s", a.body)
		}
	})
}

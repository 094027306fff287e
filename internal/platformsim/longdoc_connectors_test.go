package platformsim

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

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

// simHost is a connector host that sends a connector's requests to a Sim:
// its base URL and zoek.officielebekendmakingen.nl rewritten, as the
// host's base_url and url_rewrites do. No cache, no limits, no text store.
type simHost struct {
	rewrites [][2]string
}

func newSimHost(root, id, baseURL string) *simHost {
	return &simHost{rewrites: [][2]string{{baseURL, BaseURLs(root)[id]}, {ZoekHost, strings.TrimRight(root, "/") + "/" + zoekPrefix}}}
}

func (h *simHost) Fetch(ctx context.Context, req connector.FetchRequest) (connector.FetchResponse, error) {
	u := ""
	for _, rw := range h.rewrites {
		if rest, ok := strings.CutPrefix(req.URL, rw[0]); ok {
			u = rw[1] + rest
			break
		}
	}
	if u == "" {
		return connector.FetchResponse{}, &connector.FetchError{Kind: connector.FetchRefused, Message: "not a simulated host: " + req.URL}
	}
	method := req.Method
	if method == "" {
		method = "GET"
	}
	r, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(req.Body))
	if err != nil {
		return connector.FetchResponse{}, err
	}
	for k, v := range req.Header {
		r.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		return connector.FetchResponse{}, &connector.FetchError{Kind: connector.FetchUnavailable, Message: err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return connector.FetchResponse{}, &connector.FetchError{Kind: connector.FetchUnavailable, Message: err.Error()}
	}
	hdr := map[string]string{}
	for k := range resp.Header {
		hdr[k] = resp.Header.Get(k)
	}
	return connector.FetchResponse{Status: resp.StatusCode, Header: hdr, Body: body}, nil
}

func (h *simHost) Log(context.Context, int, string) {}

var longPlugins = map[string]func() *sdk.Plugin{
	"obv": obv.Plugin, "ori": ori.Plugin, "tk": tk.Plugin, "opentk": opentk.Plugin, "obk": obk.Plugin,
	"rechtspraak": rechtspraak.Plugin, "openarchivaris": openarchivaris.Plugin,
}

// getDocument calls a connector's get_document on the Sim.
func getDocument(t *testing.T, root string, d LongDocument, page int) (sdk.Document, connector.CallResult) {
	t.Helper()
	p := longPlugins[d.Platform]()
	m, err := p.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{d.Arg: d.ID, "page": page})
	res, err := p.Call(context.Background(), connector.CallRequest{Tool: "get_document", Arguments: args}, newSimHost(root, d.Platform, m.BaseURL))
	if err != nil {
		t.Fatalf("%s: get_document: %v", d.ID, err)
	}
	var doc sdk.Document
	if !res.IsError {
		if err := json.Unmarshal([]byte(res.Text), &doc); err != nil {
			t.Fatalf("%s: %v: %.300s", d.ID, err, res.Text)
		}
	}
	return doc, res
}

// TestLongDocumentsThroughConnectors: each connector's own get_document
// reads each long document: the first page opens with the start phrase,
// the last page ends with the end phrase. The huge documents are left out:
// their formats are the long ones', and without a text store every call
// extracts the whole text again (TestLongDocumentsServed reads them). The
// race detector skips it: the connectors' extraction has no concurrency of
// the Sim's to check and takes it half a minute.
func TestLongDocumentsThroughConnectors(t *testing.T) {
	if raceEnabled {
		t.Skip("slow under the race detector; TestLongDocumentsServed serves the same documents concurrently")
	}
	_, root, _ := start(t, nil)
	for _, d := range LongDocuments() {
		t.Run(d.Platform+"/"+d.Size+"/"+d.Format, func(t *testing.T) {
			t.Parallel()
			if d.Size == "huge" {
				t.Skip("the long document of the same format is read")
			}
			first, res := getDocument(t, root, d, 1)
			if res.IsError {
				t.Fatalf("%s: %s", d.ID, res.Text)
			}
			if first.Pages < d.TextBytes/sdk.TextPageSize || !strings.Contains(first.Text, d.StartPhrase) {
				t.Fatalf("%s: page 1 of %d: %.500s", d.ID, first.Pages, first.Text)
			}
			last, res := getDocument(t, root, d, first.Pages)
			if res.IsError || !strings.HasSuffix(strings.TrimSpace(last.Text), d.EndPhrase) {
				t.Errorf("%s: page %d: %.300s … %s", d.ID, first.Pages, last.Text, last.Text[max(0, len(last.Text)-300):])
			}
			if d.Platform == "tk" && d.Format == "XML" {
				if src := last.Extra["tk"]["text_source"]; src != "officielebekendmakingen_xml" {
					t.Errorf("%s: text from %v, want the official XML", d.ID, src)
				}
			}
		})
	}
}

// TestRefuseExpandThroughConnector: tk's get_document meets the drift and
// says so, naming the property (as a tool error, or as a note on the
// text it read from the file instead).
func TestRefuseExpandThroughConnector(t *testing.T) {
	sim, root, _ := start(t, nil)
	if err := sim.SetFault("tk", Fault{RefuseExpand: true}); err != nil {
		t.Fatal(err)
	}
	_, res := getDocument(t, root, LongDocument{Platform: "tk", Arg: "id", ID: "2b4c6d8e-0a1b-4c2d-9e3f-4a5b6c7d8e01"}, 1)
	if !strings.Contains(res.Text, "Could not find a property named 'HuidigeDocumentVersie'") {
		t.Errorf("IsError %v: %s", res.IsError, res.Text)
	}
}

// searchTK calls tk's search on the Sim.
func searchTK(t *testing.T, root string, args string) (sdk.SearchResult, connector.CallResult) {
	t.Helper()
	p := tk.Plugin()
	m, err := p.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Call(context.Background(), connector.CallRequest{Tool: "search", Arguments: json.RawMessage(args)}, newSimHost(root, "tk", m.BaseURL))
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	var out sdk.SearchResult
	if !res.IsError {
		if err := json.Unmarshal([]byte(res.Text), &out); err != nil {
			t.Fatalf("%v: %.300s", err, res.Text)
		}
	}
	return out, res
}

// TestTKSearchCarriesThePublicationKey: tk's search, whose $expand names
// two navigations as the platform allows, gives the Kamer answer the
// publication key obk's copy of it carries (issue 28: without it the two
// are listed as two documents); when the platform refuses to expand the
// current version, the search is asked again without it and says so.
func TestTKSearchCarriesThePublicationKey(t *testing.T) {
	sim, root, _ := start(t, nil)
	const args = `{"query":"Antwoord Vermeer Veluwe"}`
	want := sdk.DocKeys{Publication: "ah-tk-20242025-1888"}.Map()[connector.KeyPublication] // as obk's search keys its record
	out, res := searchTK(t, root, args)
	if res.IsError || len(out.Results) != 1 {
		t.Fatalf("IsError %v: %.500s", res.IsError, res.Text)
	}
	if got := out.Results[0].Keys[connector.KeyPublication]; got != want || want == "" {
		t.Errorf("publication key %q, want %q (keys %v)", got, want, out.Results[0].Keys)
	}
	if err := sim.SetFault("tk", Fault{RefuseExpand: true}); err != nil {
		t.Fatal(err)
	}
	out, res = searchTK(t, root, args)
	if res.IsError || len(out.Results) != 1 {
		t.Fatalf("refused expand: IsError %v: %.500s", res.IsError, res.Text)
	}
	if k := out.Results[0].Keys; k[connector.KeyPublication] != "" || k[connector.KeyTKDocument] != "2025D14101" {
		t.Errorf("refused expand: keys %v", k)
	}
	if !slices.ContainsFunc(out.Notes, func(n string) bool { return strings.Contains(n, "refused to expand") }) {
		t.Errorf("refused expand: no note in %q", out.Notes)
	}
}

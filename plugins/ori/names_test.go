package ori_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// orgHost answers the organisations request (the one list_organizations
// makes, which search and get_document make to name organisations) from
// its own answer, and every other request from the fake host: the fake
// host routes by URL alone, and a search of all organisations has the
// same URL.
type orgHost struct {
	*sdktest.Host
	t      testing.TB
	body   []byte // the organisations request's body
	answer connector.FetchResponse
	err    error
	asked  int
}

// orgs wraps h so the organisations request gets the recorded list.
func orgs(t testing.TB, h *sdktest.Host) *orgHost {
	t.Helper()
	b, err := os.ReadFile(td + "ori-organizations.json")
	if err != nil {
		t.Fatal(err)
	}
	return orgsAnswer(t, h, connector.FetchResponse{Status: 200, Body: b}, nil)
}

func orgsAnswer(t testing.TB, h *sdktest.Host, answer connector.FetchResponse, err error) *orgHost {
	_, body, e := ori.OrganizationsRequest(base, "")
	if e != nil {
		t.Fatal(e)
	}
	return &orgHost{Host: h, t: t, body: body, answer: answer, err: err}
}

func (o *orgHost) Fetch(ctx context.Context, req connector.FetchRequest) (connector.FetchResponse, error) {
	if req.URL == base+"/ori_*/_search" && bytes.Equal(req.Body, o.body) {
		o.asked++
		if req.Method != "POST" || req.Service != ori.Service || req.CacheClass != connector.ClassList || req.Cost != 1 {
			o.t.Errorf("organisations request = %+v, want list_organizations' own", req)
		}
		return o.answer, o.err
	}
	return o.Host.Fetch(ctx, req)
}

func TestHumanName(t *testing.T) {
	for _, c := range []struct{ name, class, want string }{
		{"Soest", "municipality", "Gemeente Soest"},
		{"Den Helder", "municipality", "Gemeente Den Helder"},
		{"Gemeenteraad Soest", "municipality", "Gemeenteraad Soest"},
		{"Zuid-Holland", "province", "Provincie Zuid-Holland"},
		{"Provincie Zuid-Holland", "province", "Provincie Zuid-Holland"},
		{"Rivierenland", "water", "Waterschap Rivierenland"},
		{"Hoogheemraadschap van Delfland", "water", "Hoogheemraadschap van Delfland"},
		{"Wetterskip Fryslân", "water", "Wetterskip Fryslân"},
		{"Iets", "", "Iets"},
		{"Bergen (L)", "municipality", "Gemeente Bergen (Limburg)"},
		{"Bergen (NH)", "municipality", "Gemeente Bergen (Noord-Holland)"},
		{"Bergen op Zoom", "municipality", "Gemeente Bergen op Zoom"},
	} {
		if got := ori.HumanName(c.name, c.class); got != c.want {
			t.Errorf("HumanName(%q, %q) = %q, want %q", c.name, c.class, got, c.want)
		}
	}
}

// TestOrganizationNames: search and get_document name organisations as
// people do, from the list ori_list_organizations reads (one request,
// list_organizations' own, so the host's list cache serves it), and keep
// the key in extra.ori.organization_key. When the lookup fails, the key
// stays and a note says why.
func TestOrganizationNames(t *testing.T) {
	h := orgs(t, sdktest.NewHost(t).
		Handle(base+"/ori_soest_2*", 200, td+"ori-search-soest.json"))
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), h, "search", `{"query":"ijsbaan","organization":"soest"}`), &sr)
	if h.asked != 1 || len(sr.Results) == 0 {
		t.Fatalf("%d organisation lookups, %d results", h.asked, len(sr.Results))
	}
	for _, r := range sr.Results {
		if r.Organization != "Gemeente Soest" || r.Extra["ori"]["organization_key"] != "soest" {
			t.Errorf("%s: organization %q, key %v", r.ID, r.Organization, r.Extra["ori"]["organization_key"])
		}
	}
	for _, n := range sr.Notes {
		if strings.Contains(n, "Organisation names") {
			t.Errorf("a note on a lookup that worked: %q", n)
		}
	}

	failed := orgsAnswer(t, sdktest.NewHost(t).Handle(base+"/ori_soest_2*", 200, td+"ori-search-soest.json"),
		connector.FetchResponse{}, &connector.FetchError{Kind: connector.FetchUnavailable, Message: "dial tcp: lookup api.openraadsinformatie.nl: no such host"})
	sr = sdk.SearchResult{}
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), failed, "search", `{"query":"ijsbaan","organization":"soest"}`), &sr)
	if r := sr.Results[0]; r.Organization != "soest" || r.Extra["ori"]["organization_key"] != "soest" {
		t.Errorf("after a failed lookup: organization %q, key %v", r.Organization, r.Extra["ori"]["organization_key"])
	}
	if notes := strings.Join(sr.Notes, " "); !strings.Contains(notes, "Organisation names could not be looked up") || !strings.Contains(notes, "could not reach") {
		t.Errorf("notes = %q", sr.Notes)
	}

	// get_document: the head keeps the key; the name is looked up on
	// every call, so a failure is not kept with the text.
	docURL, err := ori.DocumentURL(base, "6074541", "")
	if err != nil {
		t.Fatal(err)
	}
	doc := sdktest.NewHost(t).Handle(docURL, 200, td+"ori-document.json")
	failed = orgsAnswer(t, doc, connector.FetchResponse{}, &connector.FetchError{Kind: connector.FetchUnavailable, Message: "connection refused"})
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), failed, "get_document", `{"id":"6074541"}`), &d)
	notes, _ := d.Extra["ori"]["notes"].([]any)
	if d.Organization != "rotterdam" || len(notes) != 1 || !strings.Contains(notes[0].(string), "Organisation names could not be looked up") {
		t.Errorf("after a failed lookup: organization %q, notes %v", d.Organization, notes)
	}
	d = sdk.Document{}
	rotterdam := orgsAnswer(t, doc, connector.FetchResponse{Status: 200, Body: []byte(`{"hits":{"hits":[` +
		`{"_index":"ori_rotterdam_20250629013104","_id":"6070001","_source":{"@type":"Organization","name":"Rotterdam","classification":"municipality"}}]}}`)}, nil)
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), rotterdam, "get_document", `{"id":"6074541"}`), &d)
	if d.Organization != "Gemeente Rotterdam" || d.Extra["ori"]["organization_key"] != "rotterdam" || d.Extra["ori"]["notes"] != nil {
		t.Errorf("organization %q, extra %v", d.Organization, d.Extra["ori"])
	}
}

package crosssearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/orgname"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// bergens are the two council platforms' lists with both municipalities
// named Bergen, as their list tools give them (ORI: "Bergen (L)" and
// "Bergen (NH)"; OBV: "Bergen" with Limburg's CBS code and "Bergen Nh"),
// beside a unique name.
func bergens(f *fakePlatforms) {
	f.tools["ori_list_organizations"] = list(
		sdk.Item{ID: "bergen", Title: "Bergen (L)", Type: "municipality"},
		sdk.Item{ID: "bergen_nh", Title: "Bergen (NH)", Type: "municipality"},
		sdk.Item{ID: "soest", Title: "Soest", Type: "municipality"})
	f.tools["obv_list_sources"] = list(
		sdk.Item{ID: "bergen", Title: "Bergen", Type: "gemeente", Extra: map[string]map[string]any{"obv": {"cbs_id": "GM0893"}}},
		sdk.Item{ID: "bergen_nh", Title: "Bergen Nh", Type: "gemeente", Extra: map[string]map[string]any{"obv": {"cbs_id": "GM0373"}}},
		sdk.Item{ID: "soest", Title: "Soest", Type: "gemeente"})
	f.tools["openarchivaris_list_governments"] = list(sdk.Item{ID: "g1", Title: "Gemeente Soest"})
}

func sectionOf(t *testing.T, res Result, id string) Section {
	t.Helper()
	for _, s := range res.Sections {
		if s.Platform == id {
			return s
		}
	}
	t.Fatalf("no section %s in %+v", id, res.Sections)
	return Section{}
}

// TestAmbiguousOrganizationIsNeverPicked: "Bergen" fits two municipalities
// on ORI and on OBV. Neither platform is searched; each section lists both
// with what to pass, and the platforms that have one answer to the name
// still answer. A name with its province, a key and a unique name go on
// as before.
func TestAmbiguousOrganizationIsNeverPicked(t *testing.T) {
	f := newFake()
	bergens(f)
	f.tools["openarchivaris_list_governments"] = list(sdk.Item{ID: "g1", Title: "Gemeente Bergen (NH)"})
	s := New(Options{Platforms: allPlatforms, Invoke: f.invoke})
	res := decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"woningbouw","organization":"Bergen"}`)))
	if st := statuses(res); st["ori"] != StatusSkipped || st["obv"] != StatusSkipped || st["obk"] != StatusOK || st["openarchivaris"] != StatusOK {
		t.Fatalf("statuses %v", st)
	}
	for _, c := range f.called() {
		if strings.HasPrefix(c, "ori_search") || strings.HasPrefix(c, "obv_search") {
			t.Errorf("searched an ambiguous platform: %s", c)
		}
	}
	for _, id := range []string{"ori", "obv"} {
		sec := sectionOf(t, res, id)
		want := []Candidate{
			{Label: "Gemeente Bergen (Limburg)", Key: "bergen", Pass: "Gemeente Bergen (Limburg)"},
			{Label: "Gemeente Bergen (Noord-Holland)", Key: "bergen_nh", Pass: "Gemeente Bergen (Noord-Holland)"},
		}
		if !slices.Equal(sec.Candidates, want) || sec.MoreCandidates != 0 {
			t.Errorf("%s candidates %+v", id, sec.Candidates)
		}
		for _, w := range []string{`organization "Bergen" matches 2 organisations on ` + s.title[id] + `: `,
			`Gemeente Bergen (Limburg) — pass organization="Gemeente Bergen (Limburg)" (key "bergen"); Gemeente Bergen (Noord-Holland) — pass organization="Gemeente Bergen (Noord-Holland)" (key "bergen_nh")`,
			"None was picked"} {
			if !strings.Contains(sec.Error, w) {
				t.Errorf("%s: %q lacks %q", id, sec.Error, w)
			}
		}
		if sec.Tool != "" || sec.Results != nil {
			t.Errorf("%s: searched: %+v", id, sec)
		}
	}
	// Each way of naming one of them picks it on both platforms.
	for given, key := range map[string]string{
		"Gemeente Bergen (Limburg)": "bergen", "Bergen (NH)": "bergen_nh", "Bergen, Limburg": "bergen",
		"bergen_nh": "bergen_nh", "Bergen (L.)": "bergen", "Gemeente Bergen Noord-Holland": "bergen_nh",
	} {
		f.calls = nil
		args, _ := json.Marshal(map[string]any{"query": "woningbouw", "organization": given, "platforms": []string{"ori", "obv"}})
		res := decode(t, s.Handle(context.Background(), nil, args))
		for _, id := range []string{"ori", "obv"} {
			sec := sectionOf(t, res, id)
			if sec.Status != StatusOK || sec.Arguments["organization"] != key {
				t.Errorf("%q on %s: %s %v (%s)", given, id, sec.Status, sec.Arguments, sec.Error)
			}
		}
	}
	// A key whose name fits another says so.
	res = decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"x","organization":"bergen","platforms":["ori"]}`)))
	if sec := sectionOf(t, res, "ori"); sec.Status != StatusOK || !strings.Contains(strings.Join(sec.Notes, " "), `the name also fits Gemeente Bergen (Noord-Holland) (key "bergen_nh")`) {
		t.Errorf("key with a namesake: %+v", sec)
	}
	// A unique start of a name is read with a note.
	res = decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"x","organization":"Soe","platforms":["ori"]}`)))
	if sec := sectionOf(t, res, "ori"); sec.Status != StatusOK || sec.Arguments["organization"] != "soest" || !strings.Contains(strings.Join(sec.Notes, " "), "is read as Gemeente Soest") {
		t.Errorf("a prefix: %+v", sec)
	}
}

// TestAmbiguousOnlyPlatformsIsAToolError: when every platform searched
// has the name twice, nothing answered, and the tool error gives each
// platform's candidates whole (not cut like other reasons).
func TestAmbiguousOnlyPlatformsIsAToolError(t *testing.T) {
	f := newFake()
	bergens(f)
	s := New(Options{Platforms: allPlatforms, Invoke: f.invoke})
	r := s.Handle(context.Background(), nil, json.RawMessage(`{"query":"woningbouw","organization":"Bergen","platforms":["ori","obv"]}`))
	text := resultText(r)
	if r.Err == nil {
		t.Fatalf("not an error: %s", text)
	}
	for _, id := range []string{"ori", "obv"} {
		if !strings.Contains(text, "("+id+") skipped: organization \"Bergen\" matches 2 organisations") || !strings.Contains(text, `pass organization="Gemeente Bergen (Noord-Holland)" (key "bergen_nh"). None was picked`) {
			t.Errorf("%s: %s", id, text)
		}
	}
}

// TestAmbiguousListIsBounded: a name that fits many organisations lists
// maxListed of them and counts the rest; labels alike are passed by key.
func TestAmbiguousListIsBounded(t *testing.T) {
	f := newFake()
	var items []sdk.Item
	for i := range 13 {
		items = append(items, sdk.Item{ID: fmt.Sprintf("dorp_%02d", i), Title: "Dorp", Type: "municipality"})
	}
	f.tools["ori_list_organizations"] = list(items...)
	s := New(Options{Platforms: allPlatforms, Invoke: f.invoke})
	res := decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"x","organization":"Dorp","platforms":["ori","tk"]}`)))
	sec := sectionOf(t, res, "ori")
	if len(sec.Candidates) != maxListed || sec.MoreCandidates != 5 || !strings.Contains(sec.Error, "; and 5 more (give a fuller name)") {
		t.Fatalf("%d candidates, %d more: %s", len(sec.Candidates), sec.MoreCandidates, sec.Error)
	}
	if c := sec.Candidates[0]; c.Pass != "dorp_00" || c.Label != "Gemeente Dorp" {
		t.Errorf("first candidate %+v", c)
	}
	if strings.Count(sec.Error, "pass organization=") != maxListed || len(sec.Error) > 1000 {
		t.Errorf("unbounded: %s", sec.Error)
	}
	long := strings.Repeat("Lang", 60)
	f.tools["ori_list_organizations"] = list(sdk.Item{ID: "a", Title: long}, sdk.Item{ID: "b", Title: long + " Oost"})
	res = decode(t, s.Handle(context.Background(), nil, json.RawMessage(`{"query":"x","organization":"`+long[:150]+`","platforms":["ori","tk"]}`)))
	if sec := sectionOf(t, res, "ori"); len(sec.Error) > 700 || len(sec.Candidates) != 2 {
		t.Errorf("long names: %d bytes: %s", len(sec.Error), sec.Error)
	}
}

// councilLists are the organisation lists of ORI and OBV that the
// matchers are compared on: the recorded ones in testdata/ori and
// testdata/obv, and the platform simulator's, each read by the
// connector's own list tool as the host reads it.
func councilLists(t *testing.T) map[string][]connector.Item {
	t.Helper()
	out := map[string][]connector.Item{}
	read := func(name string, p *sdk.Plugin, h connector.Host, tool, args string) {
		res, err := p.Call(context.Background(), connector.CallRequest{Tool: tool, Arguments: json.RawMessage(args)}, h)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", name, err, res.Text)
		}
		var l sdk.ListResult
		if err := json.Unmarshal([]byte(res.Text), &l); err != nil || len(l.Items) == 0 {
			t.Fatalf("%s: %v, %d items", name, err, len(l.Items))
		}
		out[name] = l.Items
	}
	root := wasmbuild.Root()
	body := func(f string) []byte {
		b, err := os.ReadFile(filepath.Join(root, "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, f := range []string{"ori-organizations.json", "ori-organizations-bergen.json"} {
		read("ori/"+f, ori.Plugin(), sdktest.NewHost(t).HandleBody("https://api.openraadsinformatie.nl/v1/elastic/ori_*/_search", 200, body("ori/"+f)), "list_organizations", `{}`)
	}
	for _, f := range []string{"obv-sources.json", "obv-sources-bergen.json"} {
		read("obv/"+f, obv.Plugin(), sdktest.NewHost(t).HandleBody("https://openbesluitvorming.nl/api/sources*", 200, body("obv/"+f)), "list_sources", `{"implemented_only":false}`)
	}
	sim, err := platformsim.New(platformsim.Options{DataDir: filepath.Join(root, "testdata"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	t.Cleanup(sim.Close)
	for _, c := range []struct {
		id, tool, args string
		p              *sdk.Plugin
	}{{"ori", "list_organizations", `{}`, ori.Plugin()}, {"obv", "list_sources", `{"implemented_only":false}`, obv.Plugin()}} {
		m, _ := c.p.Describe(context.Background())
		read(c.id+"/platformsim", c.p, simFetcher{from: m.BaseURL, to: platformsim.BaseURLs(srv.URL)[c.id]}, c.tool, c.args)
	}
	// And names the lists above lack: accents, an apostrophe, a province
	// beside its capital's municipality, a water board.
	out["obv/names"] = []connector.Item{
		{ID: "s-hertogenbosch", Title: "'s-Hertogenbosch", Type: "gemeente"}, {ID: "sudwest-fryslan", Title: "Súdwest-Fryslân", Type: "gemeente"},
		{ID: "utrecht", Title: "Utrecht", Type: "gemeente"}, {ID: "provincie-utrecht", Title: "Provincie Utrecht", Type: "provincie"},
		{ID: "limburg", Title: "Limburg", Type: "provincie"}, {ID: "ws-limburg", Title: "Waterschap Limburg", Type: "waterschap"},
		{ID: "den-helder", Title: "Den Helder", Type: "gemeente"}, {ID: "den-haag", Title: "Den Haag", Type: "gemeente"},
		{ID: "hof-van-twente", Title: "Hof van Twente", Type: "gemeente"}, {ID: "all_notubiz", Title: "Alle NotuBiz-bronnen", Type: "verzameling"},
	}
	return out
}

// simFetcher is a connector host that sends a connector's requests to the
// simulator instead of the platform.
type simFetcher struct{ from, to string }

func (h simFetcher) Fetch(ctx context.Context, req connector.FetchRequest) (connector.FetchResponse, error) {
	rest, ok := strings.CutPrefix(req.URL, h.from)
	if !ok {
		return connector.FetchResponse{}, &connector.FetchError{Kind: connector.FetchRefused, Message: "not the simulated platform: " + req.URL}
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	r, err := http.NewRequestWithContext(ctx, method, h.to+rest, bytes.NewReader(req.Body))
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
	b, err := io.ReadAll(resp.Body)
	return connector.FetchResponse{Status: resp.StatusCode, Body: b}, err
}

func (simFetcher) Log(context.Context, int, string) {}

// TestOrgMatchAgreesWithConnectors: the host reads a platform's list
// (orgsOf: key, name, kind, CBS code, abbreviation) so that the shared
// rules (sdk/orgname) find the same organisations, the same way, as over
// the lists as the council connectors read them (ori's and obv's readers),
// for every name, key and label of the real lists and the ways people
// write them (kind words, province qualifiers, starts and words of names,
// the shared names): besluitbron_search and <platform>_search read an
// organisation alike.
func TestOrgMatchAgreesWithConnectors(t *testing.T) {
	lists := councilLists(t)
	for name, items := range lists {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			id, _, _ := strings.Cut(name, "/")
			host, byKey := orgsOf(id, items)
			oriOrgs := make([]orgname.Org, len(items))
			obvOrgs := make([]orgname.Org, len(items))
			for i, it := range items {
				// As each connector reads its own list (ori's orgsOf, obv's
				// sourceOrgs).
				oriOrgs[i] = orgname.Org{Key: it.ID, Name: it.Title, Kind: orgname.OrgKind(it.Type)}
				cbs, _ := it.Extra[id]["cbs_id"].(string)
				obvOrgs[i] = orgname.Org{Key: it.ID, Name: it.Title, Kind: orgname.OrgKind(it.Type), CBS: cbs}
			}
			args := map[string]bool{"Bergen": true, "Bergen (NH)": true, "Bergen, Limburg": true, "Bergen Limburg": true, "Gemeente Bergen (L.)": true,
				"Utrecht": true, "Provincie Utrecht": true, "Groningen": true, "Limburg": true, "Den": true, "Nergenshuizen": true, "ab": true, "Hof": true}
			for _, it := range items {
				for _, a := range []string{it.ID, it.Title, "Gemeente " + it.Title, "Provincie " + it.Title, it.Title + ", Noord-Holland", it.Title + " (L)", strings.ToUpper(it.Title)} {
					args[a] = true
				}
				if ws := strings.Fields(it.Title); len(ws) > 0 {
					args[ws[0]] = true
					args[ws[len(ws)-1]] = true
					if len(ws[0]) > 4 {
						args[ws[0][:4]] = true
					}
				}
			}
			for _, o := range host {
				args[o.Label()] = true
			}
			n := 0
			for a := range args {
				h := orgname.MatchOrg(host, a)
				var hk []string
				for _, o := range h.Candidates {
					hk = append(hk, o.Key)
				}
				for cname, m := range map[string]struct {
					keys []string
					by   string
				}{"ori": keysOf(orgname.MatchOrg(oriOrgs, a)), "obv": keysOf(orgname.MatchOrg(obvOrgs, a))} {
					if !slices.Equal(hk, m.keys) || len(hk) > 0 && h.By != m.by {
						t.Errorf("%q: host %v by %s, %s's connector %v by %s", a, hk, h.By, cname, m.keys, m.by)
					}
				}
				for _, o := range h.Candidates {
					// The label a person reads is the connectors' too
					// (obv's reading, with the CBS code where the list has one).
					it := byKey[o.Key]
					want := orgname.Org{Key: o.Key, Name: it.Title, Kind: orgname.OrgKind(it.Type), CBS: cbsOf(id, it)}
					if o.Label() != want.Label() {
						t.Errorf("%q: label %q, the connectors' %q", a, o.Label(), want.Label())
					}
				}
				n++
			}
			t.Logf("%d organisations, %d arguments compared", len(items), n)
		})
	}
}

func cbsOf(id string, it connector.Item) string {
	s, _ := it.Extra[id]["cbs_id"].(string)
	return s
}

func keysOf(m orgname.OrgMatch) (out struct {
	keys []string
	by   string
}) {
	for _, o := range m.Candidates {
		out.keys = append(out.keys, o.Key)
	}
	out.by = m.By
	return out
}

// TestSectionsCarryCandidatesAsJSON: the candidates reach a client as
// structured content, each with its label, key and what to pass.
func TestSectionsCarryCandidatesAsJSON(t *testing.T) {
	f := newFake()
	bergens(f)
	s := New(Options{Platforms: allPlatforms, Invoke: f.invoke})
	r := s.Handle(context.Background(), &callinfo.Info{Session: "s"}, json.RawMessage(`{"query":"x","organization":"Bergen","platforms":["ori","tk"]}`))
	var raw struct {
		Platforms []map[string]any `json:"platforms"`
	}
	if err := json.Unmarshal(r.Result.Structured, &raw); err != nil {
		t.Fatal(err)
	}
	for _, p := range raw.Platforms {
		if p["platform"] == "ori" {
			c, _ := p["candidates"].([]any)
			if len(c) != 2 || c[1].(map[string]any)["key"] != "bergen_nh" || c[1].(map[string]any)["pass"] != "Gemeente Bergen (Noord-Holland)" {
				t.Errorf("candidates %v", p["candidates"])
			}
		}
	}
}

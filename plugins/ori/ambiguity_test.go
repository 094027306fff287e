package ori_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// bergens wraps h so the organisations request gets a list with both
// Bergens (ORI's "Bergen (NH)", index ori_bergen_nh_…, and "Bergen (L)",
// ori_bergen_…) and Bergen op Zoom.
func bergens(t testing.TB, h *sdktest.Host) *orgHost {
	t.Helper()
	b, err := os.ReadFile(td + "ori-organizations-bergen.json")
	if err != nil {
		t.Fatal(err)
	}
	return orgsAnswer(t, h, connector.FetchResponse{Status: 200, Body: b}, nil)
}

const bothBergens = `organization "Bergen" matches 2 organisations: Gemeente Bergen (Limburg) — pass organization="bergen"; Gemeente Bergen (Noord-Holland) — pass organization="bergen_nh"`

// TestSearchAmbiguousNameCannotAsk: "Bergen" is two municipalities; when
// no one can be asked, the tool error lists both with what to pass, and
// the platform is not searched.
func TestSearchAmbiguousNameCannotAsk(t *testing.T) {
	for _, c := range []struct {
		name string
		host func(*sdktest.Host) *sdktest.Host
		why  string
	}{
		{"not granted", func(h *sdktest.Host) *sdktest.Host { return h.NotGranted(connector.FeatureElicitation) }, "has not granted this connector elicitation"},
		{"client without elicitation", func(h *sdktest.Host) *sdktest.Host { return h }, "MCP client does not support elicitation"},
		{"no client", (*sdktest.Host).NoClient, "comes from no MCP client"},
		{"client failed", func(h *sdktest.Host) *sdktest.Host {
			return h.OnElicit(func(connector.ElicitRequest) (connector.ElicitResult, error) {
				return connector.ElicitResult{}, &connector.ClientError{Kind: connector.ClientFailed, Feature: connector.FeatureElicitation, Message: "the client went away"}
			})
		}, "the client went away"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := c.host(sdktest.NewHost(t))
			res := sdktest.Call(t, ori.Plugin(), bergens(t, h), "search", `{"query":"woningbouw","organization":"Bergen"}`)
			if !res.IsError || !strings.Contains(res.Text, bothBergens) || !strings.Contains(res.Text, c.why) {
				t.Errorf("got %+v\nwant a tool error with %s and %q", res, bothBergens, c.why)
			}
			if n := len(h.Requests()); n != 0 {
				t.Errorf("%d searches reached the platform, want none", n)
			}
		})
	}
}

// TestSearchAmbiguousNameAsked: the user is asked with a titled single
// select of both Bergens and the search runs in the chosen one only.
func TestSearchAmbiguousNameAsked(t *testing.T) {
	h := sdktest.NewHost(t).Handle(base+"/ori_bergen_2*/_search", 200, td+"ori-search-bergen.json").OnElicit(sdktest.Accept(`{"choice":"bergen"}`))
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), bergens(t, h), "search", `{"query":"woningbouw","organization":"Bergen"}`), &sr)
	asked := h.Elicitations()
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once", len(asked))
	}
	q := asked[0]
	if !strings.Contains(q.Message, `"Bergen"`) || !strings.Contains(q.Message, "Which one") {
		t.Errorf("question %q", q.Message)
	}
	var schema struct {
		Properties map[string]struct {
			Type  string       `json:"type"`
			OneOf []sdk.Choice `json:"oneOf"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(q.RequestedSchema, &schema); err != nil {
		t.Fatal(err)
	}
	var choices []sdk.Choice
	for _, p := range schema.Properties {
		choices = append(choices, p.OneOf...)
	}
	want := []sdk.Choice{{Value: "bergen", Title: "Gemeente Bergen (Limburg)"}, {Value: "bergen_nh", Title: "Gemeente Bergen (Noord-Holland)"}}
	if len(schema.Properties) != 1 || len(choices) != 2 || choices[0] != want[0] || choices[1] != want[1] {
		t.Errorf("form %s, want one single select of %v", q.RequestedSchema, want)
	}
	if urls := h.URLs(); len(urls) != 1 || urls[0] != base+"/ori_bergen_2*/_search" {
		t.Errorf("searched %v, want Bergen (L)'s index only", urls)
	}
	if len(sr.Results) != 1 || sr.Results[0].Extra["ori"]["organization_key"] != "bergen" || sr.Results[0].Organization != "Gemeente Bergen (Limburg)" {
		t.Errorf("results %+v", sr.Results)
	}
	if notes := strings.Join(sr.Notes, " "); !strings.Contains(notes, "the user chose Gemeente Bergen (Limburg)") {
		t.Errorf("notes %q", sr.Notes)
	}

	for name, answer := range map[string]sdktest.ElicitFunc{"decline": sdktest.Decline(), "cancel": sdktest.Cancel()} {
		h := sdktest.NewHost(t).OnElicit(answer)
		res := sdktest.Call(t, ori.Plugin(), bergens(t, h), "search", `{"query":"woningbouw","organization":"Bergen"}`)
		if !res.IsError || !strings.Contains(res.Text, bothBergens) || !strings.Contains(res.Text, "chose none") || len(h.Requests()) != 0 {
			t.Errorf("%s: %+v", name, res)
		}
	}
}

// TestSearchUnambiguousOrganization: a key, or a name with its province,
// is one organisation: nobody is asked.
func TestSearchUnambiguousOrganization(t *testing.T) {
	for _, c := range []struct{ org, index, note string }{
		{"bergen_nh", "ori_bergen_nh_2*", ""},
		{"Bergen (NH)", "ori_bergen_nh_2*", ""},
		{"Bergen, Noord-Holland", "ori_bergen_nh_2*", ""},
		{"Gemeente Bergen (L)", "ori_bergen_2*", ""},
		{"Bergen op Zoom", "ori_bergen_op_zoom_2*", ""},
		{"bergen", "ori_bergen_2*", `organization "bergen" is the key of Gemeente Bergen (Limburg); the name also fits Gemeente Bergen (Noord-Holland) — pass organization="bergen_nh".`},
		{"Helder", "ori_den_helder_2*", `organization "Helder" is read as Gemeente Den Helder (organization="den_helder")`},
		{"atlantis", "ori_atlantis_2*", ""}, // key-shaped: the platform says whether it has it
	} {
		t.Run(c.org, func(t *testing.T) {
			h := sdktest.NewHost(t).Handle(base+"/"+c.index+"/_search", 200, td+"ori-search-empty.json").OnElicit(sdktest.Cancel())
			args, _ := json.Marshal(map[string]string{"query": "woningbouw", "organization": c.org})
			var sr sdk.SearchResult
			sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), bergens(t, h), "search", string(args)), &sr)
			if asked := h.Elicitations(); len(asked) != 0 {
				t.Errorf("asked %v", asked)
			}
			if urls := h.URLs(); len(urls) != 1 || urls[0] != base+"/"+c.index+"/_search" {
				t.Errorf("searched %v, want %s", urls, c.index)
			}
			if notes := strings.Join(sr.Notes, " "); c.note != "" && !strings.Contains(notes, c.note) || c.note == "" && notes != "" {
				t.Errorf("notes %q, want %q", sr.Notes, c.note)
			}
		})
	}
	res := sdktest.Call(t, ori.Plugin(), bergens(t, sdktest.NewHost(t)), "search", `{"query":"x","organization":"Bergen aan Zee"}`)
	if !res.IsError || !strings.Contains(res.Text, `no organisation "Bergen aan Zee"`) || !strings.Contains(res.Text, "ori_list_organizations") {
		t.Errorf("an unknown name: %+v", res)
	}
}

// TestGetDocumentAmbiguousOrganization: get_document's organization only
// narrows where to look (the id decides), so a name of two organisations
// looks in both, without asking.
func TestGetDocumentAmbiguousOrganization(t *testing.T) {
	u := base + "/ori_bergen_2*,ori_bergen_nh_2*/_search?_source_excludes=text_pages&q=_id%3A6074541&size=2"
	h := sdktest.NewHost(t).Handle(u, 200, td+"ori-document.json").OnElicit(sdktest.Cancel())
	var d sdk.Document
	sdktest.Decode(t, sdktest.Call(t, ori.Plugin(), bergens(t, h), "get_document", `{"id":"6074541","organization":"Bergen"}`), &d)
	notes, _ := d.Extra["ori"]["notes"].([]any)
	if len(h.Elicitations()) != 0 || len(notes) != 1 || !strings.Contains(notes[0].(string), bothBergens) || !strings.Contains(notes[0].(string), "All of them were looked in") {
		t.Errorf("asked %d, notes %v", len(h.Elicitations()), notes)
	}
	res := sdktest.Call(t, ori.Plugin(), bergens(t, sdktest.NewHost(t)), "get_document", `{"id":"6074541","organization":"Nergens Anders"}`)
	if !res.IsError || !strings.Contains(res.Text, `no organisation "Nergens Anders"`) {
		t.Errorf("unknown name: %+v", res)
	}
}

// TestOrganizationNameWithoutList: when the list cannot be read, a key
// still works as before and a name says why it cannot be looked up.
func TestOrganizationNameWithoutList(t *testing.T) {
	down := &connector.FetchError{Kind: connector.FetchUnavailable, Message: "connection refused"}
	res := sdktest.Call(t, ori.Plugin(), orgsAnswer(t, sdktest.NewHost(t), connector.FetchResponse{}, down), "search", `{"query":"x","organization":"Bergen"}`)
	if !res.IsError || !strings.Contains(res.Text, `"Bergen" is not a key`) || !strings.Contains(res.Text, "could not be read") {
		t.Errorf("got %+v", res)
	}
}

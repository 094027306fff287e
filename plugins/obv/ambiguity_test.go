package obv_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// bergenSources is a host with the source list holding both Bergens, in
// the platform's own shape (/api/sources: key, sourceRef, label; OBV
// calls Bergen in Limburg plain "Bergen" and the other "Bergen Nh").
func bergenSources(t *testing.T) *sdktest.Host {
	return sdktest.NewHost(t).Handle(base+"/api/sources", 200, "../../testdata/obv/obv-sources-bergen.json")
}

const bothBergens = `organization "Bergen" matches 2 organisations: Gemeente Bergen (Limburg) — pass organization="bergen"; Gemeente Bergen (Noord-Holland) — pass organization="bergen_nh"`

func searches(h *sdktest.Host) []string {
	var out []string
	for _, u := range h.URLs() {
		if strings.HasPrefix(u, base+"/api/search?") {
			out = append(out, u)
		}
	}
	return out
}

// TestSearchAmbiguousName: "Bergen" is never searched as the first match:
// without anyone to ask the error lists both with their keys; asked, the
// user's choice is searched.
func TestSearchAmbiguousName(t *testing.T) {
	for _, c := range []struct {
		name string
		host func(*sdktest.Host) *sdktest.Host
		why  string
	}{
		{"not granted", func(h *sdktest.Host) *sdktest.Host { return h.NotGranted(connector.FeatureElicitation) }, "has not granted this connector elicitation"},
		{"client without elicitation", func(h *sdktest.Host) *sdktest.Host { return h }, "does not support elicitation"},
		{"no client", (*sdktest.Host).NoClient, "comes from no MCP client"},
		{"declined", func(h *sdktest.Host) *sdktest.Host { return h.OnElicit(sdktest.Decline()) }, "chose none"},
		{"cancelled", func(h *sdktest.Host) *sdktest.Host { return h.OnElicit(sdktest.Cancel()) }, "chose none"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := c.host(bergenSources(t))
			res := sdktest.Call(t, obv.Plugin(), h, "search", `{"query":"woningbouw","organization":"Bergen"}`)
			if !res.IsError || !strings.Contains(res.Text, bothBergens) || !strings.Contains(res.Text, c.why) {
				t.Errorf("got %+v\nwant a tool error with %s and %q", res, bothBergens, c.why)
			}
			if s := searches(h); len(s) != 0 {
				t.Errorf("searched %v", s)
			}
		})
	}

	h := bergenSources(t).Handle(base+"/api/search?*", 200, "../../testdata/obv/obv-search-bergen.json").OnElicit(sdktest.Accept(`{"choice":"bergen"}`))
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "search", `{"query":"woningbouw","organization":"Bergen"}`), &sr)
	asked := h.Elicitations()
	if len(asked) != 1 || !strings.Contains(asked[0].Message, `"Bergen"`) || !strings.Contains(asked[0].Message, "OpenBesluitvorming") {
		t.Fatalf("asked %+v", asked)
	}
	var schema struct {
		Properties map[string]struct {
			OneOf []sdk.Choice `json:"oneOf"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(asked[0].RequestedSchema, &schema); err != nil {
		t.Fatal(err)
	}
	want := []sdk.Choice{{Value: "bergen", Title: "Gemeente Bergen (Limburg)"}, {Value: "bergen_nh", Title: "Gemeente Bergen (Noord-Holland)"}}
	for _, p := range schema.Properties {
		if len(schema.Properties) != 1 || len(p.OneOf) != 2 || p.OneOf[0] != want[0] || p.OneOf[1] != want[1] {
			t.Errorf("form %s, want one single select of %v", asked[0].RequestedSchema, want)
		}
	}
	if s := searches(h); len(s) != 1 || s[0] != base+"/api/search?limit=24&organization=bergen&query=woningbouw" {
		t.Errorf("searched %v, want Bergen (Limburg) only", s)
	}
	if len(sr.Results) != 1 || sr.Results[0].Organization != "Gemeente Bergen (Limburg)" || !strings.Contains(strings.Join(sr.Notes, " "), "the user chose Gemeente Bergen (Limburg)") {
		t.Errorf("result %+v", sr)
	}
}

// TestSearchOrganizationNames: keys and names that fit one source are
// searched at once; nobody is asked.
func TestSearchOrganizationNames(t *testing.T) {
	for _, c := range []struct{ org, key, note string }{
		{"bergen_nh", "bergen_nh", ""},
		{"Bergen (NH)", "bergen_nh", ""},
		{"Bergen Nh", "bergen_nh", ""},
		{"Bergen, Limburg", "bergen", ""},
		{"Bergen op Zoom", "bergen_op_zoom", ""},
		{"Gemeente Soest", "soest", ""},
		{"Provincie Groningen", "provincie_groningen", ""},
		{"Haaren", "haaren", ""}, // not imported any more, but searchable
		{"bergen", "bergen", `organization "bergen" is the key of Gemeente Bergen (Limburg); the name also fits Gemeente Bergen (Noord-Holland) — pass organization="bergen_nh".`},
		{"Soes", "soest", `organization "Soes" is read as Gemeente Soest (organization="soest")`},
		{"nergens", "nergens", ""}, // key-shaped: the platform says whether it knows it
	} {
		t.Run(c.org, func(t *testing.T) {
			h := bergenSources(t).Handle(base+"/api/search?*", 200, "../../testdata/obv/obv-search-bergen.json").OnElicit(sdktest.Cancel())
			args, _ := json.Marshal(map[string]string{"organization": c.org})
			var sr sdk.SearchResult
			sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "search", string(args)), &sr)
			if len(h.Elicitations()) != 0 {
				t.Errorf("asked %v", h.Elicitations())
			}
			if s := searches(h); len(s) != 1 || s[0] != base+"/api/search?limit=24&organization="+c.key {
				t.Errorf("searched %v, want organization=%s", s, c.key)
			}
			if notes := strings.Join(sr.Notes, " "); c.note != "" && !strings.Contains(notes, c.note) || c.note == "" && strings.Contains(notes, "organization") {
				t.Errorf("notes %q, want %q", sr.Notes, c.note)
			}
		})
	}
	h := bergenSources(t)
	res := sdktest.Call(t, obv.Plugin(), h, "search", `{"organization":"Bergen aan Zee"}`)
	if !res.IsError || !strings.Contains(res.Text, `no organisation "Bergen aan Zee" on OpenBesluitvorming`) || !strings.Contains(res.Text, "obv_list_sources") || len(searches(h)) != 0 {
		t.Errorf("an unknown name: %+v", res)
	}
	down := sdktest.NewHost(t).HandleErr(base+"/api/sources", &connector.FetchError{Kind: connector.FetchUnavailable, Message: "connection refused"})
	res = sdktest.Call(t, obv.Plugin(), down, "search", `{"organization":"Bergen"}`)
	if !res.IsError || !strings.Contains(res.Text, `"Bergen" is not a source key`) || !strings.Contains(res.Text, "connection refused") {
		t.Errorf("a name without the list: %+v", res)
	}
	down.Handle(base+"/api/search?*", 200, "../../testdata/obv/obv-search-bergen.json")
	var sr sdk.SearchResult
	sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), down, "search", `{"organization":"bergen"}`), &sr)
	if !strings.Contains(strings.Join(sr.Notes, " "), "could not be read to check") {
		t.Errorf("a key without the list: notes %q", sr.Notes)
	}
	res = sdktest.Call(t, obv.Plugin(), bergenSources(t), "search", `{"organization":"Bergen","limit":500}`)
	if !res.IsError || !strings.Contains(res.Text, `"limit"`) {
		t.Errorf("a bad argument is refused before the name is looked up: %+v", res)
	}
}

// TestStatusAmbiguousSource: status lists every source a name fits, with
// a note, instead of the first.
func TestStatusAmbiguousSource(t *testing.T) {
	status := []byte(`{"generatedAt":"2026-06-30T08:00:00.000Z","windowHours":36,"indexActivityAvailable":true,"suppliers":[],"sources":[
		{"sourceKey":"bergen","label":"Bergen","supplier":"notubiz","organizationType":"gemeente","state":"ok","lastSuccessAt":"2026-06-30T02:00:00.000Z"},
		{"sourceKey":"bergen_nh","label":"Bergen Nh","supplier":"gemeenteoplossingen","organizationType":"gemeente","state":"stale","lastSuccessAt":"2026-06-20T02:00:00.000Z"},
		{"sourceKey":"bergen_op_zoom","label":"Bergen Op Zoom","supplier":"ibabs","organizationType":"gemeente","state":"ok"}]}`)
	for _, c := range []struct {
		source string
		want   []string
		note   string
	}{
		{"Bergen", []string{"bergen_nh", "bergen"}, `source "Bergen" matches 2 sources, so all are listed: Gemeente Bergen (Limburg) — pass source="bergen"; Gemeente Bergen (Noord-Holland) — pass source="bergen_nh".`},
		{"bergen", []string{"bergen"}, ""},
		{"Bergen (NH)", []string{"bergen_nh"}, ""},
		{"Bergen op Zoom", []string{"bergen_op_zoom"}, ""},
	} {
		h := sdktest.NewHost(t).HandleBody(base+"/api/status", 200, status)
		args, _ := json.Marshal(map[string]string{"source": c.source})
		var sr obv.StatusResult
		sdktest.Decode(t, sdktest.Call(t, obv.Plugin(), h, "status", string(args)), &sr)
		var keys []string
		for _, s := range sr.Sources {
			keys = append(keys, s.Key)
		}
		if strings.Join(keys, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: sources %v, want %v", c.source, keys, c.want)
		}
		if notes := strings.Join(sr.Notes, " "); c.note != "" && !strings.Contains(notes, c.note) || c.note == "" && strings.Contains(notes, "matches") {
			t.Errorf("%s: notes %q, want %q", c.source, sr.Notes, c.note)
		}
	}
}

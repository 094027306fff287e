package platformsim

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// choosingHost is a simHost whose MCP client answers every elicitation by
// choosing choice.
type choosingHost struct {
	*simHost
	choice string
	asked  int
}

func (h *choosingHost) Elicit(context.Context, connector.ElicitRequest) (connector.ElicitResult, error) {
	h.asked++
	b, _ := json.Marshal(map[string]string{"choice": h.choice})
	return connector.ElicitResult{Action: connector.ElicitAccept, Content: b}, nil
}

func (h *choosingHost) CreateMessage(context.Context, connector.SampleRequest) (connector.SampleResult, error) {
	return connector.SampleResult{}, connector.NotGranted(connector.FeatureSampling, "sim")
}

func (h *choosingHost) ListRoots(context.Context) (connector.RootsResult, error) {
	return connector.RootsResult{}, connector.NotGranted(connector.FeatureRoots, "sim")
}

// TestAmbiguousOrganizations: both council platforms serve two
// municipalities named Bergen in their own formats (ORI: indexes
// ori_bergen_… and ori_bergen_nh_… with Organization records "Bergen (L)"
// and "Bergen (NH)"; OBV: sources "bergen" labelled "Bergen" and
// "bergen_nh" labelled "Bergen Nh", with sourceRef), each with documents,
// so the demo shows the connectors asking which one, or listing both.
func TestAmbiguousOrganizations(t *testing.T) {
	_, root, _ := start(t, nil)
	for _, c := range []struct{ platform, limburg, noordHolland string }{
		{"ori", "bergen", "bergen_nh"},
		{"obv", "bergen", "bergen_nh"},
	} {
		t.Run(c.platform, func(t *testing.T) {
			res := callTool(t, root, c.platform, "search", map[string]any{"query": "woningbouw", "organization": "Bergen"})
			want := `organization "Bergen" matches 2 organisations: Gemeente Bergen (Limburg) — pass organization="` + c.limburg + `"; Gemeente Bergen (Noord-Holland) — pass organization="` + c.noordHolland + `"`
			if !res.IsError || !strings.Contains(res.Text, want) {
				t.Errorf("without a client: %+v\nwant a tool error with %s", res, want)
			}

			p := longPlugins[c.platform]()
			m, _ := p.Describe(context.Background())
			for key, place := range map[string]string{c.limburg: "Limburg", c.noordHolland: "Noord-Holland"} {
				h := &choosingHost{simHost: newSimHost(root, c.platform, m.BaseURL), choice: key}
				res, err := p.Call(context.Background(), connector.CallRequest{Tool: "search", Arguments: json.RawMessage(`{"query":"woningbouw","organization":"Bergen"}`)}, h)
				if err != nil {
					t.Fatal(err)
				}
				var sr sdk.SearchResult
				if err := json.Unmarshal([]byte(res.Text), &sr); err != nil || res.IsError {
					t.Fatalf("choosing %s: %s", key, res.Text)
				}
				if h.asked != 1 || len(sr.Results) == 0 {
					t.Fatalf("choosing %s: asked %d, %d results", key, h.asked, len(sr.Results))
				}
				for _, r := range sr.Results {
					// ORI names the index's key; OBV's entity ids carry the source key.
					if ok := r.Extra["ori"]["organization_key"] == key || strings.Split(r.ID, ":")[min(3, len(strings.Split(r.ID, ":"))-1)] == key; !ok {
						t.Errorf("choosing %s (%s): result %s of %s", key, place, r.ID, r.Organization)
					}
				}
				doc := callTool(t, root, c.platform, "get_document", docArgs(c.platform, sr.Results[0].ID))
				if doc.IsError || !strings.Contains(doc.Text, place) {
					t.Errorf("choosing %s: its document does not say %s: %.300s", key, place, doc.Text)
				}
			}
		})
	}
}

func docArgs(platform, id string) map[string]any {
	if platform == "obv" {
		return map[string]any{"entity_id": id}
	}
	return map[string]any{"id": id}
}

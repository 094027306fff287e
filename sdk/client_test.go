package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// bare is a host that is no client at all (connector.Host only).
type bare struct{}

func (bare) Fetch(context.Context, connector.FetchRequest) (connector.FetchResponse, error) {
	return connector.FetchResponse{}, errors.New("no")
}
func (bare) Log(context.Context, int, string) {}

func TestChoose(t *testing.T) {
	ctx := context.Background()
	choices := []sdk.Choice{{Value: "a", Title: "Alpha"}, {Value: "b", Title: "Beta"}}
	h := sdktest.NewHost(t).OnElicit(sdktest.Accept(`{"choice":"b"}`))
	v, ok, err := sdk.Choose(ctx, h, "Which one?", choices)
	if err != nil || !ok || v != "b" {
		t.Fatalf("Choose = %q %v %v", v, ok, err)
	}
	asked := h.Elicitations()
	if len(asked) != 1 || asked[0].Message != "Which one?" {
		t.Fatalf("asked %+v", asked)
	}
	// The form is a titled single select (SEP-1330), the choices in order.
	var schema struct {
		Type       string `json:"type"`
		Properties struct {
			Choice struct {
				Type  string       `json:"type"`
				OneOf []sdk.Choice `json:"oneOf"`
			} `json:"choice"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(asked[0].RequestedSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || schema.Properties.Choice.Type != "string" || len(schema.Properties.Choice.OneOf) != 2 ||
		schema.Properties.Choice.OneOf[1] != choices[1] || len(schema.Required) != 1 {
		t.Errorf("schema %s", asked[0].RequestedSchema)
	}

	// Declining and cancelling are answers, not errors.
	for _, f := range []sdktest.ElicitFunc{sdktest.Decline(), sdktest.Cancel()} {
		v, ok, err := sdk.Choose(ctx, sdktest.NewHost(t).OnElicit(f), "Which one?", choices)
		if err != nil || ok || v != "" {
			t.Errorf("declined: %q %v %v", v, ok, err)
		}
	}
	// An answer that is none of the choices is an error.
	if _, _, err := sdk.Choose(ctx, sdktest.NewHost(t).OnElicit(sdktest.Accept(`{"choice":"z"}`)), "Which?", choices); err == nil {
		t.Error("an answer outside the choices was taken")
	}
	if _, _, err := sdk.Choose(ctx, h, "Which?", nil); err == nil {
		t.Error("no choices was accepted")
	}
}

func TestClientFeatureErrors(t *testing.T) {
	ctx := context.Background()
	req := connector.ElicitRequest{Message: "Sure?"}
	cases := []struct {
		name string
		h    connector.Host
		want error
		says string
	}{
		{"not granted", sdktest.NewHost(t).OnElicit(sdktest.Accept(`{}`)).NotGranted(connector.FeatureElicitation), sdk.ErrNotGranted, "grant"},
		{"client lacks it", sdktest.NewHost(t), sdk.ErrClientUnsupported, "did not declare"},
		{"no client", sdktest.NewHost(t).OnElicit(sdktest.Accept(`{}`)).NoClient(), sdk.ErrNoClient, "no client to ask"},
		{"host without clients", bare{}, sdk.ErrNoClient, "no client to ask"},
	}
	for _, c := range cases {
		_, err := sdk.Elicit(ctx, c.h, req)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want %v saying %q", c.name, err, c.want, c.says)
		}
		for _, other := range []error{sdk.ErrNotGranted, sdk.ErrClientUnsupported, sdk.ErrNoClient} {
			if other != c.want && errors.Is(err, other) {
				t.Errorf("%s: %v also matches %v", c.name, err, other)
			}
		}
	}
	if _, err := sdk.SampleText(ctx, bare{}, "hi", 10); !errors.Is(err, sdk.ErrNoClient) {
		t.Errorf("sample on a bare host: %v", err)
	}
	if _, err := sdk.Roots(ctx, bare{}); !errors.Is(err, sdk.ErrNoClient) {
		t.Errorf("roots on a bare host: %v", err)
	}
}

func TestClientFeatureRequestsChecked(t *testing.T) {
	ctx := context.Background()
	h := sdktest.NewHost(t).OnElicit(sdktest.Accept(`{}`)).OnSample(sdktest.SampleReply("m", "hello"))
	bad := []connector.ElicitRequest{
		{Message: ""},
		{Message: strings.Repeat("x", connector.MaxElicitMessage+1)},
		{Message: "m", RequestedSchema: json.RawMessage(`[1]`)},
		{Message: "m", RequestedSchema: json.RawMessage(`{"type":"string"}`)},
		// Keys: the host's own prefix, a character outside the set, too long.
		{Message: "m", Key: "besluitbron-elicitation-1"},
		{Message: "m", Key: "user name"},
		{Message: "m", Key: strings.Repeat("k", connector.MaxInputKey+1)},
	}
	for _, r := range bad {
		if _, err := sdk.Elicit(ctx, h, r); err == nil {
			t.Errorf("elicitation %+v was sent", r)
		}
	}
	if n := len(h.Elicitations()); n != 0 {
		t.Errorf("%d malformed elicitations reached the client", n)
	}
	if _, err := sdk.Elicit(ctx, h, connector.ElicitRequest{Message: "m", Key: "user_name"}); err != nil {
		t.Errorf("an elicitation with a good key was refused: %v", err)
	}
	if _, err := sdk.Sample(ctx, h, connector.SampleRequest{MaxTokens: 10}); err == nil {
		t.Error("a sampling request without messages was sent")
	}
	text, err := sdk.SampleText(ctx, h, "Say hello", 100)
	if err != nil || text != "hello" {
		t.Errorf("SampleText = %q, %v", text, err)
	}
	if s := h.Samples(); len(s) != 1 || s[0].MaxTokens != 100 || s[0].Messages[0].Content.Text != "Say hello" {
		t.Errorf("samples %+v", s)
	}
	roots, err := sdk.Roots(ctx, sdktest.NewHost(t).OnRoots(connector.Root{URI: "file:///tmp", Name: "tmp"}))
	if err != nil || len(roots) != 1 || roots[0].URI != "file:///tmp" {
		t.Errorf("roots %v %v", roots, err)
	}
}

func TestManifestClientFeatures(t *testing.T) {
	m := connector.Manifest{ID: "x", Version: "1", Title: "X", Services: []connector.Service{{Name: "api"}},
		Tools:          []connector.Tool{{Name: "t", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		ClientFeatures: []string{"elicitation", "sampling", "roots"}}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	m.ClientFeatures = []string{"elicitation", "telepathy", "elicitation"}
	err := m.Validate()
	if err == nil || !strings.Contains(err.Error(), `client_features[1] "telepathy": want one of elicitation, sampling, roots`) ||
		!strings.Contains(err.Error(), `client_features[2] "elicitation": declared twice`) {
		t.Errorf("bad features: %v", err)
	}
	// A tool may require only features the manifest asks for.
	m.ClientFeatures = []string{"elicitation"}
	m.Tools[0].RequiresClient = []string{"sampling"}
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), `tools[0].requires_client[0] "sampling": not among client_features`) {
		t.Errorf("a required feature the manifest does not ask for: %v", err)
	}
	m.Tools[0].RequiresClient = []string{"elicitation"}
	if err := m.Validate(); err != nil {
		t.Errorf("a required feature the manifest asks for: %v", err)
	}
	// A tool's task support is one of two words.
	m.Tools[0].Task = "sometimes"
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), `tools[0].task "sometimes"`) {
		t.Errorf("an unknown task value: %v", err)
	}
	m.Tools[0].Task = connector.TaskRequired
	if err := m.Validate(); err != nil {
		t.Errorf("task required: %v", err)
	}
	// A prompt may ask a checked form, and only with elicitation asked for.
	m.Prompts = []connector.Prompt{{Name: "p", Template: "{{context}}", Ask: &connector.ElicitRequest{Message: "Context?", Key: "user_context"}}}
	if err := m.Validate(); err != nil {
		t.Errorf("a prompt asking a form: %v", err)
	}
	m.Prompts[0].Ask.Key = "besluitbron-x"
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "prompts[0].ask: elicitation: key") {
		t.Errorf("a prompt asking under the host's prefix: %v", err)
	}
	m.Prompts[0].Ask.Key, m.ClientFeatures, m.Tools[0].RequiresClient = "", nil, nil
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "prompts[0].ask: the manifest does not ask for elicitation") {
		t.Errorf("a prompt asking without elicitation: %v", err)
	}
}

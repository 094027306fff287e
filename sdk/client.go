package sdk

// Client features: asking the user (elicitation), the client's model
// (sampling) or the client's roots during a tool call.
//
// A connector that wants one declares it in its manifest and is granted it
// by the admin; the host then forwards the request to the MCP client of
// the call, if that client declared the capability. Every other case is an
// error the connector can test with errors.Is, and should answer with a
// fallback (a tool error listing the choices, say): nothing granted is
// the default for every connector.
//
//	Manifest: connector.Manifest{
//		// ...
//		ClientFeatures: []string{connector.FeatureElicitation},
//	}
//
//	# plugins.toml
//	[connectors.ori]
//	grant = ["elicitation"]
//
//	func search(ctx context.Context, h connector.Host, args json.RawMessage) (any, error) {
//		// ... "Bergen" matched two municipalities:
//		choice, ok, err := sdk.Choose(ctx, h, "Which Bergen do you mean?", []sdk.Choice{
//			{Value: "bergen_nh", Title: "Bergen (Noord-Holland)"},
//			{Value: "bergen_l", Title: "Bergen (Limburg)"},
//		})
//		switch {
//		case err != nil: // not granted, client lacks elicitation, no client: say the choices
//			return nil, fmt.Errorf("organization %q is ambiguous: %s", name, "bergen_nh, bergen_l")
//		case !ok: // the user declined or cancelled: a normal outcome
//			return nil, fmt.Errorf("organization %q is ambiguous and no choice was made", name)
//		}
//		// ... search choice
//	}
//
// or, with a form of its own (the schema travels to the client as
// written):
//
//	res, err := sdk.Elicit(ctx, h, connector.ElicitRequest{
//		Message:         "Narrow the search?",
//		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"year":{"type":"integer","default":2024}}}`),
//	})
//	if err == nil && res.Accepted() {
//		var form struct{ Year int `json:"year"` }
//		err = res.Decode(&form)
//	}
//
// errors.Is(err, sdk.ErrNotGranted): the admin did not grant the feature
// (the message names the key to add); errors.Is(err,
// sdk.ErrClientUnsupported): the MCP client did not declare the
// capability; errors.Is(err, sdk.ErrNoClient): the call does not come
// from an MCP client (the search page, the Laadstatus). A user who
// declines or cancels is not an error but res.Action.
//
// The host waits for a person at most a few minutes (five by default), and
// that wait does not count against the call's own deadline.

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Errors of the client features; see [connector.ClientError].
var (
	ErrNotGranted        = connector.ErrNotGranted
	ErrClientUnsupported = connector.ErrClientUnsupported
	ErrNoClient          = connector.ErrNoClient
)

// Elicit asks the user through the MCP client (elicitation/create) and
// returns what they did. The request is checked first; a host that cannot
// reach a client answers an error matching [ErrNoClient].
func Elicit(ctx context.Context, h connector.Host, req connector.ElicitRequest) (connector.ElicitResult, error) {
	if err := req.Validate(); err != nil {
		return connector.ElicitResult{}, &connector.ClientError{Kind: connector.ClientRefused, Feature: connector.FeatureElicitation, Message: err.Error()}
	}
	c, ok := h.(connector.Client)
	if !ok {
		return connector.ElicitResult{}, connector.NoClient(connector.FeatureElicitation)
	}
	return c.Elicit(ctx, req)
}

// Sample asks the MCP client's model for one message
// (sampling/createMessage).
func Sample(ctx context.Context, h connector.Host, req connector.SampleRequest) (connector.SampleResult, error) {
	if err := req.Validate(); err != nil {
		return connector.SampleResult{}, &connector.ClientError{Kind: connector.ClientRefused, Feature: connector.FeatureSampling, Message: err.Error()}
	}
	c, ok := h.(connector.Client)
	if !ok {
		return connector.SampleResult{}, connector.NoClient(connector.FeatureSampling)
	}
	return c.CreateMessage(ctx, req)
}

// SampleText is [Sample] with one user message of text and the answer's
// text ("" when the model answered something else).
func SampleText(ctx context.Context, h connector.Host, prompt string, maxTokens int) (string, error) {
	res, err := Sample(ctx, h, connector.SampleRequest{
		Messages:  []connector.SamplingMessage{{Role: "user", Content: connector.Content{Type: connector.ContentText, Text: prompt}}},
		MaxTokens: maxTokens,
	})
	if err != nil {
		return "", err
	}
	return res.Content.Text, nil
}

// Roots returns the MCP client's roots (roots/list).
func Roots(ctx context.Context, h connector.Host) ([]connector.Root, error) {
	c, ok := h.(connector.Client)
	if !ok {
		return nil, connector.NoClient(connector.FeatureRoots)
	}
	res, err := c.ListRoots(ctx)
	if err != nil {
		return nil, err
	}
	return res.Roots, nil
}

// Choice is one option of [Choose]: the value the connector gets back and
// the title the user reads.
type Choice struct {
	Value string `json:"const"`
	Title string `json:"title"`
}

// MaxChoices is the most options [Choose] offers.
const MaxChoices = 100

// Choose asks the user to pick one of choices (an elicitation whose form
// is one titled single select, SEP-1330's oneOf of const and title) and
// returns the picked value. ok is false when the user declined or
// cancelled; err is set when no one could be asked (see [Elicit]).
func Choose(ctx context.Context, h connector.Host, message string, choices []Choice) (value string, ok bool, err error) {
	if len(choices) == 0 || len(choices) > MaxChoices {
		return "", false, &connector.ClientError{Kind: connector.ClientRefused, Feature: connector.FeatureElicitation,
			Message: fmt.Sprintf("elicitation: %d choices: want 1 to %d", len(choices), MaxChoices)}
	}
	schema, err := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"choice": map[string]any{"type": "string", "title": "Choice", "oneOf": choices},
		},
		"required": []string{"choice"},
	})
	if err != nil {
		return "", false, err
	}
	res, err := Elicit(ctx, h, connector.ElicitRequest{Message: message, RequestedSchema: schema})
	if err != nil {
		return "", false, err
	}
	if !res.Accepted() {
		return "", false, nil
	}
	var form struct {
		Choice string `json:"choice"`
	}
	if err := res.Decode(&form); err != nil {
		return "", false, &connector.ClientError{Kind: connector.ClientFailed, Feature: connector.FeatureElicitation, Message: err.Error()}
	}
	for _, c := range choices {
		if c.Value == form.Choice {
			return c.Value, true, nil
		}
	}
	return "", false, &connector.ClientError{Kind: connector.ClientFailed, Feature: connector.FeatureElicitation,
		Message: fmt.Sprintf("elicitation: the client answered %q, which is none of the choices", clip(form.Choice, 100))}
}

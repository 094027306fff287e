package sdktest

import (
	"context"
	"encoding/json"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// The fake host is also the MCP client of the call (connector.Client), so
// a connector's tests script what the user, the client's model and its
// roots answer:
//
//	h := sdktest.NewHost(t).OnElicit(sdktest.Accept(`{"choice":"bergen_nh"}`))
//	res := sdktest.Call(t, p, h, "search", `{"organization":"Bergen"}`)
//	asked := h.Elicitations() // what the connector asked
//
// A feature without a script answers as a client that did not declare it
// (errors.Is(err, connector.ErrClientUnsupported)); [Host.NotGranted] and
// [Host.NoClient] make it answer as the host does when the admin did not
// grant the feature, or when the call comes from no MCP client.

// ElicitFunc answers one elicitation.
type ElicitFunc func(connector.ElicitRequest) (connector.ElicitResult, error)

// Accept answers every elicitation with the user accepting content (a
// JSON object).
func Accept(content string) ElicitFunc {
	return func(connector.ElicitRequest) (connector.ElicitResult, error) {
		return connector.ElicitResult{Action: connector.ElicitAccept, Content: json.RawMessage(content)}, nil
	}
}

// Decline answers every elicitation with the user declining.
func Decline() ElicitFunc {
	return func(connector.ElicitRequest) (connector.ElicitResult, error) {
		return connector.ElicitResult{Action: connector.ElicitDecline}, nil
	}
}

// Cancel answers every elicitation with the user dismissing the form.
func Cancel() ElicitFunc {
	return func(connector.ElicitRequest) (connector.ElicitResult, error) {
		return connector.ElicitResult{Action: connector.ElicitCancel}, nil
	}
}

// OnElicit makes the host answer elicitations with f, as a client that
// declared elicitation.
func (h *Host) OnElicit(f ElicitFunc) *Host {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.onElicit = f
	return h
}

// OnSample makes the host answer sampling requests with f, as a client
// that declared sampling.
func (h *Host) OnSample(f func(connector.SampleRequest) (connector.SampleResult, error)) *Host {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.onSample = f
	return h
}

// SampleReply answers every sampling request with text from model.
func SampleReply(model, text string) func(connector.SampleRequest) (connector.SampleResult, error) {
	return func(connector.SampleRequest) (connector.SampleResult, error) {
		return connector.SampleResult{
			SamplingMessage: connector.SamplingMessage{Role: "assistant", Content: connector.Content{Type: connector.ContentText, Text: text}},
			Model:           model, StopReason: "endTurn",
		}, nil
	}
}

// OnRoots makes the host answer roots/list with roots, as a client that
// declared roots.
func (h *Host) OnRoots(roots ...connector.Root) *Host {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.roots = append([]connector.Root{}, roots...)
	h.hasRoots = true
	return h
}

// NotGranted makes the host refuse features as the BesluitBron host does
// when the admin did not grant them to the connector.
func (h *Host) NotGranted(features ...string) *Host {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.denied == nil {
		h.denied = map[string]bool{}
	}
	for _, f := range features {
		h.denied[f] = true
	}
	return h
}

// NoClient makes the host answer every client feature as for a call that
// comes from no MCP client (the search page, the Laadstatus).
func (h *Host) NoClient() *Host {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.noClient = true
	return h
}

// Elicitations returns the elicitations asked so far.
func (h *Host) Elicitations() []connector.ElicitRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]connector.ElicitRequest(nil), h.elicits...)
}

// Samples returns the sampling requests asked so far.
func (h *Host) Samples() []connector.SampleRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]connector.SampleRequest(nil), h.samples...)
}

// refusal is the error the host answers feature with before asking, or
// nil. Call it with h.mu held.
func (h *Host) refusal(feature string, scripted bool) error {
	switch {
	case h.noClient:
		return connector.NoClient(feature)
	case h.denied[feature]:
		return connector.NotGranted(feature, "<id>")
	case !scripted:
		return connector.Unsupported(feature)
	}
	return nil
}

// Elicit implements connector.Client.
func (h *Host) Elicit(_ context.Context, req connector.ElicitRequest) (connector.ElicitResult, error) {
	if err := req.Validate(); err != nil {
		h.t.Errorf("sdktest: the connector asked a malformed elicitation: %v", err)
		return connector.ElicitResult{}, &connector.ClientError{Kind: connector.ClientRefused, Feature: connector.FeatureElicitation, Message: err.Error()}
	}
	h.mu.Lock()
	f := h.onElicit
	err := h.refusal(connector.FeatureElicitation, f != nil)
	if err == nil {
		h.elicits = append(h.elicits, req)
	}
	h.mu.Unlock()
	if err != nil {
		return connector.ElicitResult{}, err
	}
	return f(req)
}

// CreateMessage implements connector.Client.
func (h *Host) CreateMessage(_ context.Context, req connector.SampleRequest) (connector.SampleResult, error) {
	if err := req.Validate(); err != nil {
		h.t.Errorf("sdktest: the connector asked a malformed sampling request: %v", err)
		return connector.SampleResult{}, &connector.ClientError{Kind: connector.ClientRefused, Feature: connector.FeatureSampling, Message: err.Error()}
	}
	h.mu.Lock()
	f := h.onSample
	err := h.refusal(connector.FeatureSampling, f != nil)
	if err == nil {
		h.samples = append(h.samples, req)
	}
	h.mu.Unlock()
	if err != nil {
		return connector.SampleResult{}, err
	}
	return f(req)
}

// ListRoots implements connector.Client.
func (h *Host) ListRoots(context.Context) (connector.RootsResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.refusal(connector.FeatureRoots, h.hasRoots); err != nil {
		return connector.RootsResult{}, err
	}
	return connector.RootsResult{Roots: append([]connector.Root{}, h.roots...)}, nil
}

var _ connector.Client = (*Host)(nil)

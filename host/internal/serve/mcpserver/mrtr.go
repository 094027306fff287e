package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Multi-round-trip requests: asking a 2026-07-28 client during a call.
//
// MCP 2026-07-28 forbids a server's own requests during a call
// (basic/transports/streamable-http.mdx, "Receiving Messages": "The server
// MUST NOT send independent JSON-RPC requests on this stream"); a server
// that needs the user's input answers the call with an InputRequiredResult
// instead, whose inputRequests carry the questions, and the client sends
// the same call again with inputResponses (basic/patterns/mrtr.mdx;
// changelog, major change 7).
//
// A connector asks in the middle of its work (an ambiguous organisation:
// which Bergen?), and its call cannot be parked between two HTTP requests
// of a stateless protocol. So the call runs to its end: the connector's
// question is not sent, its Elicit gets an error (ClientFailed, saying the
// question goes in the result), the connector finishes as it does when it
// cannot ask, and the edge throws that outcome away and answers
// input_required with every question the run asked, each under its key:
// the connector's own (connector.ElicitRequest.Key, "user_name") or its
// place among the call's questions of its kind
// ("besluitbron-elicitation-1", "besluitbron-sampling-1", …). The retry
// runs the connector again with the same arguments over the same cached
// answers, so it asks the same questions in the same order, and each
// finds its answer under its key; a question without one goes back to
// the client the same way. The platform is not asked again for what the
// first run fetched: the cache holds it.
//
// A round's answers travel to the next in its requestState, sealed by the
// host (requeststate.go): a client answers only the last round's
// questions, and a call asking twice needs both answers on its third run.
// Nothing is kept on the server between rounds, as basic/index.mdx's
// "Statelessness" asks.
//
// An answer is what the client's user said, with the same trust as an
// elicitation's answer on an older version: the connector checks it (a
// key among the candidates) whichever way it came. A call that asked is
// never kept (callinfo: the gate marks it when the connector asks).
// Sampling and roots, deprecated in 2026-07-28 but still in it, are
// asked the same way. A client is asked only what it declared in the
// request's capabilities; a tool that cannot work without a feature the
// client lacks (connector.Tool.RequiresClient) is answered -32021
// (tools.go, requiredClient).

// placeKey is the inputRequests key of a call's n-th question of a
// feature that the connector left unnamed (connector.ElicitRequest.Key):
// "besluitbron-elicitation-1", "besluitbron-sampling-1", ….
func placeKey(feature string, n int) string {
	return connector.HostInputKeyPrefix + feature + "-" + strconv.Itoa(n)
}

// roundTrip is the client of a 2026-07-28 client's tool call
// (callinfo.Client).
type roundTrip struct {
	sessionClient
	// answers are the client's inputResponses, over the answers its
	// requestState carries from earlier rounds.
	answers mcp.InputResponseMap

	mu      sync.Mutex
	asked   map[string]int // questions asked, by feature
	pending mcp.InputRequestMap
	used    map[string]mcp.InputResponse // answers the call found, for the next requestState

	// seal makes the requestState of a round that asks (requeststate.go).
	seal func(used map[string]mcp.InputResponse) (string, error)
}

// clientOf is the client a tool call's connector may ask: the session
// for an older client, a roundTrip for a 2026-07-28 one (nil for it
// otherwise). carried are the answers of the call's requestState.
func clientOf(req *mcp.CallToolRequest, carried mcp.InputResponseMap) (callinfo.Client, *roundTrip) {
	c := sessionClient{req.Session}
	if !modernSession(req.Session) {
		return c, nil
	}
	answers := mcp.InputResponseMap{}
	for k, v := range carried {
		answers[k] = v
	}
	for k, v := range req.Params.InputResponses {
		answers[k] = v
	}
	rt := &roundTrip{sessionClient: c, answers: answers}
	return rt, rt
}

// modernSession reports whether ss speaks a version whose server may not
// ask during a call (2026-07-28 or later).
func modernSession(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= firstAskingFreeVersion
}

// declared reports whether the client declared feature in its request's
// capabilities.
func (c sessionClient) declared(feature string) bool {
	p := c.ss.InitializeParams()
	if p == nil || p.Capabilities == nil {
		return false
	}
	switch feature {
	case connector.FeatureElicitation:
		return p.Capabilities.Elicitation != nil
	case connector.FeatureSampling:
		return p.Capabilities.Sampling != nil
	case connector.FeatureRoots:
		return p.Capabilities.RootsV2 != nil
	}
	return false
}

// ask is the common part of a question: the client's answer under key
// when it sent one of the right kind (ok), else the question is kept for
// the call's result. key is the connector's name for it, or "" for its
// place among the call's questions of its feature.
func (c *roundTrip) ask(feature, key string, question mcp.InputRequest, fits func(mcp.InputResponse) bool) (mcp.InputResponse, error) {
	if !c.declared(feature) {
		return nil, connector.Unsupported(feature)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.asked == nil {
		c.asked = map[string]int{}
	}
	c.asked[feature]++
	if key == "" {
		key = placeKey(feature, c.asked[feature])
	}
	// An answer of another kind (an elicitation's under a sampling
	// question's key) is no answer: the question is asked again, as
	// mrtr.mdx has a server re-request what it is missing.
	if a, ok := c.answers[key]; ok && a != nil && fits(a) {
		if c.used == nil {
			c.used = map[string]mcp.InputResponse{}
		}
		c.used[key] = a
		return a, nil
	}
	if c.pending == nil {
		c.pending = mcp.InputRequestMap{}
	}
	if _, dup := c.pending[key]; !dup {
		c.pending[key] = question
	}
	return nil, &connector.ClientError{Kind: connector.ClientFailed, Feature: feature,
		Message: "the question goes to the client in the call's result (input_required, MCP 2026-07-28); the call runs again with its answer"}
}

// Elicit implements callinfo.Client: the answer under this question's
// key when the client sent one, else the question for the call's result.
func (c *roundTrip) Elicit(_ context.Context, req connector.ElicitRequest) (connector.ElicitResult, error) {
	schema := req.RequestedSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	a, err := c.ask(connector.FeatureElicitation, req.Key, &mcp.ElicitParams{Mode: "form", Message: req.Message, RequestedSchema: schema},
		func(a mcp.InputResponse) bool { _, ok := a.(*mcp.ElicitResult); return ok })
	if err != nil {
		return connector.ElicitResult{}, err
	}
	return elicitAnswer(a.(*mcp.ElicitResult))
}

// elicitAnswer is a client's elicitation answer as the connector's.
func elicitAnswer(res *mcp.ElicitResult) (connector.ElicitResult, error) {
	out := connector.ElicitResult{Action: res.Action}
	if res.Action == connector.ElicitAccept && res.Content != nil {
		b, err := json.Marshal(res.Content)
		if err != nil {
			return connector.ElicitResult{}, &connector.ClientError{Kind: connector.ClientFailed, Feature: connector.FeatureElicitation, Message: "the client's answer is not JSON: " + err.Error()}
		}
		out.Content = b
	}
	return out, nil
}

// CreateMessage implements callinfo.Client. Sampling is deprecated in
// 2026-07-28 (changelog, "Deprecated") but still part of it: the
// question goes in the result as an elicitation's does.
func (c *roundTrip) CreateMessage(_ context.Context, req connector.SampleRequest) (connector.SampleResult, error) {
	p, err := sampleParams(req)
	if err != nil {
		return connector.SampleResult{}, err
	}
	a, err := c.ask(connector.FeatureSampling, "", p, func(a mcp.InputResponse) bool {
		_, ok := a.(*mcp.CreateMessageWithToolsResult)
		return ok
	})
	if err != nil {
		return connector.SampleResult{}, err
	}
	r := a.(*mcp.CreateMessageWithToolsResult)
	if len(r.Content) != 1 {
		return connector.SampleResult{}, &connector.ClientError{Kind: connector.ClientFailed, Feature: connector.FeatureSampling,
			Message: fmt.Sprintf("the client's model answered %d content items: want one", len(r.Content))}
	}
	return sampleAnswer(&mcp.CreateMessageResult{Content: r.Content[0], Model: r.Model, Role: r.Role, StopReason: r.StopReason})
}

// ListRoots implements callinfo.Client, as CreateMessage does (roots
// are deprecated in 2026-07-28 too).
func (c *roundTrip) ListRoots(context.Context) (connector.RootsResult, error) {
	a, err := c.ask(connector.FeatureRoots, "", &mcp.ListRootsParams{}, func(a mcp.InputResponse) bool {
		_, ok := a.(*mcp.ListRootsResult)
		return ok
	})
	if err != nil {
		return connector.RootsResult{}, err
	}
	return rootsAnswer(a.(*mcp.ListRootsResult)), nil
}

// result is the call's MCP result: res, or, when the connector asked
// what the client has not answered yet, the questions (input_required)
// with a requestState carrying the answers this round used. A nil
// roundTrip (an older client) passes res on.
func (c *roundTrip) result(res *mcp.CallToolResult) *mcp.CallToolResult {
	if c == nil {
		return res
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 {
		return res
	}
	state, err := c.seal(c.used)
	if err != nil {
		return toolError("the answers given so far are too large to carry to the next round: "+err.Error(), callinfo.Summary{Cache: callinfo.Bypass})
	}
	return &mcp.CallToolResult{InputRequests: c.pending, RequestState: state}
}

var _ callinfo.Client = (*roundTrip)(nil)

// OutcomeInputRequired is the outcome (logs, besluitbron_tool_calls_total,
// the call's span) of a call answered with its questions.
const OutcomeInputRequired = "input_required"

type roundTripKey struct{}

// withRoundTrip puts a call's roundTrip (nil for an older client) in its
// context, for run to answer with its questions.
func withRoundTrip(ctx context.Context, rt *roundTrip) context.Context {
	if rt == nil {
		return ctx
	}
	return context.WithValue(ctx, roundTripKey{}, rt)
}

// roundTripOf is the call's roundTrip, nil when it has none.
func roundTripOf(ctx context.Context) *roundTrip {
	rt, _ := ctx.Value(roundTripKey{}).(*roundTrip)
	return rt
}

package mcpserver

import (
	"context"
	"encoding/json"
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
// input_required with the question under the key of its place among the
// call's questions ("besluitbron-elicitation-1", …). The retry runs the
// connector again with the same arguments over the same cached answers,
// so it asks the same questions in the same order, and each finds its
// answer under its key; a question without one goes back to the client
// the same way. The platform is not asked again for what the first run
// fetched: the cache holds it. No state is kept between the two requests
// (requestState stays empty), as basic/index.mdx's "Statelessness" asks.
//
// An answer is what the client's user said, with the same trust as an
// elicitation's answer on an older version: the connector checks it (a
// key among the candidates) whichever way it came. A call that asked is
// never kept (callinfo: the gate marks it when the connector asks).
// Sampling and roots are not asked this way; a 2026-07-28 client gets the
// refusal it got before (tools.go, sessionClient.capable).

// elicitKey is the inputRequests key of a call's n-th question.
func elicitKey(n int) string { return "besluitbron-elicitation-" + strconv.Itoa(n) }

// roundTrip is the client of a 2026-07-28 client's tool call
// (callinfo.Client).
type roundTrip struct {
	sessionClient
	answers mcp.InputResponseMap

	mu      sync.Mutex
	asked   int
	pending mcp.InputRequestMap
}

// clientOf is the client a tool call's connector may ask: the session
// for an older client, a roundTrip for a 2026-07-28 one (nil for it
// otherwise).
func clientOf(req *mcp.CallToolRequest) (callinfo.Client, *roundTrip) {
	c := sessionClient{req.Session}
	p := req.Session.InitializeParams()
	if p == nil || p.ProtocolVersion < firstAskingFreeVersion {
		return c, nil
	}
	rt := &roundTrip{sessionClient: c, answers: req.Params.InputResponses}
	return rt, rt
}

// Elicit implements callinfo.Client: the answer under this question's
// key when the client sent one, else the question for the call's result.
func (c *roundTrip) Elicit(_ context.Context, req connector.ElicitRequest) (connector.ElicitResult, error) {
	if p := c.ss.InitializeParams(); p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return connector.ElicitResult{}, connector.Unsupported(connector.FeatureElicitation)
	}
	c.mu.Lock()
	c.asked++
	key := elicitKey(c.asked)
	c.mu.Unlock()
	if res, ok := c.answers[key].(*mcp.ElicitResult); ok && res != nil {
		out := connector.ElicitResult{Action: res.Action}
		if res.Action == connector.ElicitAccept && res.Content != nil {
			b, err := json.Marshal(res.Content)
			if err != nil {
				return connector.ElicitResult{}, &connector.ClientError{Kind: connector.ClientFailed, Feature: connector.FeatureElicitation, Message: "the client's answer " + key + " is not JSON: " + err.Error()}
			}
			out.Content = b
		}
		return out, nil
	}
	schema := req.RequestedSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	c.mu.Lock()
	if c.pending == nil {
		c.pending = mcp.InputRequestMap{}
	}
	c.pending[key] = &mcp.ElicitParams{Mode: "form", Message: req.Message, RequestedSchema: schema}
	c.mu.Unlock()
	return connector.ElicitResult{}, &connector.ClientError{Kind: connector.ClientFailed, Feature: connector.FeatureElicitation,
		Message: "the question goes to the client in the call's result (input_required, MCP 2026-07-28); the call runs again with its answer"}
}

// result is the call's MCP result: res, or, when the connector asked
// what the client has not answered yet, the questions (input_required).
// A nil roundTrip (an older client) passes res on.
func (c *roundTrip) result(res *mcp.CallToolResult) *mcp.CallToolResult {
	if c == nil {
		return res
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 {
		return res
	}
	return &mcp.CallToolResult{InputRequests: c.pending}
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

package invoke

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Answer is a tool's outcome as the host's own features see it: the
// connector's own result, not its MCP form. Decode Result.Structured (the
// connector's JSON, such as a [connector.SearchResult]); the host's notes
// on the call (a stale answer's age) are in Summary.Notes, not in the
// text. A host tool answers one too, with Platform [HostPlatform].
type Answer struct {
	// Platform is the connector id ("" for an unknown tool).
	Platform string
	// Result is the answer as the tool gave it. When Err is set it is
	// the zero result, except for a tool error of the connector's own
	// (IsError) or bad content, where it is what the connector returned.
	Result connector.CallResult
	// Summary is the call's accounting: cache outcome, queueing and
	// upstream time, fetches, and the host's notes.
	Summary callinfo.Summary
	// Err is a tool-level error: invalid arguments, every instance busy,
	// the connector failed, the connector answered a tool error or bad
	// content, or the tool is unknown. Its text is exactly the text of
	// the MCP tool error a client gets for the same call.
	Err error
}

// JSON is the answer's JSON: its structured result, or its text when it
// gave none (a connector may answer JSON as text only). Decode it into
// the contract's results ([connector.SearchResult] and the like).
func (a Answer) JSON() []byte {
	if len(a.Result.Structured) > 0 {
		return a.Result.Structured
	}
	return []byte(a.Result.Text)
}

// HostPlatform is the platform the host's own tools are logged and
// counted under.
const HostPlatform = "besluitbron"

// JSONAnswer is a host tool's successful answer: b (a JSON object) as
// both its text and its structured result, with the call's accounting.
func JSONAnswer(b []byte, sum callinfo.Summary) Answer {
	return Answer{Platform: HostPlatform, Result: connector.CallResult{Text: string(b), Structured: b}, Summary: sum}
}

// Failed is a host tool's error answer; text is what the client reads
// (name the tool in it, as every tool error does).
func Failed(text string, sum callinfo.Summary) Answer {
	return Answer{Platform: HostPlatform, Summary: sum, Err: errors.New(text)}
}

// Invoker runs a connector tool by full name ("<id>_<tool>") with the
// validation, kept results, admission and cache of an MCP call, and
// returns the connector's answer (a function, so that the features'
// tests can answer for the connectors).
type Invoker func(ctx context.Context, info *callinfo.Info, name string, args json.RawMessage) Answer

// HostTool is a tool the host itself provides on the unified address,
// declared in the connectors' terms so that no feature builds an MCP
// type: its arguments are checked against InputSchema before Handler
// runs, as a connector tool's are.
type HostTool struct {
	// Name, Title and Description as tools/list shows them.
	Name, Title, Description string
	// InputSchema is the arguments' JSON Schema (any value that encodes
	// as one).
	InputSchema any
	// OpenWorld marks a tool that reaches platforms (besluitbron_search),
	// as against one that reports the host's own state.
	OpenWorld bool
	// Handler runs the call; info is the call's record (session,
	// accounting).
	Handler func(ctx context.Context, info *callinfo.Info, args json.RawMessage) Answer
}

package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Meta keys on every tool result.
const (
	MetaCache      = "besluitbron/cache"
	MetaQueuedMS   = "besluitbron/queued_ms"
	MetaUpstreamMS = "besluitbron/upstream_ms"
)

// ClientHeader carries the client's address from the HTTP layer to tool
// handlers; the HTTP layer overwrites whatever a client sends in it.
const ClientHeader = "X-Besluitbron-Client"

// sessionOf names the session a call counts against: the MCP session id;
// for an HTTP+SSE client, the ?sessionid= of its stream (see
// legacySession); for a client speaking a protocol version without
// sessions, its address; for stdio, "stdio".
func sessionOf(ctx context.Context, ss *mcp.ServerSession, extra *mcp.RequestExtra) string {
	if ss != nil {
		if id := ss.ID(); id != "" {
			return id
		}
	}
	if ls, ok := ctx.Value(legacyKey{}).(*legacySession); ok {
		return ls.session()
	}
	if extra != nil && extra.Header != nil {
		if c := extra.Header.Get(ClientHeader); c != "" {
			return "client:" + c
		}
		return "anonymous"
	}
	return "stdio"
}

func (s *Server) newInfo(ctx context.Context, req *mcp.CallToolRequest) *callinfo.Info {
	info := &callinfo.Info{Session: sessionOf(ctx, req.Session, req.Extra)}
	if c := clientFrom(ctx); c != nil && c.token != nil {
		info.OnQueued = func(position int, eta time.Duration) {
			c.bump(ctx, fmt.Sprintf("waiting for the platform's limit: position %d, about %.1f s", position, eta.Seconds()))
		}
	}
	return info
}

func (s *Server) toolHandler(e *toolEntry) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx = withClient(ctx, req)
		return s.run(ctx, s.newInfo(ctx, req), e, req.Params.Arguments), nil
	}
}

// hostToolHandler runs one of the host's own tools. Its arguments are
// checked against its schema first, as a connector tool's are, so that
// every tool's argument errors read alike.
func (s *Server) hostToolHandler(ht HostTool, as *argSchema) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx = withClient(ctx, req)
		info := s.newInfo(ctx, req)
		start := time.Now()
		args, err := checkArgs(as, req.Params.Arguments)
		if err != nil {
			res := toolError(fmt.Sprintf("%s: invalid arguments: %v", ht.Tool.Name, err), info.Summary())
			s.observe(ctx, ht.Tool.Name, "besluitbron", info, res, start, "invalid_arguments")
			return res, nil
		}
		res, err := ht.Handler(ctx, info, args)
		if err != nil {
			res = toolError(fmt.Sprintf("%s: %v", ht.Tool.Name, err), info.Summary())
		}
		s.observe(ctx, ht.Tool.Name, "besluitbron", info, res, start, "")
		return res, nil
	}
}

// run is the MCP edge of a connector tool call: invoke, then the answer
// (or the error) as an MCP result, observed for the logs and metrics.
func (s *Server) run(ctx context.Context, info *callinfo.Info, e *toolEntry, args json.RawMessage) *mcp.CallToolResult {
	start := time.Now()
	ctx = callinfo.With(ctx, info)
	out, sum, cerr := s.invoke(ctx, info, e, args)
	var res *mcp.CallToolResult
	outcome := ""
	if cerr != nil {
		res, outcome = toolError(cerr.text, sum), cerr.outcome
	} else {
		res = s.result(e, out, sum)
	}
	s.observe(ctx, e.full, e.platform.Manifest.ID, info, res, start, outcome)
	return res
}

// result turns a connector's answer that passed check into the MCP
// result: its text with the host's notes appended, its content items, and
// its structured JSON when that is an object.
func (s *Server) result(e *toolEntry, out connector.CallResult, sum callinfo.Summary) *mcp.CallToolResult {
	title := e.platform.Manifest.Title
	text := out.Text
	if len(sum.Notes) > 0 {
		text += "\n\nNote: " + strings.Join(sum.Notes, "\nNote: ")
	}
	content, err := e.platform.contents(text, out.Content)
	if err != nil { // check has seen the items; kept for safety
		return toolError(fmt.Sprintf("%s: the connector returned bad content: %v", title, err), sum)
	}
	res := &mcp.CallToolResult{Content: content, Meta: meta(sum)}
	if len(out.Structured) > 0 && json.Valid(out.Structured) && bytes.HasPrefix(bytes.TrimSpace(out.Structured), []byte("{")) {
		res.StructuredContent = json.RawMessage(out.Structured)
	}
	return res
}

// validate checks arguments against the tool's schema. The error names the
// argument and says the rule in words (see argerrors.go).
func (s *Server) validate(e *toolEntry, args json.RawMessage) (json.RawMessage, error) {
	return checkArgs(e.args, args)
}

// checkArgs decodes and checks arguments; absent arguments are {}.
func checkArgs(as *argSchema, args json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %s", clipText(err.Error(), 200))
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("the arguments must be a JSON object of named arguments (got %s)", showKind(v))
	}
	if err := as.validate(v); err != nil {
		return nil, err
	}
	return args, nil
}

// cleanSchemaError turns jsonschema-go's "validating root: validating
// /properties/limit: maximum: 101 is greater than 100" into
// "argument \"limit\": maximum: 101 is greater than 100".
func cleanSchemaError(s string) string {
	s = strings.TrimPrefix(s, "validating root: ")
	if rest, ok := strings.CutPrefix(s, "validating /properties/"); ok {
		name, msg, found := strings.Cut(rest, ": ")
		if found {
			name = strings.TrimSuffix(name, "/")
			msg = strings.TrimPrefix(msg, "validating /properties/"+name+": ")
			return fmt.Sprintf("argument %q: %s", name, msg)
		}
	}
	return s
}

func meta(sum callinfo.Summary) mcp.Meta {
	return mcp.Meta{
		MetaCache:      sum.Cache,
		MetaQueuedMS:   sum.Queued.Milliseconds(),
		MetaUpstreamMS: sum.Upstream.Milliseconds(),
	}
}

// toolError is a tool error result. Its text is cut at MaxErrorText
// whoever wrote it (a connector may echo what it was given): an error that
// fills the assistant's context helps nobody.
func toolError(msg string, sum callinfo.Summary) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: clipText(msg, MaxErrorText)}}, Meta: meta(sum)}
}

// observe logs a finished MCP tool call and tells the observer.
func (s *Server) observe(ctx context.Context, tool, platform string, info *callinfo.Info, res *mcp.CallToolResult, start time.Time, outcome string) {
	size := 0
	errText := ""
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			size += len(t.Text)
			if res.IsError {
				errText = t.Text
			}
		}
	}
	s.record(ctx, tool, platform, info, start, outcome, res.IsError, size, errText)
}

// record logs a finished tool call, MCP or internal, and tells the
// observer. size is the bytes of text the result carries (in MCP form);
// an empty outcome is "ok", or "tool_error" when isError.
func (s *Server) record(ctx context.Context, tool, platform string, info *callinfo.Info, start time.Time, outcome string, isError bool, size int, errText string) {
	sum := info.Summary()
	if outcome == "" {
		outcome = "ok"
		if isError {
			outcome = "tool_error"
		}
	}
	elapsed := time.Since(start)
	s.o.Logger.Info("tool call", "session", info.Session, "tool", tool, "outcome", outcome, "cache", sum.Cache,
		"queued_ms", sum.Queued.Milliseconds(), "upstream_ms", sum.Upstream.Milliseconds(), "elapsed_ms", elapsed.Milliseconds(),
		"result_bytes", size, "error", errText)
	if s.o.Observe != nil {
		s.o.Observe(ctx, CallEvent{Tool: tool, Platform: platform, Session: info.Session, Outcome: outcome, Summary: sum, Bytes: size, Err: errText, Elapsed: elapsed.Seconds()})
	}
}

package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/auth"
	"github.com/besluitbron/besluitbron/host/internal/serve/inbound"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/internal/tracing"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/querylang"
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

// sessionOf names the session a call counts against
// ([callinfo.ChargedTo] decides, from callerOf).
func sessionOf(ctx context.Context, ss *mcp.ServerSession, extra *mcp.RequestExtra) string {
	return callinfo.ChargedTo(callerOf(ctx, ss, extra))
}

// callerOf is what the MCP edge knows of a call's caller: the client that
// authenticated (server.auth "keys" or "oauth": the go-sdk hands on what
// the authenticator admitted, or for an HTTP+SSE client its stream's),
// and the MCP session id; for an HTTP+SSE client, the ?sessionid= of its
// stream (see legacySession); for a client speaking a protocol version
// without sessions, its address; for stdio, the local client.
func callerOf(ctx context.Context, ss *mcp.ServerSession, extra *mcp.RequestExtra) callinfo.Caller {
	if extra == nil {
		// A subscribe the go-sdk makes for a subscriptions/listen
		// (listen.go) is its listener's.
		if c, ok := listenerOf(ctx); ok {
			return c
		}
	}
	var c callinfo.Caller
	if extra != nil {
		if p, ok := auth.FromTokenInfo(extra.TokenInfo); ok {
			c = p.Caller()
		}
	}
	if ss != nil {
		if id := ss.ID(); id != "" {
			c.Session = id
			return c
		}
	}
	if ls, ok := ctx.Value(legacyKey{}).(*legacySession); ok {
		return ls.caller()
	}
	if extra != nil && extra.Header != nil {
		c.Address = extra.Header.Get(ClientHeader)
		return c
	}
	c.Local = true
	return c
}

func (s *Server) newInfo(ctx context.Context, req *mcp.CallToolRequest) *callinfo.Info {
	caller := callerOf(ctx, req.Session, req.Extra)
	info := &callinfo.Info{Session: callinfo.ChargedTo(caller), Label: callinfo.Label(caller)}
	if c := clientFrom(ctx); c != nil && c.token != nil {
		info.OnQueued = func(position int, eta time.Duration) {
			c.bump(ctx, fmt.Sprintf("waiting for the platform's limit: position %d, about %.1f s", position, eta.Seconds()))
		}
	}
	if tc := taskCallFrom(ctx); tc != nil {
		tc.equip(info) // tasks.go
	}
	return info
}

// startCall starts a tool call's span (nothing when tracing is off):
// under the client's trace context from _meta, from the moment the client
// limits checked the request (inbound.CheckedHeader).
func (s *Server) startCall(ctx context.Context, req *mcp.CallToolRequest) (context.Context, tracing.Span) {
	if s.o.Tracing == nil {
		return ctx, tracing.Span{}
	}
	var limits tracing.Window
	if req.Extra != nil && req.Extra.Header != nil {
		limits.Start, limits.End, _ = inbound.Checked(req.Extra.Header)
	}
	return s.o.Tracing.StartCall(ctx, req.Params.Name, req.Params.Meta, limits)
}

func (s *Server) toolHandler(e *toolEntry) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx = withClient(ctx, req)
		ctx, span := s.startCall(ctx, req)
		defer span.End()
		span.SetString("besluitbron.platform", e.platform.Manifest.ID)
		info := s.newInfo(ctx, req)
		// A connector tool called by an MCP client may ask that client
		// (the client features its grant allows). The host's own tools
		// do not pass it on: a fan-out over several platforms, each
		// with its own deadline, is no place to ask a person.
		// A 2026-07-28 client is asked in the call's result (mrtr.go).
		if req.Session != nil {
			var carried mcp.InputResponseMap
			if modernSession(req.Session) {
				if err := requiredClient(e, sessionClient{req.Session}); err != nil {
					return nil, err
				}
				var err error
				if carried, err = s.state.open(info.Session, "tools/call", req.Params.Name, req.Params.Arguments, req.Params.RequestState); err != nil {
					return nil, err
				}
			}
			var rt *roundTrip
			info.Client, rt = clientOf(req, carried)
			if rt != nil {
				rt.seal = func(used map[string]mcp.InputResponse) (string, error) {
					return s.state.seal(info.Session, "tools/call", req.Params.Name, req.Params.Arguments, used)
				}
			}
			ctx = withRoundTrip(ctx, rt)
		}
		return s.run(ctx, info, e, req.Params.Arguments), nil
	}
}

// requiredClient is the MissingRequiredClientCapability error (-32021,
// MCP 2026-07-28 basic/index.mdx, under "_meta") of a call to a
// tool that cannot work without a client feature its client did not
// declare (connector.Tool.RequiresClient), nil when it has them all. The
// error's data names the capabilities as a ClientCapabilities object.
func requiredClient(e *toolEntry, c sessionClient) error {
	missing := map[string]any{}
	var names []string
	for _, f := range e.t.Def.RequiresClient {
		if !c.declared(f) {
			missing[f] = map[string]any{}
			names = append(names, f)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": missing})
	return &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Data: data, Message: fmt.Sprintf(
		"Missing required client capability: %s cannot work without %s; declare it in the request's _meta %s", e.name, strings.Join(names, " and "), "io.modelcontextprotocol/clientCapabilities")}
}

// sessionClient is the MCP client of a tool call, as the client features
// reach it (callinfo.Client): the session the call came from, asked only
// for what it declared when it connected.
type sessionClient struct{ ss *mcp.ServerSession }

// firstAskingFreeVersion is the first protocol version on which a server
// may not send a request of its own during a call (it returns the
// question in the call's result instead, SEP-2322's multi round-trip
// requests: mrtr.go).
const firstAskingFreeVersion = "2026-07-28"

// capable returns nil when the client declared feature and its protocol
// version lets a server ask during a call, else the error saying why not.
func (c sessionClient) capable(feature string) error {
	p := c.ss.InitializeParams()
	if p == nil || p.Capabilities == nil {
		return connector.Unsupported(feature)
	}
	var declared bool
	switch feature {
	case connector.FeatureElicitation:
		declared = p.Capabilities.Elicitation != nil
	case connector.FeatureSampling:
		declared = p.Capabilities.Sampling != nil
	case connector.FeatureRoots:
		declared = p.Capabilities.RootsV2 != nil
	}
	if !declared {
		return connector.Unsupported(feature)
	}
	if p.ProtocolVersion >= firstAskingFreeVersion {
		return &connector.ClientError{Kind: connector.ClientUnsupported, Feature: feature, Message: fmt.Sprintf(
			"the MCP client speaks protocol version %s, on which a server cannot ask it during a call; this host asks clients of versions before %s only", p.ProtocolVersion, firstAskingFreeVersion)}
	}
	return nil
}

// Elicit implements callinfo.Client. The requested schema goes out as the
// connector wrote it (json.RawMessage), so defaults and enum forms pass
// through untouched.
func (c sessionClient) Elicit(ctx context.Context, req connector.ElicitRequest) (connector.ElicitResult, error) {
	if err := c.capable(connector.FeatureElicitation); err != nil {
		return connector.ElicitResult{}, err
	}
	schema := req.RequestedSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	res, err := c.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: req.Message, RequestedSchema: schema})
	if err != nil {
		return connector.ElicitResult{}, err
	}
	out := connector.ElicitResult{Action: res.Action}
	if res.Action == connector.ElicitAccept && res.Content != nil {
		if out.Content, err = json.Marshal(res.Content); err != nil {
			return connector.ElicitResult{}, err
		}
	}
	return out, nil
}

// CreateMessage implements callinfo.Client.
func (c sessionClient) CreateMessage(ctx context.Context, req connector.SampleRequest) (connector.SampleResult, error) {
	if err := c.capable(connector.FeatureSampling); err != nil {
		return connector.SampleResult{}, err
	}
	p, err := sampleParams(req)
	if err != nil {
		return connector.SampleResult{}, err
	}
	res, err := c.ss.CreateMessage(ctx, p)
	if err != nil {
		return connector.SampleResult{}, err
	}
	return sampleAnswer(res)
}

// sampleParams is a connector's sampling request as MCP's.
func sampleParams(req connector.SampleRequest) (*mcp.CreateMessageParams, error) {
	p := &mcp.CreateMessageParams{MaxTokens: int64(req.MaxTokens), SystemPrompt: req.SystemPrompt, StopSequences: req.StopSequences}
	if req.Temperature != nil {
		p.Temperature = *req.Temperature
	}
	if mp := req.ModelPreferences; mp != nil {
		p.ModelPreferences = &mcp.ModelPreferences{CostPriority: mp.CostPriority, SpeedPriority: mp.SpeedPriority, IntelligencePriority: mp.IntelligencePriority}
		for _, h := range mp.Hints {
			p.ModelPreferences.Hints = append(p.ModelPreferences.Hints, &mcp.ModelHint{Name: h})
		}
	}
	for _, m := range req.Messages {
		content, err := samplingContent(m.Content)
		if err != nil {
			return nil, &connector.ClientError{Kind: connector.ClientRefused, Feature: connector.FeatureSampling, Message: err.Error()}
		}
		p.Messages = append(p.Messages, &mcp.SamplingMessage{Role: mcp.Role(m.Role), Content: content})
	}
	return p, nil
}

// sampleAnswer is the client model's answer as the connector's.
func sampleAnswer(res *mcp.CreateMessageResult) (connector.SampleResult, error) {
	out := connector.SampleResult{Model: res.Model, StopReason: res.StopReason}
	out.Role = string(res.Role)
	switch ct := res.Content.(type) {
	case *mcp.TextContent:
		out.Content = connector.Content{Type: connector.ContentText, Text: ct.Text}
	case *mcp.ImageContent:
		out.Content = connector.Content{Type: connector.ContentImage, Data: ct.Data, MIMEType: ct.MIMEType}
	case *mcp.AudioContent:
		out.Content = connector.Content{Type: connector.ContentAudio, Data: ct.Data, MIMEType: ct.MIMEType}
	default:
		return connector.SampleResult{}, fmt.Errorf("the client's model answered content of type %T: want text, image or audio", res.Content)
	}
	return out, nil
}

// samplingContent is a connector's content item as a sampling message's.
func samplingContent(c connector.Content) (mcp.Content, error) {
	switch c.Type {
	case connector.ContentText:
		return &mcp.TextContent{Text: c.Text}, nil
	case connector.ContentImage:
		return &mcp.ImageContent{Data: c.Data, MIMEType: c.MIMEType}, nil
	case connector.ContentAudio:
		return &mcp.AudioContent{Data: c.Data, MIMEType: c.MIMEType}, nil
	}
	return nil, fmt.Errorf("sampling: content type %q: want text, image or audio", c.Type)
}

// ListRoots implements callinfo.Client.
func (c sessionClient) ListRoots(ctx context.Context) (connector.RootsResult, error) {
	if err := c.capable(connector.FeatureRoots); err != nil {
		return connector.RootsResult{}, err
	}
	res, err := c.ss.ListRoots(ctx, nil)
	if err != nil {
		return connector.RootsResult{}, err
	}
	return rootsAnswer(res), nil
}

// rootsAnswer is the client's roots as the connector's.
func rootsAnswer(res *mcp.ListRootsResult) connector.RootsResult {
	out := connector.RootsResult{Roots: []connector.Root{}}
	for _, r := range res.Roots {
		if r != nil {
			out.Roots = append(out.Roots, connector.Root{URI: r.URI, Name: r.Name})
		}
	}
	return out
}

var _ callinfo.Client = sessionClient{}

// hostToolDef is a host tool as tools/list shows it: read-only (the
// host's tools change nothing anywhere), open-world when it reaches
// platforms.
func hostToolDef(ht invoke.HostTool) *mcp.Tool {
	ann := &mcp.ToolAnnotations{ReadOnlyHint: true, Title: ht.Title}
	if ht.OpenWorld {
		ann.OpenWorldHint = ptr(true)
	} else {
		ann.OpenWorldHint = ptr(false)
	}
	return &mcp.Tool{Name: ht.Name, Title: ht.Title, Description: ht.Description, InputSchema: ht.InputSchema, Annotations: ann}
}

// hostToolHandler is the MCP edge of one of the host's own tools. Its
// arguments are checked against its schema first, as a connector tool's
// are, so that every tool's argument errors read alike; its answer
// becomes an MCP result as a connector's does.
func (s *Server) hostToolHandler(ht invoke.HostTool, as *invoke.ArgSchema) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx = withClient(ctx, req)
		ctx, span := s.startCall(ctx, req)
		defer span.End()
		info := s.newInfo(ctx, req)
		start := time.Now()
		args, err := as.Check(req.Params.Arguments)
		if err != nil {
			res := toolError(fmt.Sprintf("%s: invalid arguments: %v", ht.Name, err), info.Summary())
			s.observe(ctx, ht.Name, invoke.HostPlatform, info, res, start, "invalid_arguments")
			return res, nil
		}
		a := ht.Handler(ctx, info, args)
		var res *mcp.CallToolResult
		if a.Err != nil {
			res = toolError(a.Err.Error(), a.Summary)
		} else {
			res = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Result.Text}}, Meta: meta(a.Summary)}
			if st := a.Result.Structured; len(st) > 0 && json.Valid(st) && bytes.HasPrefix(bytes.TrimSpace(st), []byte("{")) {
				res.StructuredContent = json.RawMessage(st)
			}
		}
		s.observe(ctx, ht.Name, invoke.HostPlatform, info, res, start, "")
		return res, nil
	}
}

// run is the MCP edge of a connector tool call: invoke, then the answer
// (or the error) as an MCP result, observed for the logs and metrics.
func (s *Server) run(ctx context.Context, info *callinfo.Info, e *toolEntry, args json.RawMessage) *mcp.CallToolResult {
	start := time.Now()
	if tc := taskCallFrom(ctx); tc != nil && info.Client != nil {
		info.Client = tc.client(info.Client) // tasks.go: not asked once a task
	}
	ctx = callinfo.With(ctx, info)
	out, sum, cerr := s.o.Engine.Call(ctx, info, e.t, args)
	var res *mcp.CallToolResult
	outcome := ""
	if cerr != nil {
		res, outcome = toolError(cerr.Text, sum), cerr.Outcome
	} else {
		if hint := dutchHint(e, args, out); hint != "" {
			sum.Notes = append(sum.Notes, hint)
		}
		res = s.result(e, out, sum)
	}
	// A call that asked a 2026-07-28 client ends as its question
	// (mrtr.go), counted as such, not as the error the connector met.
	if q := roundTripOf(ctx).result(res); q != res {
		res, outcome = q, OutcomeInputRequired
	}
	s.observe(ctx, e.t.Full, e.platform.Manifest.ID, info, res, start, outcome)
	return res
}

// result turns a connector's answer that passed invoke's checks into the
// MCP result: its text with the host's notes appended, its content items,
// and its structured JSON (invoke kept it only when it is an object).
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
	if len(out.Structured) > 0 { // a JSON object: invoke checked it
		res.StructuredContent = json.RawMessage(out.Structured)
	}
	return res
}

// dutchHint is the advice to search in Dutch for a platform's search (the
// tool its manifest's search profile names) that found nothing for a
// query reading as English, or "". Every other call pays one comparison
// of tool names; a search only a check of its query's words, and the
// answer is read only when the query reads as English.
func dutchHint(e *toolEntry, args json.RawMessage, out connector.CallResult) string {
	sp := e.platform.Manifest.SearchProfile
	if sp == nil || sp.QueryArg == "" || e.t.Def.Name != sp.Tool {
		return ""
	}
	var a map[string]any
	if json.Unmarshal(args, &a) != nil {
		return ""
	}
	q, _ := a[sp.QueryArg].(string)
	if !querylang.English(q) {
		return ""
	}
	var r struct {
		Results []json.RawMessage `json:"results"`
	}
	if json.Unmarshal([]byte(out.Text), &r) != nil || r.Results == nil || len(r.Results) > 0 {
		return ""
	}
	return querylang.Hint(q)
}

func meta(sum callinfo.Summary) mcp.Meta {
	return mcp.Meta{
		MetaCache:      sum.Cache,
		MetaQueuedMS:   sum.Queued.Milliseconds(),
		MetaUpstreamMS: sum.Upstream.Milliseconds(),
	}
}

// toolError is a tool error result. Its text is cut at invoke.MaxErrorText
// whoever wrote it (a connector may echo what it was given): an error that
// fills the assistant's context helps nobody.
func toolError(msg string, sum callinfo.Summary) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: invoke.ClipText(msg, invoke.MaxErrorText)}}, Meta: meta(sum)}
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
	if sp := tracing.Current(ctx); sp.Recording() {
		// The call's span says what its _meta and log line say.
		sum := info.Summary()
		sp.SetString("besluitbron.cache", sum.Cache)
		sp.SetInt("besluitbron.queued_ms", sum.Queued.Milliseconds())
		sp.SetInt("besluitbron.upstream_ms", sum.Upstream.Milliseconds())
		sp.SetInt("besluitbron.fetches", int64(sum.Fetches))
		if outcome == "" && res.IsError {
			outcome = "tool_error"
		} else if outcome == "" {
			outcome = "ok"
		}
		sp.SetString("besluitbron.outcome", outcome)
		if res.IsError {
			sp.Fail(errText)
		}
	}
	s.record(ctx, tool, platform, info, start, outcome, res.IsError, size, errText)
}

// record logs a finished tool call and tells the observer, as the invoke
// path records the features' calls.
func (s *Server) record(ctx context.Context, tool, platform string, info *callinfo.Info, start time.Time, outcome string, isError bool, size int, errText string) {
	s.o.Engine.Record(ctx, tool, platform, info, start, outcome, isError, size, errText)
}

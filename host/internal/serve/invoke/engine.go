package invoke

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/runtime/admission"
	"github.com/besluitbron/besluitbron/host/internal/serve/memo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/internal/tracing"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Platform is one loaded connector as the invoke path runs it.
type Platform struct {
	Manifest  connector.Manifest
	Connector connector.Connector
	// Host is the connector's fetch gate.
	Host connector.Host
	// Admission, when set, shares the connector's instances fairly between
	// sessions.
	Admission *admission.Admission
	// Stamp identifies the connector's build (the module's sha256) in kept
	// results' keys.
	Stamp string
	// Reused, when set, is told the cache classes of the answers behind a
	// kept result served instead of running the connector (the platform
	// cache counts them as hits).
	Reused func(classes []string)
}

// Observer is told about every tool call (metrics).
type Observer func(ctx context.Context, e CallEvent)

// CallEvent describes one finished tool call.
type CallEvent struct {
	Tool     string
	Platform string
	Session  string
	// Client is the caller's bounded label (callinfo.Label: a named
	// client's name, "oauth", "anonymous"; "" for the host's own calls).
	Client  string
	Outcome string // "ok", "tool_error", "invalid_arguments", "connector_error", "busy"
	Summary callinfo.Summary
	Bytes   int
	Err     string
	Elapsed float64 // seconds
}

// Options configure an Engine.
type Options struct {
	// Platforms are the loaded connectors.
	Platforms []*Platform
	// Memo, when set, keeps whole tool results while the cached answers
	// they were built from stay fresh.
	Memo   *memo.Store
	Logger *slog.Logger
	// Observe, when set, sees every tool call.
	Observe Observer
	// Results, when set, rewrites every successful answer before it
	// leaves the invoke path, kept or fresh (serve/cite gives each search
	// result its citation dated the day of the call).
	Results func(platform string, out connector.CallResult) connector.CallResult
	// Tracing, when set, gives a feature's call that arrives under no
	// traced call (a page, the Laadstatus, a watch's poll) a trace of
	// its own, as the MCP edge gives a client's call.
	Tracing *tracing.Provider
}

// Engine is the one path every tool call takes, whoever asked: an MCP
// client (through the MCP edge) or one of the host's features
// ([Engine.Invoke]). It holds the tool table and, per call, checks the
// arguments, answers from a kept result when it can, waits for an
// instance (admission), runs the connector and keeps its result.
type Engine struct {
	o     Options
	tools map[string]*Tool // by "<id>_<tool>"
}

// Platforms are the platforms the engine runs, in the order given.
func (e *Engine) Platforms() []*Platform { return e.o.Platforms }

// Tool is one connector tool in the table.
type Tool struct {
	Platform *Platform
	Def      connector.Tool
	// Full is "<id>_<tool>", the name the host's own code calls it by.
	Full string
	// Args is its input schema, checked before the connector runs.
	Args *ArgSchema
}

// New builds the tool table of every platform; a tool whose input schema
// does not resolve, or a connector loaded twice, is an error.
func New(o Options) (*Engine, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	e := &Engine{o: o, tools: map[string]*Tool{}}
	seen := map[string]bool{}
	for _, p := range o.Platforms {
		id := p.Manifest.ID
		if seen[id] {
			return nil, fmt.Errorf("invoke: connector %q loaded twice", id)
		}
		seen[id] = true
		for _, t := range p.Manifest.Tools {
			as, err := NewArgSchema(t.InputSchema)
			if err != nil {
				return nil, fmt.Errorf("connector %q tool %q: input schema: %w", id, t.Name, err)
			}
			e.tools[id+"_"+t.Name] = &Tool{Platform: p, Def: t, Full: id + "_" + t.Name, Args: as}
		}
	}
	return e, nil
}

// Tool returns a connector tool by full name.
func (e *Engine) Tool(full string) (*Tool, bool) {
	t, ok := e.tools[full]
	return t, ok
}

// ToolNames lists every connector tool's full name, sorted.
func (e *Engine) ToolNames() []string {
	out := make([]string, 0, len(e.tools))
	for n := range e.tools {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Invoke runs a connector tool by full name ("<id>_<tool>") for the host's
// own features, with the validation, kept results, admission and cache of
// an MCP call, and returns the connector's answer. The call is logged and
// observed as an MCP call is, with the same outcome and size. It is an
// [Invoker].
func (e *Engine) Invoke(ctx context.Context, info *callinfo.Info, name string, args json.RawMessage) Answer {
	t, ok := e.tools[name]
	if !ok {
		return Answer{Err: errors.New(ClipText(UnknownTool(name), MaxErrorText)), Summary: callinfo.Summary{Cache: callinfo.Bypass}}
	}
	start := time.Now()
	if e.o.Tracing != nil && !tracing.Current(ctx).Recording() {
		var span tracing.Span
		ctx, span = e.o.Tracing.StartCall(ctx, name, nil, tracing.Window{})
		span.SetString("besluitbron.platform", t.Platform.Manifest.ID)
		span.SetString("besluitbron.caller", featureCaller(info))
		defer span.End()
	}
	ctx = callinfo.With(ctx, info)
	out, sum, cerr := e.Call(ctx, info, t, args)
	a := Answer{Platform: t.Platform.Manifest.ID, Result: out, Summary: sum}
	if cerr != nil {
		a.Err = cerr
		e.Record(ctx, t.Full, a.Platform, info, start, cerr.Outcome, true, len(cerr.Text), cerr.Text)
		return a
	}
	e.Record(ctx, t.Full, a.Platform, info, start, "", false, textBytes(out, sum), "")
	return a
}

// featureCaller says, in a feature call's trace, whom it runs for: the
// bounded label of the client it is charged to, else the session
// callinfo charged it to (the host's public session for the pages and
// jobs).
func featureCaller(info *callinfo.Info) string {
	if info == nil {
		return ""
	}
	if info.Label != "" {
		return info.Label
	}
	return info.Session
}

// UnknownTool is the error text for a tool no connector serves.
func UnknownTool(name string) string { return fmt.Sprintf("unknown tool %q", name) }

// CallError is a tool-level error of a call: its text as a client sees it
// (already cut at MaxErrorText) and the outcome the metrics count it
// under ("" for a tool error the connector answered: "tool_error").
type CallError struct {
	Outcome string
	Text    string
}

func (e *CallError) Error() string { return e.Text }

func failed(outcome, msg string) *CallError {
	return &CallError{Outcome: outcome, Text: ClipText(msg, MaxErrorText)}
}

type hostWrapKey struct{}

// WithHost returns ctx carrying wrap, which the call's connector host
// passes through before the connector runs: the MCP edge uses it to send
// the connector's log lines to its client.
func WithHost(ctx context.Context, wrap func(connector.Host, string) connector.Host) context.Context {
	return context.WithValue(ctx, hostWrapKey{}, wrap)
}

// Call is the invoke path: it validates the arguments, answers from a
// kept result when it can, waits for an instance (admission), runs the
// connector and keeps its result. It returns the connector's answer (as
// Options.Results rewrites it), the call's summary, and a tool-level
// error when the call is not a success.
func (e *Engine) Call(ctx context.Context, info *callinfo.Info, t *Tool, args json.RawMessage) (connector.CallResult, callinfo.Summary, *CallError) {
	out, sum, cerr := e.call(ctx, info, t, args)
	if cerr == nil && e.o.Results != nil {
		out = e.o.Results(t.Platform.Manifest.ID, out)
	}
	return out, sum, cerr
}

func (e *Engine) call(ctx context.Context, info *callinfo.Info, t *Tool, args json.RawMessage) (connector.CallResult, callinfo.Summary, *CallError) {
	ctx = callinfo.With(ctx, info)
	p := t.Platform
	title := p.Manifest.Title
	args = AbsentArgs(args)
	// A repeated question whose answers are all still cached is answered
	// from the kept result, without running the connector, and without
	// checking the arguments again: a result is kept only after its
	// arguments passed the tool's schema, and its key holds their
	// canonical form (the decoded value the schema judged) and the
	// module's stamp (which fixes the schema), so the same key can only
	// come from arguments that pass. That check was the costliest step
	// of a repeated call that remained ours (RATIONALE, "What a repeated
	// call costs").
	var memoKey []byte
	if e.o.Memo != nil {
		if k, ok := e.o.Memo.Key(p.Manifest.ID, p.Stamp, t.Def.Name, args); ok {
			memoKey = k
			if out, classes, ok := e.o.Memo.Get(k); ok {
				info.AddFetch(callinfo.Hit, 0, 0)
				tracing.Current(ctx).SetBool("besluitbron.kept_result", true)
				if p.Reused != nil {
					p.Reused(classes)
				}
				return out, info.Summary(), nil // checked when kept
			}
		}
	}
	args, err := t.Args.Check(args)
	if err != nil {
		return connector.CallResult{}, info.Summary(), failed("invalid_arguments", fmt.Sprintf("%s: invalid arguments for %s: %v", title, t.Full, err))
	}
	if release, ok := instanceFrom(ctx, p.Admission); ok {
		defer release() // admitted by the MCP edge (instance.go)
	} else if adm := p.Admission; adm != nil {
		session := info.ChargedTo()
		actx, span := tracing.Start(ctx, "admission wait", time.Time{})
		if span.Recording() {
			// Read only for the trace: Stats takes the admission's lock.
			free, waiting := adm.Stats()
			span.SetInt("besluitbron.instances.free", int64(free))
			span.SetInt("besluitbron.queue.length", int64(waiting))
			span.SetFloat("besluitbron.session.weight", adm.Weight(session))
		}
		release, err := adm.AcquireNotify(actx, session, info.OnInstanceWait)
		span.FailErr(err)
		span.EndWait()
		if err != nil {
			return connector.CallResult{}, info.Summary(), failed("busy", fmt.Sprintf("%s: every instance of the connector is busy and the call ended first: %v", title, err))
		}
		defer release()
	}
	host := p.Host
	if wrap, ok := ctx.Value(hostWrapKey{}).(func(connector.Host, string) connector.Host); ok && wrap != nil {
		host = wrap(host, p.Manifest.ID)
	}
	rctx, span := tracing.Start(ctx, "connector run", time.Time{})
	span.SetString("besluitbron.platform", p.Manifest.ID)
	span.SetString("besluitbron.tool", t.Def.Name)
	out, err := p.Connector.Call(rctx, connector.CallRequest{Tool: t.Def.Name, Arguments: args}, host)
	span.FailErr(err)
	span.End()
	sum := info.Summary()
	if err != nil {
		info.Failed()
		return connector.CallResult{}, sum, failed("connector_error", fmt.Sprintf("%s: the connector failed: %v", title, err))
	}
	if cerr := check(title, out); cerr != nil {
		info.Failed()
		return out, sum, cerr
	}
	// Structured content is a JSON object or nothing; checked here once,
	// so that a kept result is not checked again on every repeat.
	if len(out.Structured) > 0 && !(json.Valid(out.Structured) && bytes.HasPrefix(bytes.TrimSpace(out.Structured), []byte("{"))) {
		out.Structured = nil
	}
	if memoKey != nil && !sum.ValidUntil.IsZero() {
		e.o.Memo.Put(memoKey, out, sum.Classes, sum.ValidUntil)
	}
	return out, sum, nil
}

// check turns a connector's tool error, or a content item that is not
// what it claims to be (a connector's output is never trusted), into the
// call's error.
func check(title string, out connector.CallResult) *CallError {
	if out.IsError {
		return failed("", fmt.Sprintf("%s: %s", title, out.Text))
	}
	for i, c := range out.Content {
		if err := c.Validate(); err != nil {
			return failed("", fmt.Sprintf("%s: the connector returned bad content: content[%d]: %v", title, i, err))
		}
	}
	return nil
}

// textBytes is the size of an answer's text in its MCP form: the text
// with the host's notes, and the text items.
func textBytes(out connector.CallResult, sum callinfo.Summary) int {
	n := len(out.Text)
	if len(sum.Notes) > 0 {
		n += len("\n\nNote: ") + len(strings.Join(sum.Notes, "\nNote: "))
	}
	for _, c := range out.Content {
		switch c.Type {
		case connector.ContentImage, connector.ContentAudio, connector.ContentResource:
		default:
			n += len(c.Text)
		}
	}
	return n
}

// Record logs a finished tool call, MCP or internal, and tells the
// observer. size is the bytes of text the result carries (in MCP form);
// an empty outcome is "ok", or "tool_error" when isError.
func (e *Engine) Record(ctx context.Context, tool, platform string, info *callinfo.Info, start time.Time, outcome string, isError bool, size int, errText string) {
	sum := info.Summary()
	if outcome == "" {
		outcome = "ok"
		if isError {
			outcome = "tool_error"
		}
	}
	elapsed := time.Since(start)
	// With ctx: a traced call's line carries its trace and span ids.
	e.o.Logger.InfoContext(ctx, "tool call", "session", info.Session, "client", info.Label, "tool", tool, "outcome", outcome, "cache", sum.Cache,
		"queued_ms", sum.Queued.Milliseconds(), "upstream_ms", sum.Upstream.Milliseconds(), "elapsed_ms", elapsed.Milliseconds(),
		"result_bytes", size, "error", errText)
	if e.o.Observe != nil {
		e.o.Observe(ctx, CallEvent{Tool: tool, Platform: platform, Session: info.Session, Client: info.Label, Outcome: outcome, Summary: sum, Bytes: size, Err: errText, Elapsed: elapsed.Seconds()})
	}
}

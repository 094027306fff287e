package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Invoke runs a connector tool by full name ("<id>_<tool>") for the host's
// own features, with the validation, kept results, admission and cache of
// an MCP call, and returns the connector's answer without converting it to
// MCP. It and [Server.Call] share one path (invoke); a client's call is
// invoke plus the MCP edge (run). The call is logged and observed as an
// MCP call is, with the same outcome and size.
func (s *Server) Invoke(ctx context.Context, info *callinfo.Info, name string, args json.RawMessage) invoke.Answer {
	e, ok := s.tools[name]
	if !ok {
		return invoke.Answer{Err: errors.New(clipText(unknownTool(name), MaxErrorText)), Summary: callinfo.Summary{Cache: callinfo.Bypass}}
	}
	start := time.Now()
	ctx = callinfo.With(ctx, info)
	out, sum, cerr := s.invoke(ctx, info, e, args)
	a := invoke.Answer{Platform: e.platform.Manifest.ID, Result: out, Summary: sum}
	if cerr != nil {
		a.Err = cerr
		s.record(ctx, e.full, a.Platform, info, start, cerr.outcome, true, len(cerr.text), cerr.text)
		return a
	}
	s.record(ctx, e.full, a.Platform, info, start, "", false, textBytes(out, sum), "")
	return a
}

// textBytes is the size of an answer's text in its MCP form (see
// Server.result and Platform.contents): the text with the host's notes,
// and the text items.
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

func unknownTool(name string) string { return fmt.Sprintf("unknown tool %q", name) }

// callError is a tool-level error of invoke: its text as a client sees
// it (already cut at MaxErrorText) and the outcome the metrics count it
// under ("" for a tool error the connector answered: "tool_error").
type callError struct {
	outcome string
	text    string
}

func (e *callError) Error() string { return e.text }

func failed(outcome, msg string) *callError {
	return &callError{outcome: outcome, text: clipText(msg, MaxErrorText)}
}

// invoke validates the arguments, answers from a kept result when it can,
// waits for an instance (admission), runs the connector and keeps its
// result. It returns the connector's answer, the call's summary, and a
// tool-level error when the call is not a success.
func (s *Server) invoke(ctx context.Context, info *callinfo.Info, e *toolEntry, args json.RawMessage) (connector.CallResult, callinfo.Summary, *callError) {
	ctx = callinfo.With(ctx, info)
	title := e.platform.Manifest.Title
	args = absentArgs(args)
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
	if s.o.Memo != nil {
		if k, ok := s.o.Memo.Key(e.platform.Manifest.ID, e.platform.Stamp, e.tool.Name, args); ok {
			memoKey = k
			if out, classes, ok := s.o.Memo.Get(k); ok {
				info.AddFetch(callinfo.Hit, 0, 0)
				if e.platform.Reused != nil {
					e.platform.Reused(classes)
				}
				return out, info.Summary(), nil // checked when kept
			}
		}
	}
	args, err := s.validate(e, args)
	if err != nil {
		return connector.CallResult{}, info.Summary(), failed("invalid_arguments", fmt.Sprintf("%s: invalid arguments for %s: %v", title, e.full, err))
	}
	if adm := e.platform.Admission; adm != nil {
		release, err := adm.Acquire(ctx, info.ChargedTo())
		if err != nil {
			return connector.CallResult{}, info.Summary(), failed("busy", fmt.Sprintf("%s: every instance of the connector is busy and the call ended first: %v", title, err))
		}
		defer release()
	}
	host := e.platform.Host
	if c := clientFrom(ctx); c != nil {
		host = clientHost{Host: host, c: c, logger: e.platform.Manifest.ID}
	}
	out, err := e.platform.Connector.Call(ctx, connector.CallRequest{Tool: e.tool.Name, Arguments: args}, host)
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
		s.o.Memo.Put(memoKey, out, sum.Classes, sum.ValidUntil)
	}
	return out, sum, nil
}

// check turns a connector's tool error, or a content item that is not
// what it claims to be (a connector's output is never trusted), into the
// call's error.
func check(title string, out connector.CallResult) *callError {
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

package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"unsafe"

	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/internal/codec"
)

// ToolFunc is one tool's logic: arguments in, a JSON-marshallable result
// out. A returned error becomes a tool error (isError) whose message the
// host prefixes with the platform's name, so say what went wrong in the
// platform's terms ("search: organization \"x\" is unknown").
type ToolFunc func(ctx context.Context, h connector.Host, args json.RawMessage) (any, error)

// Plugin is a connector written in Go: its manifest and its tools. A
// *Plugin is itself a [connector.Connector], so tests run it in-process;
// [Export] makes it the module's connector in the WebAssembly build.
//
// A Plugin must not be changed after it is exported or handed to a host.
// Call is safe for concurrent use if the ToolFuncs are.
type Plugin struct {
	Manifest connector.Manifest
	Tools    map[string]ToolFunc
}

// Describe returns a copy of the manifest.
func (p *Plugin) Describe(context.Context) (connector.Manifest, error) {
	if err := p.check(); err != nil {
		return connector.Manifest{}, err
	}
	return p.Manifest.Clone(), nil
}

func (p *Plugin) check() error {
	var missing, extra []string
	declared := map[string]bool{}
	for _, t := range p.Manifest.Tools {
		declared[t.Name] = true
		if p.Tools[t.Name] == nil {
			missing = append(missing, t.Name)
		}
	}
	for name := range p.Tools {
		if !declared[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	if len(missing) > 0 || len(extra) > 0 {
		return fmt.Errorf("sdk: connector %q: tools declared without a function %v, functions without a declaration %v", p.Manifest.ID, missing, extra)
	}
	return nil
}

// Call runs one tool. A panic in a tool becomes an error, so that one bad
// input never takes the process down.
func (p *Plugin) Call(ctx context.Context, req connector.CallRequest, h connector.Host) (res connector.CallResult, err error) {
	return p.call(ctx, req, h, false)
}

// call is Call; with shareText, a result's Text shares the bytes of its
// Structured instead of being a copy, for a caller that only reads it
// and lets go of both (the WebAssembly glue, which encodes them at once:
// the copy was an allocation and a copy of the whole result a call).
func (p *Plugin) call(ctx context.Context, req connector.CallRequest, h connector.Host, shareText bool) (res connector.CallResult, err error) {
	fn := p.Tools[req.Tool]
	if fn == nil {
		return connector.CallResult{IsError: true, Text: fmt.Sprintf("unknown tool %q", req.Tool)}, nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("sdk: tool %q panicked: %v\n%s", req.Tool, r, debug.Stack())
		}
	}()
	args := req.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	out, ferr := fn(ctx, h, args)
	if ferr != nil {
		return connector.CallResult{IsError: true, Text: ferr.Error()}, nil
	}
	return result(out, shareText)
}

// Result turns a tool's value into a CallResult: the JSON text for the
// model and the same object as structured content. A value that is a
// connector.CallResult is passed through.
func Result(v any) (connector.CallResult, error) { return result(v, false) }

func result(v any, shareText bool) (connector.CallResult, error) {
	if r, ok := v.(connector.CallResult); ok {
		return r, nil
	}
	b, err := codec.Marshal(v)
	if err != nil {
		return connector.CallResult{}, fmt.Errorf("sdk: encoding result: %w", err)
	}
	var res connector.CallResult
	if shareText {
		res.Text = unsafe.String(unsafe.SliceData(b), len(b))
	} else {
		res.Text = string(b)
	}
	if len(b) > 0 && b[0] == '{' {
		res.Structured = b
	}
	return res, nil
}

// Close does nothing: an in-process plugin holds no resources.
func (p *Plugin) Close(context.Context) error { return nil }

// DecodeArgs decodes a tool's arguments into v, refusing unknown fields, and
// names the argument in its error. The host has already checked them
// against the input schema; this is the second line of defence.
func DecodeArgs(args json.RawMessage, v any) error {
	if err := codec.DecodeStrict(args, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("argument %q: want %s, got %s", te.Field, te.Type, te.Value)
		}
		return fmt.Errorf("arguments: %v", err)
	}
	return nil
}

var _ connector.Connector = (*Plugin)(nil)

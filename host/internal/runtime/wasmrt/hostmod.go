package wasmrt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/besluitbron/besluitbron/host/internal/runtime/clientcall"
	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmbudget"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/wasmabi"
)

// maxFetchRequest caps a guest's fetch request JSON (URL, headers, body).
const maxFetchRequest = 4 << 20

// maxTextPut caps a guest's text_put JSON: an extracted text of tens of
// megabytes is already more than any platform cache keeps.
const maxTextPut = 64 << 20

// callState is one export call's input, output and pending fetch reply. It
// travels in the context wazero passes to host functions.
type callState struct {
	input     []byte
	output    []byte
	reply     []byte
	replyBody []byte // the rest of a fetch reply, after reply (see fetch_read)
	host      connector.Host
	gate      *clientcall.Gate // the connector's granted client features
	maxOutput int
	logger    *slog.Logger
	id        string
	err       error // a host-side refusal that must fail the call
	// binary is set for a module of ABI version 2: fetch and text_page
	// requests and replies are package wasmabi's encoding, not JSON.
	binary bool
}

type stateKey struct{}

func withState(ctx context.Context, st *callState) context.Context {
	return context.WithValue(ctx, stateKey{}, st)
}

func state(ctx context.Context) *callState {
	st, _ := ctx.Value(stateKey{}).(*callState)
	if st == nil {
		panic(errors.New("besluitbron host function called outside a call"))
	}
	return st
}

// read copies guest memory, trapping the guest on an out-of-range pointer.
func read(mod api.Module, ptr, size uint32) []byte {
	b, ok := mod.Memory().Read(ptr, size)
	if !ok {
		panic(fmt.Errorf("guest passed out-of-range memory %d+%d", ptr, size))
	}
	return append([]byte(nil), b...)
}

func write(mod api.Module, ptr uint32, b []byte) {
	if !mod.Memory().Write(ptr, b) {
		panic(fmt.Errorf("guest passed out-of-range memory %d+%d", ptr, len(b)))
	}
}

// checkBudget is how many loop iterations a guest runs between two
// interrupt checks: about a millisecond of a tight loop, so a call past
// its deadline stops within a millisecond or so, and the exits to Go cost
// nothing measurable.
const checkBudget = 1 << 16

// interruptCheck is what the instrumented loops call when their budget is
// spent (see package wasmbudget): a new budget, or a trap once the call's
// context has ended. It also runs outside calls (in _initialize), so it
// needs no call state.
func interruptCheck(ctx context.Context) uint32 {
	if err := ctx.Err(); err != nil {
		panic(err)
	}
	return checkBudget
}

// i32 is the one value type of the hot host functions' parameters and
// results.
var i32 = api.ValueTypeI32

// The hot host functions are api.GoModuleFunc: wazero calls them without
// reflection, which WithFunc's typed functions go through (a microsecond
// or so per call, several calls a tool call).
func instantiateHostModule(ctx context.Context, r wazero.Runtime) error {
	b := r.NewHostModuleBuilder("besluitbron")
	fn := func(name string, f api.GoModuleFunc, params, results []api.ValueType) {
		b.NewFunctionBuilder().WithGoModuleFunction(f, params, results).Export(name)
	}
	fn("input_size", func(ctx context.Context, _ api.Module, stack []uint64) {
		stack[0] = uint64(len(state(ctx).input))
	}, nil, []api.ValueType{i32})
	fn("input_read", func(ctx context.Context, mod api.Module, stack []uint64) {
		write(mod, uint32(stack[0]), state(ctx).input)
	}, []api.ValueType{i32}, nil)
	fn("output_write", func(ctx context.Context, mod api.Module, stack []uint64) {
		ptr, size := uint32(stack[0]), uint32(stack[1])
		st := state(ctx)
		if int(size) > st.maxOutput {
			st.err = fmt.Errorf("result of %d bytes exceeds the %d-byte limit", size, st.maxOutput)
			panic(st.err)
		}
		st.output = read(mod, ptr, size)
	}, []api.ValueType{i32, i32}, nil)
	fn("fetch", func(ctx context.Context, mod api.Module, stack []uint64) {
		stack[0] = uint64(hostFetch(ctx, mod, uint32(stack[0]), uint32(stack[1])))
	}, []api.ValueType{i32, i32}, []api.ValueType{i32})
	fn("text_page", func(ctx context.Context, mod api.Module, stack []uint64) {
		stack[0] = uint64(hostTextPage(ctx, mod, uint32(stack[0]), uint32(stack[1])))
	}, []api.ValueType{i32, i32}, []api.ValueType{i32})
	fn("fetch_read", func(ctx context.Context, mod api.Module, stack []uint64) {
		st := state(ctx)
		ptr, n := uint32(stack[0]), len(st.reply)
		if len(st.replyBody) > 0 {
			if uint64(ptr)+uint64(n)+uint64(len(st.replyBody)) > uint64(mod.Memory().Size()) {
				panic(fmt.Errorf("guest passed out-of-range memory %d+%d", ptr, n+len(st.replyBody)))
			}
			write(mod, ptr+uint32(n), st.replyBody)
		}
		write(mod, ptr, st.reply)
		st.reply, st.replyBody = nil, nil
	}, []api.ValueType{i32}, nil)
	fn(wasmbudget.ImportName, func(ctx context.Context, _ api.Module, stack []uint64) {
		stack[0] = uint64(interruptCheck(ctx))
	}, nil, []api.ValueType{i32})
	_, err := b.
		NewFunctionBuilder().WithFunc(hostTextPut).Export("text_put").
		NewFunctionBuilder().WithFunc(func(ctx context.Context, mod api.Module, level int32, ptr, size uint32) {
		st := state(ctx)
		if size > 64<<10 {
			size = 64 << 10
		}
		msg := string(read(mod, ptr, size))
		if st.host != nil {
			// The host's Log records the line with the call's session
			// (and may pass it on to the MCP client), as for native
			// connectors.
			st.host.Log(ctx, int(level), msg)
			return
		}
		st.logger.Log(ctx, slog.Level(level), msg, "connector", st.id)
	}).Export("log").
		NewFunctionBuilder().WithFunc(func(ctx context.Context, mod api.Module, done, total float64, ptr, size uint32) {
		st := state(ctx)
		if size > 4<<10 {
			size = 4 << 10
		}
		msg := string(read(mod, ptr, size))
		if p, ok := st.host.(connector.Progresser); ok {
			p.Progress(ctx, done, total, msg)
		}
	}).Export("progress").
		NewFunctionBuilder().WithFunc(hostClientElicit).Export("client_elicit").
		NewFunctionBuilder().WithFunc(hostClientSample).Export("client_sample").
		NewFunctionBuilder().WithFunc(hostClientRoots).Export("client_roots").
		Instantiate(ctx)
	return err
}

func hostFetch(ctx context.Context, mod api.Module, ptr, size uint32) uint32 {
	st := state(ctx)
	var rep connector.FetchReply
	if size > maxFetchRequest {
		rep.Error = &connector.FetchError{Kind: connector.FetchRefused, Message: fmt.Sprintf("fetch request of %d bytes exceeds %d", size, maxFetchRequest)}
	} else {
		req, err := st.decodeFetchRequest(read(mod, ptr, size))
		if err != nil {
			rep.Error = &connector.FetchError{Kind: connector.FetchRefused, Message: "malformed fetch request: " + err.Error()}
		} else if st.host == nil {
			rep.Error = &connector.FetchError{Kind: connector.FetchRefused, Message: "fetch is not available here"}
		} else {
			resp, err := st.host.Fetch(ctx, req)
			var fe *connector.FetchError
			switch {
			case err == nil:
				rep.Response = &resp
			case errors.As(err, &fe):
				rep.Error = fe
			default:
				rep.Error = &connector.FetchError{Kind: connector.FetchUnavailable, Message: err.Error()}
			}
		}
	}
	if st.binary {
		if rep.Response != nil {
			rep.Response = &connector.FetchResponse{Status: rep.Response.Status, Header: validMap(rep.Response.Header), Body: rep.Response.Body}
		} else {
			rep.Error = validError(rep.Error)
		}
		// The body is written into guest memory from where it is, not
		// copied into the reply first (a judgement is megabytes).
		st.reply = wasmabi.AppendFetchReplyHead(st.reply[:0], rep)
		st.replyBody = nil
		if rep.Response != nil {
			st.replyBody = rep.Response.Body
		}
		return uint32(len(st.reply) + len(st.replyBody))
	}
	return st.setReply(rep)
}

func (st *callState) decodeFetchRequest(b []byte) (connector.FetchRequest, error) {
	var req connector.FetchRequest
	if st.binary {
		return wasmabi.DecodeFetchRequest(b)
	}
	err := json.Unmarshal(b, &req)
	return req, err
}

// validMap is m with its keys and values valid UTF-8, as JSON carried
// them in version 1.
func validMap(m map[string]string) map[string]string {
	for k, v := range m {
		if k != wasmabi.ValidString(k) || v != wasmabi.ValidString(v) {
			n := make(map[string]string, len(m))
			for k, v := range m {
				n[wasmabi.ValidString(k)] = wasmabi.ValidString(v)
			}
			return n
		}
	}
	return m
}

// validError is e with valid UTF-8 strings. The guest's decoder also
// replaces invalid bytes; doing it here keeps the reply's size honest.
func validError(e *connector.FetchError) *connector.FetchError {
	if e == nil {
		return nil
	}
	return &connector.FetchError{Kind: wasmabi.ValidString(e.Kind), Message: wasmabi.ValidString(e.Message)}
}

// hostTextPage answers a guest's connector.TextRequest with a
// connector.TextReply, left for fetch_read like a fetch reply; it returns
// the reply's size.
func hostTextPage(ctx context.Context, mod api.Module, ptr, size uint32) uint32 {
	st := state(ctx)
	var rep connector.TextReply
	var req connector.TextRequest
	store, _ := st.host.(connector.TextStore)
	switch {
	case size > connector.MaxTextKey+1024:
		rep.Error = &connector.FetchError{Kind: connector.FetchRefused, Message: fmt.Sprintf("text request of %d bytes is too large", size)}
	case st.decodeTextRequest(read(mod, ptr, size), &req) != nil:
		rep.Error = &connector.FetchError{Kind: connector.FetchRefused, Message: "malformed text request"}
	case store == nil:
		// A host without a text store keeps nothing: the guest extracts.
	default:
		page, ok, err := store.TextPage(ctx, req.TextKey, req.Page)
		switch {
		case err != nil:
			rep.Error = fetchError(err)
		case ok:
			rep.Found, rep.Page = true, &page
		}
	}
	if st.binary {
		if rep.Page != nil {
			head, err := wasmabi.CompactJSON(rep.Page.Head)
			if err != nil {
				panic(err) // as json.Marshal's error in setReply
			}
			p := *rep.Page
			p.Head, p.Text = head, wasmabi.ValidString(p.Text)
			rep.Page = &p
		}
		rep.Error = validError(rep.Error)
		st.reply, st.replyBody = wasmabi.AppendTextReply(st.reply[:0], rep), nil
		return uint32(len(st.reply))
	}
	return st.setReply(rep)
}

func (st *callState) decodeTextRequest(b []byte, req *connector.TextRequest) error {
	if st.binary {
		r, err := wasmabi.DecodeTextRequest(b)
		*req = r
		return err
	}
	return json.Unmarshal(b, req)
}

// hostTextPut keeps a guest's connector.ExtractedText. It returns 0, or
// the size of a connector.TextReply carrying the refusal.
func hostTextPut(ctx context.Context, mod api.Module, ptr, size uint32) uint32 {
	st := state(ctx)
	var rep connector.TextReply
	var t connector.ExtractedText
	store, _ := st.host.(connector.TextStore)
	switch {
	case size > maxTextPut:
		rep.Error = &connector.FetchError{Kind: connector.FetchRefused, Message: fmt.Sprintf("text of %d bytes exceeds %d", size, maxTextPut)}
	case store == nil:
		return 0
	default:
		if err := st.decodeExtractedText(read(mod, ptr, size), &t); err != nil {
			rep.Error = &connector.FetchError{Kind: connector.FetchRefused, Message: "malformed text: " + err.Error()}
		} else if err := t.Validate(); err != nil {
			rep.Error = &connector.FetchError{Kind: connector.FetchRefused, Message: err.Error()}
		} else if err := store.PutText(ctx, t); err != nil {
			rep.Error = fetchError(err)
		}
	}
	if rep.Error == nil {
		return 0
	}
	if st.binary {
		rep.Error = validError(rep.Error)
		st.reply, st.replyBody = wasmabi.AppendTextReply(st.reply[:0], rep), nil
		return uint32(len(st.reply))
	}
	return st.setReply(rep)
}

// decodeExtractedText reads a text to keep: for version 2 its head is
// checked and compacted here, as version 1's guest encoded it (without
// escaping HTML) and json.Unmarshal checked it.
func (st *callState) decodeExtractedText(b []byte, t *connector.ExtractedText) error {
	if !st.binary {
		return json.Unmarshal(b, t)
	}
	r, err := wasmabi.DecodeExtractedText(b)
	if err != nil {
		return err
	}
	if len(r.Head) > 0 {
		var head bytes.Buffer
		if err := json.Compact(&head, r.Head); err != nil {
			return err
		}
		r.Head = head.Bytes()
	}
	*t = r
	return nil
}

// The client features' requests are small: a message and a form, or a
// conversation for the model. Larger ones are refused unread.
const (
	maxElicitRequest = connector.MaxElicitMessage + connector.MaxElicitSchema + 1024
	maxSampleRequest = connector.MaxSampleRequest + 1024
)

// hostClientElicit forwards a guest's connector.ElicitRequest to the
// connector's gate, which checks the grant and asks the call's MCP client;
// it returns the size of the connector.ClientReply left for fetch_read.
// The guest waits here for a person: the gate stops the call's deadline
// meanwhile (see clientcall).
func hostClientElicit(ctx context.Context, mod api.Module, ptr, size uint32) uint32 {
	st := state(ctx)
	var rep connector.ClientReply
	var req connector.ElicitRequest
	switch {
	case size > maxElicitRequest:
		rep.Error = refused(connector.FeatureElicitation, fmt.Sprintf("elicitation request of %d bytes exceeds %d", size, maxElicitRequest))
	case json.Unmarshal(read(mod, ptr, size), &req) != nil:
		rep.Error = refused(connector.FeatureElicitation, "malformed elicitation request")
	default:
		res, err := st.gate.Elicit(ctx, st.host, req)
		if err != nil {
			rep.Error = connector.AsClientError(connector.FeatureElicitation, err)
		} else {
			rep.Elicit = &res
		}
	}
	return st.setReply(rep)
}

// hostClientSample forwards a guest's connector.SampleRequest, as
// hostClientElicit does an elicitation.
func hostClientSample(ctx context.Context, mod api.Module, ptr, size uint32) uint32 {
	st := state(ctx)
	var rep connector.ClientReply
	var req connector.SampleRequest
	switch {
	case size > maxSampleRequest:
		rep.Error = refused(connector.FeatureSampling, fmt.Sprintf("sampling request of %d bytes exceeds %d", size, maxSampleRequest))
	case json.Unmarshal(read(mod, ptr, size), &req) != nil:
		rep.Error = refused(connector.FeatureSampling, "malformed sampling request")
	default:
		res, err := st.gate.CreateMessage(ctx, st.host, req)
		if err != nil {
			rep.Error = connector.AsClientError(connector.FeatureSampling, err)
		} else {
			rep.Sample = &res
		}
	}
	return st.setReply(rep)
}

// hostClientRoots asks the call's MCP client for its roots.
func hostClientRoots(ctx context.Context) uint32 {
	st := state(ctx)
	var rep connector.ClientReply
	res, err := st.gate.ListRoots(ctx, st.host)
	if err != nil {
		rep.Error = connector.AsClientError(connector.FeatureRoots, err)
	} else {
		rep.Roots = &res
	}
	return st.setReply(rep)
}

func refused(feature, msg string) *connector.ClientError {
	return &connector.ClientError{Kind: connector.ClientRefused, Feature: feature, Message: msg}
}

// fetchError is err as the guest sees it.
func fetchError(err error) *connector.FetchError {
	var fe *connector.FetchError
	if errors.As(err, &fe) {
		return fe
	}
	return &connector.FetchError{Kind: connector.FetchUnavailable, Message: err.Error()}
}

// setReply encodes v as the reply fetch_read hands the guest next, and
// returns its size.
func (st *callState) setReply(v any) uint32 {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	st.reply, st.replyBody = b, nil
	return uint32(len(b))
}

// logWriter collects a guest's stderr (a Go guest prints its fatal errors
// and panics there) for one call, capped so a chatty guest cannot flood the
// host's memory or log.
type logWriter struct {
	mu  sync.Mutex
	buf []byte
}

const maxStderr = 16 << 10

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := maxStderr - len(w.buf); room > 0 {
		if len(p) > room {
			w.buf = append(w.buf, p[:room]...)
		} else {
			w.buf = append(w.buf, p...)
		}
	}
	return len(p), nil
}

// buf2 returns what was written, without clearing it.
func (w *logWriter) buf2() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}

// take returns and clears what was written.
func (w *logWriter) take() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := strings.TrimSpace(string(w.buf))
	w.buf = w.buf[:0]
	return s
}

// firstLine is the headline of a guest's stderr, such as
// "fatal error: runtime: out of memory".
func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return clip(line, 300)
		}
	}
	return ""
}

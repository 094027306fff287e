package nativewire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Client is the host's side of one connector process: a
// [connector.Connector] whose calls run in the process, and the Host
// service the process calls back for its fetches and log lines.
//
// A Client does not own the process: Close does nothing, and the host's
// runtime kills and restarts processes. A Client is safe for concurrent
// use.
type Client struct {
	conn     *grpc.ClientConn
	manifest connector.Manifest

	mu    sync.Mutex
	next  uint64
	calls map[uint64]*inflight
}

// inflight answers the callbacks of one call. The functions close over the
// call's context: the host must answer a fetch with the caller's session,
// accounting and cancellation, which live in that context, and a closure
// keeps the context where it belongs, in the call's frame.
type inflight struct {
	ctx      context.Context // the call's: the text store reads its accounting
	fetch    func(context.Context, connector.FetchRequest) (connector.FetchResponse, error)
	log      func(context.Context, int, string)
	progress func(done, total float64, message string) // nil when the host has no Progress
	texts    connector.TextStore                       // nil when the host keeps no texts
	client   connector.Client                          // nil when the host offers no client features
}

// hostServer is the handler type of the Host service.
type hostServer interface {
	fetch(context.Context, *FetchArgs) (*connector.FetchReply, error)
	log(context.Context, *LogArgs) (*empty, error)
	progress(context.Context, *ProgressArgs) (*empty, error)
	textPage(context.Context, *TextPageArgs) (*connector.TextReply, error)
	textPut(context.Context, *TextPutArgs) (*connector.TextReply, error)
	clientElicit(context.Context, *ClientElicitArgs) (*connector.ClientReply, error)
	clientSample(context.Context, *ClientSampleArgs) (*connector.ClientReply, error)
	clientRoots(context.Context, *ClientRootsArgs) (*connector.ClientReply, error)
}

var hostDesc = grpc.ServiceDesc{
	ServiceName: hostService,
	HandlerType: (*hostServer)(nil),
	Methods: []grpc.MethodDesc{
		{MethodName: "Fetch", Handler: unary(methodFetch, hostServer.fetch)},
		{MethodName: "Log", Handler: unary(methodLog, hostServer.log)},
		{MethodName: "Progress", Handler: unary(methodProgress, hostServer.progress)},
		{MethodName: "TextPage", Handler: unary(methodTextPage, hostServer.textPage)},
		{MethodName: "TextPut", Handler: unary(methodTextPut, hostServer.textPut)},
		{MethodName: "ClientElicit", Handler: unary(methodClientElicit, hostServer.clientElicit)},
		{MethodName: "ClientSample", Handler: unary(methodClientSample, hostServer.clientSample)},
		{MethodName: "ClientRoots", Handler: unary(methodClientRoots, hostServer.clientRoots)},
	},
	Metadata: "besluitbron/sdk/native/internal/nativewire",
}

// Open starts a session on conn, a fresh process's gRPC connection.
// serveHost must start serving the Host service (it is given the function
// that registers it on a *grpc.Server) where the process can dial it, and
// return the broker id it serves on. Open fails with an error wrapping
// connector.ErrABIMismatch when the process speaks another ABI version.
func Open(ctx context.Context, conn *grpc.ClientConn, serveHost func(register func(*grpc.Server)) uint32) (*Client, error) {
	c := &Client{conn: conn, calls: map[uint64]*inflight{}}
	id := serveHost(func(s *grpc.Server) { s.RegisterService(&hostDesc, c) })
	var rep OpenReply
	if err := conn.Invoke(ctx, methodOpen, &OpenArgs{ABI: connector.ABIVersion, HostService: id}, &rep, callOpts...); err != nil {
		if s, ok := status.FromError(err); ok && s.Code() == codes.FailedPrecondition {
			return nil, fmt.Errorf("open: %s: %w", s.Message(), connector.ErrABIMismatch)
		}
		return nil, fmt.Errorf("open: %w", fromStatus(err))
	}
	if rep.ABI != connector.ABIVersion {
		return nil, &connector.ABIError{Connector: rep.Manifest.ID, Got: rep.ABI, Want: connector.ABIVersion}
	}
	c.manifest = rep.Manifest
	return c, nil
}

// Describe returns a copy of the manifest the process gave at Open.
func (c *Client) Describe(context.Context) (connector.Manifest, error) {
	return c.manifest.Clone(), nil
}

// Call runs one tool call in the process; the process's fetches and log
// lines during the call are answered by h under ctx.
func (c *Client) Call(ctx context.Context, req connector.CallRequest, h connector.Host) (connector.CallResult, error) {
	switch {
	case len(req.Arguments) == 0:
		req.Arguments = nil // travels as null, which the sdk reads as {}
	case !json.Valid(req.Arguments):
		return connector.CallResult{}, fmt.Errorf("arguments of %q are not valid JSON", req.Tool)
	}
	call := &inflight{
		fetch: func(cb context.Context, r connector.FetchRequest) (connector.FetchResponse, error) {
			fctx, cancel := merge(ctx, cb)
			defer cancel()
			return h.Fetch(fctx, r)
		},
		log: func(_ context.Context, level int, msg string) { h.Log(ctx, level, msg) },
	}
	if p, ok := h.(progresser); ok {
		call.progress = func(done, total float64, msg string) { p.Progress(ctx, done, total, msg) }
	}
	call.texts, _ = h.(connector.TextStore)
	call.client, _ = h.(connector.Client)
	call.ctx = ctx
	c.mu.Lock()
	c.next++
	id := c.next
	c.calls[id] = call
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.calls, id)
		c.mu.Unlock()
	}()
	var res connector.CallResult
	// The call's deadline is the host's to keep: it stops while the call
	// waits for a person (a client feature), which a deadline sent to the
	// process could not. The process still ends when ctx does: gRPC
	// cancels the call.
	if err := c.conn.Invoke(withoutDeadline{ctx}, methodCall, &CallArgs{CallID: id, Request: req}, &res, callOpts...); err != nil {
		return connector.CallResult{}, fromStatus(err)
	}
	return res, nil
}

// merge returns a context with call's values that ends when either call
// or cb (the callback's own gRPC context: the process gave up on the
// fetch, or went away) ends.
func merge(call, cb context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(call)
	stop := context.AfterFunc(cb, cancel)
	return ctx, func() { stop(); cancel() }
}

// withoutDeadline is a context that ends when its parent does but reports
// no deadline, so gRPC sends none to the process.
type withoutDeadline struct{ context.Context }

func (withoutDeadline) Deadline() (time.Time, bool) { return time.Time{}, false }

// Close does nothing: the process belongs to the runtime that started it.
func (c *Client) Close(context.Context) error { return nil }

func (c *Client) lookup(id uint64) *inflight {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[id]
}

func (c *Client) fetch(ctx context.Context, a *FetchArgs) (*connector.FetchReply, error) {
	call := c.lookup(a.CallID)
	if call == nil {
		return &connector.FetchReply{Error: &connector.FetchError{Kind: connector.FetchRefused, Message: fmt.Sprintf("call %d is not in flight", a.CallID)}}, nil
	}
	resp, err := call.fetch(ctx, a.Request)
	var fe *connector.FetchError
	switch {
	case err == nil:
		return &connector.FetchReply{Response: &resp}, nil
	case errors.As(err, &fe):
		return &connector.FetchReply{Error: fe}, nil
	default:
		return &connector.FetchReply{Error: &connector.FetchError{Kind: connector.FetchUnavailable, Message: err.Error()}}, nil
	}
}

// maxLogLine caps one log line, as the WebAssembly runtime does.
const maxLogLine = 64 << 10

func (c *Client) log(ctx context.Context, a *LogArgs) (*empty, error) {
	if call := c.lookup(a.CallID); call != nil {
		msg := a.Message
		if len(msg) > maxLogLine {
			msg = msg[:maxLogLine]
		}
		call.log(ctx, a.Level, msg)
	}
	return &empty{}, nil
}

func (c *Client) progress(_ context.Context, a *ProgressArgs) (*empty, error) {
	if call := c.lookup(a.CallID); call != nil && call.progress != nil {
		msg := a.Message
		if len(msg) > maxLogLine {
			msg = msg[:maxLogLine]
		}
		call.progress(a.Done, a.Total, msg)
	}
	return &empty{}, nil
}

func (c *Client) textPage(cb context.Context, a *TextPageArgs) (*connector.TextReply, error) {
	call := c.lookup(a.CallID)
	if call == nil {
		return &connector.TextReply{Error: &connector.FetchError{Kind: connector.FetchRefused, Message: fmt.Sprintf("call %d is not in flight", a.CallID)}}, nil
	}
	if call.texts == nil {
		return &connector.TextReply{}, nil
	}
	ctx, cancel := merge(call.ctx, cb)
	defer cancel()
	page, ok, err := call.texts.TextPage(ctx, a.Request.TextKey, a.Request.Page)
	switch {
	case err != nil:
		return &connector.TextReply{Error: asFetchError(err)}, nil
	case !ok:
		return &connector.TextReply{}, nil
	}
	return &connector.TextReply{Found: true, Page: &page}, nil
}

func (c *Client) textPut(cb context.Context, a *TextPutArgs) (*connector.TextReply, error) {
	call := c.lookup(a.CallID)
	if call == nil {
		return &connector.TextReply{Error: &connector.FetchError{Kind: connector.FetchRefused, Message: fmt.Sprintf("call %d is not in flight", a.CallID)}}, nil
	}
	if call.texts == nil {
		return &connector.TextReply{}, nil
	}
	if err := a.Text.Validate(); err != nil {
		return &connector.TextReply{Error: &connector.FetchError{Kind: connector.FetchRefused, Message: err.Error()}}, nil
	}
	ctx, cancel := merge(call.ctx, cb)
	defer cancel()
	if err := call.texts.PutText(ctx, a.Text); err != nil {
		return &connector.TextReply{Error: asFetchError(err)}, nil
	}
	return &connector.TextReply{}, nil
}

// clientCall finds the call of a client feature's request and the
// context to answer it in, or the reply refusing it.
func (c *Client) clientCall(cb context.Context, id uint64, feature string) (*inflight, context.Context, context.CancelFunc, *connector.ClientReply) {
	call := c.lookup(id)
	switch {
	case call == nil:
		return nil, nil, nil, &connector.ClientReply{Error: &connector.ClientError{Kind: connector.ClientRefused, Feature: feature, Message: fmt.Sprintf("call %d is not in flight", id)}}
	case call.client == nil:
		return nil, nil, nil, &connector.ClientReply{Error: connector.NoClient(feature)}
	}
	ctx, cancel := merge(call.ctx, cb)
	return call, ctx, cancel, nil
}

func (c *Client) clientElicit(cb context.Context, a *ClientElicitArgs) (*connector.ClientReply, error) {
	call, ctx, cancel, refused := c.clientCall(cb, a.CallID, connector.FeatureElicitation)
	if refused != nil {
		return refused, nil
	}
	defer cancel()
	res, err := call.client.Elicit(ctx, a.Request)
	if err != nil {
		return &connector.ClientReply{Error: connector.AsClientError(connector.FeatureElicitation, err)}, nil
	}
	return &connector.ClientReply{Elicit: &res}, nil
}

func (c *Client) clientSample(cb context.Context, a *ClientSampleArgs) (*connector.ClientReply, error) {
	call, ctx, cancel, refused := c.clientCall(cb, a.CallID, connector.FeatureSampling)
	if refused != nil {
		return refused, nil
	}
	defer cancel()
	res, err := call.client.CreateMessage(ctx, a.Request)
	if err != nil {
		return &connector.ClientReply{Error: connector.AsClientError(connector.FeatureSampling, err)}, nil
	}
	return &connector.ClientReply{Sample: &res}, nil
}

func (c *Client) clientRoots(cb context.Context, a *ClientRootsArgs) (*connector.ClientReply, error) {
	call, ctx, cancel, refused := c.clientCall(cb, a.CallID, connector.FeatureRoots)
	if refused != nil {
		return refused, nil
	}
	defer cancel()
	res, err := call.client.ListRoots(ctx)
	if err != nil {
		return &connector.ClientReply{Error: connector.AsClientError(connector.FeatureRoots, err)}, nil
	}
	return &connector.ClientReply{Roots: &res}, nil
}

func asFetchError(err error) *connector.FetchError {
	var fe *connector.FetchError
	if errors.As(err, &fe) {
		return fe
	}
	return &connector.FetchError{Kind: connector.FetchUnavailable, Message: err.Error()}
}

var _ connector.Connector = (*Client)(nil)

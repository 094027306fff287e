package nativewire

import (
	"context"
	"fmt"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Server is the connector process's side: it serves Impl's Describe and
// Call, and gives Impl a [connector.Host] whose Fetch and Log go back to the
// host. A connector in a native process therefore reaches the network only
// through the host's fetch path (allowed hosts, cache, scheduler), as it
// does in WebAssembly.
//
// A Server is safe for concurrent use.
type Server struct {
	impl connector.Connector
	dial func(id uint32) (*grpc.ClientConn, error)

	mu   sync.Mutex
	host *grpc.ClientConn
}

// connectorServer is the handler type gRPC checks registrations against.
type connectorServer interface {
	open(context.Context, *OpenArgs) (*OpenReply, error)
	call(context.Context, *CallArgs) (*connector.CallResult, error)
}

var connectorDesc = grpc.ServiceDesc{
	ServiceName: connectorService,
	HandlerType: (*connectorServer)(nil),
	Methods: []grpc.MethodDesc{
		{MethodName: "Open", Handler: unary(methodOpen, connectorServer.open)},
		{MethodName: "Call", Handler: unary(methodCall, connectorServer.call)},
	},
	Metadata: "besluitbron/sdk/native/internal/nativewire",
}

// NewServer returns a Server for impl. dial connects to the host's
// callback service by its broker id (go-plugin's GRPCBroker.Dial).
func NewServer(impl connector.Connector, dial func(id uint32) (*grpc.ClientConn, error)) *Server {
	if impl == nil || dial == nil {
		panic("nativewire.NewServer: nil connector or dial")
	}
	return &Server{impl: impl, dial: dial}
}

// Register adds the Connector service to s.
func (srv *Server) Register(s *grpc.Server) { s.RegisterService(&connectorDesc, srv) }

func (srv *Server) open(ctx context.Context, a *OpenArgs) (*OpenReply, error) {
	if a.ABI != connector.ABIVersion {
		return nil, status.Errorf(codes.FailedPrecondition, "host speaks ABI version %d, this connector %d", a.ABI, connector.ABIVersion)
	}
	conn, err := srv.dial(a.HostService)
	if err != nil {
		return nil, status.Errorf(codes.Unavailable, "dialling the host's service %d: %v", a.HostService, err)
	}
	srv.mu.Lock()
	old := srv.host
	srv.host = conn
	srv.mu.Unlock()
	if old != nil {
		old.Close()
	}
	m, err := srv.impl.Describe(ctx)
	if err != nil {
		return nil, connectorFailed(err)
	}
	return &OpenReply{ABI: connector.ABIVersion, Manifest: m}, nil
}

func (srv *Server) call(ctx context.Context, a *CallArgs) (*connector.CallResult, error) {
	srv.mu.Lock()
	conn := srv.host
	srv.mu.Unlock()
	if conn == nil {
		return nil, status.Error(codes.FailedPrecondition, "Call before Open")
	}
	res, err := srv.impl.Call(ctx, a.Request, &remoteHost{conn: conn, id: a.CallID})
	if err != nil {
		return nil, connectorFailed(err)
	}
	return &res, nil
}

// remoteHost is the connector.Host of one call in the process: every
// fetch and log line goes to the host, quoting the call's id.
type remoteHost struct {
	conn *grpc.ClientConn
	id   uint64
}

func (h *remoteHost) Fetch(ctx context.Context, req connector.FetchRequest) (connector.FetchResponse, error) {
	var rep connector.FetchReply
	if err := h.conn.Invoke(ctx, methodFetch, &FetchArgs{CallID: h.id, Request: req}, &rep, callOpts...); err != nil {
		kind := connector.FetchUnavailable
		if ctx.Err() != nil {
			kind = connector.FetchCanceled
		}
		return connector.FetchResponse{}, &connector.FetchError{Kind: kind, Message: fmt.Sprintf("the host did not answer: %v", status.Convert(err).Message())}
	}
	if rep.Error != nil {
		return connector.FetchResponse{}, rep.Error
	}
	if rep.Response == nil {
		return connector.FetchResponse{}, &connector.FetchError{Kind: connector.FetchUnavailable, Message: "empty fetch reply from host"}
	}
	return *rep.Response, nil
}

func (h *remoteHost) Log(ctx context.Context, level int, msg string) {
	// A lost log line must not fail the call; the host logs transport
	// trouble on its side.
	_ = h.conn.Invoke(ctx, methodLog, &LogArgs{CallID: h.id, Level: level, Message: msg}, &empty{}, callOpts...)
}

// Progress forwards a progress report to the host; like a log line, a lost
// report does not fail the call.
func (h *remoteHost) Progress(ctx context.Context, done, total float64, message string) {
	_ = h.conn.Invoke(ctx, methodProgress, &ProgressArgs{CallID: h.id, Done: done, Total: total, Message: message}, &empty{}, callOpts...)
}

// TextPage asks the host for a page of a kept text. A host that predates
// kept texts answers Unimplemented: nothing is kept, the connector
// extracts.
func (h *remoteHost) TextPage(ctx context.Context, key connector.TextKey, n int) (connector.TextPage, bool, error) {
	var rep connector.TextReply
	if err := h.conn.Invoke(ctx, methodTextPage, &TextPageArgs{CallID: h.id, Request: connector.TextRequest{TextKey: key, Page: n}}, &rep, callOpts...); err != nil {
		if status.Code(err) == codes.Unimplemented {
			return connector.TextPage{}, false, nil
		}
		return connector.TextPage{}, false, fmt.Errorf("the host did not answer: %v", status.Convert(err).Message())
	}
	if rep.Error != nil {
		return connector.TextPage{}, false, rep.Error
	}
	if !rep.Found || rep.Page == nil {
		return connector.TextPage{}, false, nil
	}
	return *rep.Page, true, nil
}

// PutText hands the host an extracted text to keep.
func (h *remoteHost) PutText(ctx context.Context, t connector.ExtractedText) error {
	var rep connector.TextReply
	if err := h.conn.Invoke(ctx, methodTextPut, &TextPutArgs{CallID: h.id, Text: t}, &rep, callOpts...); err != nil {
		if status.Code(err) == codes.Unimplemented {
			return nil
		}
		return fmt.Errorf("the host did not answer: %v", status.Convert(err).Message())
	}
	if rep.Error != nil {
		return rep.Error
	}
	return nil
}

// clientInvoke sends one client feature's request to the host and
// returns its reply's error, if any. A host that predates the client
// features answers Unimplemented: it cannot offer them.
func (h *remoteHost) clientInvoke(ctx context.Context, method, feature string, args any, rep *connector.ClientReply) error {
	if err := h.conn.Invoke(ctx, method, args, rep, callOpts...); err != nil {
		if status.Code(err) == codes.Unimplemented {
			return connector.NoClient(feature)
		}
		return &connector.ClientError{Kind: connector.ClientFailed, Feature: feature, Message: fmt.Sprintf("%s: the host did not answer: %v", feature, status.Convert(err).Message())}
	}
	if rep.Error != nil {
		return rep.Error
	}
	return nil
}

// Elicit asks the call's MCP client, through the host, which checks the
// grant.
func (h *remoteHost) Elicit(ctx context.Context, req connector.ElicitRequest) (connector.ElicitResult, error) {
	var rep connector.ClientReply
	if err := h.clientInvoke(ctx, methodClientElicit, connector.FeatureElicitation, &ClientElicitArgs{CallID: h.id, Request: req}, &rep); err != nil {
		return connector.ElicitResult{}, err
	}
	if rep.Elicit == nil {
		return connector.ElicitResult{}, &connector.ClientError{Kind: connector.ClientFailed, Feature: connector.FeatureElicitation, Message: "empty elicitation reply from host"}
	}
	return *rep.Elicit, nil
}

// CreateMessage asks the call's MCP client's model, through the host.
func (h *remoteHost) CreateMessage(ctx context.Context, req connector.SampleRequest) (connector.SampleResult, error) {
	var rep connector.ClientReply
	if err := h.clientInvoke(ctx, methodClientSample, connector.FeatureSampling, &ClientSampleArgs{CallID: h.id, Request: req}, &rep); err != nil {
		return connector.SampleResult{}, err
	}
	if rep.Sample == nil {
		return connector.SampleResult{}, &connector.ClientError{Kind: connector.ClientFailed, Feature: connector.FeatureSampling, Message: "empty sampling reply from host"}
	}
	return *rep.Sample, nil
}

// ListRoots asks for the call's MCP client's roots, through the host.
func (h *remoteHost) ListRoots(ctx context.Context) (connector.RootsResult, error) {
	var rep connector.ClientReply
	if err := h.clientInvoke(ctx, methodClientRoots, connector.FeatureRoots, &ClientRootsArgs{CallID: h.id}, &rep); err != nil {
		return connector.RootsResult{}, err
	}
	if rep.Roots == nil {
		return connector.RootsResult{}, &connector.ClientError{Kind: connector.ClientFailed, Feature: connector.FeatureRoots, Message: "empty roots reply from host"}
	}
	return *rep.Roots, nil
}

var (
	_ connector.Client    = (*remoteHost)(nil)
	_ connector.TextStore = (*remoteHost)(nil)
	_ connector.Host      = (*remoteHost)(nil)
	_ progresser          = (*remoteHost)(nil)
)

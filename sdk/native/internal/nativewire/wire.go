package nativewire

import (
	"context"
	"errors"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Service and method names. The version in the package name changes with
// connector.ABIVersion.
const (
	connectorService = "besluitbron.connector.v1.Connector"
	hostService      = "besluitbron.connector.v1.Host"

	methodOpen  = "/" + connectorService + "/Open"
	methodCall  = "/" + connectorService + "/Call"
	methodFetch = "/" + hostService + "/Fetch"
	methodLog   = "/" + hostService + "/Log"
	// methodProgress came after version 1's first release: a host that
	// lacks it answers Unimplemented, which the process ignores.
	methodProgress = "/" + hostService + "/Progress"
	// methodTextPage and methodTextPut came later still: a host without
	// them answers Unimplemented, and the process then extracts every
	// page itself.
	methodTextPage = "/" + hostService + "/TextPage"
	methodTextPut  = "/" + hostService + "/TextPut"
	// The client features came after kept texts: a host without them
	// answers Unimplemented, which the process reports as a client
	// feature the host cannot offer (connector.ErrNoClient).
	methodClientElicit = "/" + hostService + "/ClientElicit"
	methodClientSample = "/" + hostService + "/ClientSample"
	methodClientRoots  = "/" + hostService + "/ClientRoots"
)

// OpenArgs start a session with a fresh process.
type OpenArgs struct {
	// ABI is the host's connector.ABIVersion.
	ABI uint32 `json:"abi"`
	// HostService is the GRPCBroker id the host serves Fetch and Log on.
	HostService uint32 `json:"host_service"`
}

// OpenReply is the process's answer to Open.
type OpenReply struct {
	// ABI is the connector's connector.ABIVersion.
	ABI      uint32             `json:"abi"`
	Manifest connector.Manifest `json:"manifest"`
}

// CallArgs is one tool call.
type CallArgs struct {
	// CallID names the call in the Fetch and Log callbacks it causes.
	CallID  uint64                `json:"call_id"`
	Request connector.CallRequest `json:"request"`
}

// FetchArgs is one upstream fetch a call asks the host for.
type FetchArgs struct {
	CallID  uint64                 `json:"call_id"`
	Request connector.FetchRequest `json:"request"`
}

// LogArgs is one log line of a call.
type LogArgs struct {
	CallID  uint64 `json:"call_id"`
	Level   int    `json:"level"`
	Message string `json:"message"`
}

// ProgressArgs is one progress report of a call.
type ProgressArgs struct {
	CallID  uint64  `json:"call_id"`
	Done    float64 `json:"done"`
	Total   float64 `json:"total,omitempty"`
	Message string  `json:"message,omitempty"`
}

// TextPageArgs asks for a page of a kept text.
type TextPageArgs struct {
	CallID  uint64                `json:"call_id"`
	Request connector.TextRequest `json:"request"`
}

// TextPutArgs hands the host an extracted text to keep.
type TextPutArgs struct {
	CallID uint64                  `json:"call_id"`
	Text   connector.ExtractedText `json:"text"`
}

// ClientElicitArgs is an elicitation a call asks of its MCP client.
type ClientElicitArgs struct {
	CallID  uint64                  `json:"call_id"`
	Request connector.ElicitRequest `json:"request"`
}

// ClientSampleArgs is a sampling request a call asks of its MCP client.
type ClientSampleArgs struct {
	CallID  uint64                  `json:"call_id"`
	Request connector.SampleRequest `json:"request"`
}

// ClientRootsArgs asks for the roots of a call's MCP client.
type ClientRootsArgs struct {
	CallID uint64 `json:"call_id"`
}

// progresser is the optional connector.Host method through which a
// connector reports how far a long call has got. It is matched by its
// method set, so a host that has it gets the reports and one that does not
// is not asked.
type progresser interface {
	Progress(ctx context.Context, done, total float64, message string)
}

// empty is the reply of Log and Progress.
type empty struct{}

// connectorFailed marks an error the connector itself returned, as
// opposed to a transport failure.
func connectorFailed(err error) error {
	return status.Error(codes.Aborted, err.Error())
}

// fromStatus turns a connector failure back into a plain error and leaves
// every other status (transport, cancellation) as it is.
func fromStatus(err error) error {
	if s, ok := status.FromError(err); ok && s.Code() == codes.Aborted {
		return errors.New(s.Message())
	}
	return err
}

// unary builds a method handler that decodes an A, runs fn and returns its
// reply, honouring interceptors like generated code does.
func unary[S, A, R any](method string, fn func(S, context.Context, *A) (*R, error)) func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
	return func(srv any, ctx context.Context, dec func(any) error, ic grpc.UnaryServerInterceptor) (any, error) {
		in := new(A)
		if err := dec(in); err != nil {
			return nil, err
		}
		if ic == nil {
			return fn(srv.(S), ctx, in)
		}
		info := &grpc.UnaryServerInfo{Server: srv, FullMethod: method}
		return ic(ctx, in, info, func(ctx context.Context, req any) (any, error) {
			return fn(srv.(S), ctx, req.(*A))
		})
	}
}

// MaxMessage is the largest message either side sends or accepts: a
// response body (up to the host's max_response_mb), a call's result or an
// extracted text. gRPC's own default of 4 MiB would fail every long
// document.
const MaxMessage = 64 << 20

// ServerOptions are the options of every gRPC server speaking this
// protocol, on either side.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.MaxRecvMsgSize(MaxMessage), grpc.MaxSendMsgSize(MaxMessage)}
}

// callOpts make a call use the JSON codec and carry messages up to
// MaxMessage.
var callOpts = []grpc.CallOption{grpc.CallContentSubtype(CodecName), grpc.MaxCallRecvMsgSize(MaxMessage), grpc.MaxCallSendMsgSize(MaxMessage)}

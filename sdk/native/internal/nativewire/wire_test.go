package nativewire

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// serve runs a gRPC server on an in-memory listener and returns a client
// connection to it.
func serve(t *testing.T, register func(*grpc.Server)) *grpc.ClientConn {
	t.Helper()
	ln := bufconn.Listen(1 << 20)
	s := grpc.NewServer()
	register(s)
	go s.Serve(ln)
	t.Cleanup(s.Stop)
	conn, err := grpc.Dial("bufnet", grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return ln.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// fixed is a connector with a fixed manifest whose Call fetches once.
type fixed struct{ m connector.Manifest }

func (f fixed) Describe(context.Context) (connector.Manifest, error) { return f.m, nil }
func (f fixed) Close(context.Context) error                          { return nil }
func (f fixed) Call(ctx context.Context, req connector.CallRequest, h connector.Host) (connector.CallResult, error) {
	r, err := h.Fetch(ctx, connector.FetchRequest{Method: "GET", URL: "https://x.test/"})
	if err != nil {
		return connector.CallResult{IsError: true, Text: err.Error()}, nil
	}
	return connector.CallResult{Text: string(r.Body)}, nil
}

// pair wires a Server and a Client over two in-memory connections, the
// way go-plugin's broker does over sockets.
func pair(t *testing.T, impl connector.Connector) (*Client, *Server, *grpc.ClientConn) {
	t.Helper()
	var hostConn *grpc.ClientConn
	srv := NewServer(impl, func(id uint32) (*grpc.ClientConn, error) {
		if id != 7 {
			t.Errorf("process dialled service %d, want 7", id)
		}
		return hostConn, nil
	})
	procConn := serve(t, srv.Register)
	c, err := Open(context.Background(), procConn, func(register func(*grpc.Server)) uint32 {
		hostConn = serve(t, register)
		return 7
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, srv, hostConn
}

type okHost struct{}

func (okHost) Fetch(context.Context, connector.FetchRequest) (connector.FetchResponse, error) {
	return connector.FetchResponse{Status: 200, Body: []byte("hello")}, nil
}
func (okHost) Log(context.Context, int, string) {}

func TestOpenAndCall(t *testing.T) {
	c, _, _ := pair(t, fixed{connector.Manifest{ID: "fx"}})
	if m, _ := c.Describe(context.Background()); m.ID != "fx" {
		t.Errorf("manifest id %q, want fx", m.ID)
	}
	res, err := c.Call(context.Background(), connector.CallRequest{Tool: "t"}, okHost{})
	if err != nil || res.Text != "hello" {
		t.Fatalf("call: %+v, %v", res, err)
	}
}

// TestFetchOutsideCallRefused: a process quoting a call id that is not in
// flight (finished, or never issued) gets a refusal, not another call's
// host.
func TestFetchOutsideCallRefused(t *testing.T) {
	_, _, hostConn := pair(t, fixed{connector.Manifest{ID: "fx"}})
	for _, id := range []uint64{0, 1, 99} {
		var rep connector.FetchReply
		err := hostConn.Invoke(context.Background(), methodFetch, &FetchArgs{CallID: id, Request: connector.FetchRequest{URL: "https://x.test/"}}, &rep, callOpts...)
		if err != nil || rep.Error == nil || rep.Error.Kind != connector.FetchRefused || rep.Response != nil {
			t.Errorf("fetch for call %d: %+v, %v; want a refusal", id, rep, err)
		}
	}
	// A log line for no call is dropped quietly.
	if err := hostConn.Invoke(context.Background(), methodLog, &LogArgs{CallID: 5, Message: "x"}, &empty{}, callOpts...); err != nil {
		t.Errorf("log outside a call: %v", err)
	}
}

func TestOpenABIMismatch(t *testing.T) {
	srv := NewServer(fixed{}, func(uint32) (*grpc.ClientConn, error) { t.Error("dialled despite the mismatch"); return nil, nil })
	conn := serve(t, srv.Register)
	var rep OpenReply
	err := conn.Invoke(context.Background(), methodOpen, &OpenArgs{ABI: connector.ABIVersion + 1}, &rep, callOpts...)
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "ABI version") {
		t.Fatalf("open with ABI %d: %v, want FailedPrecondition naming the ABI", connector.ABIVersion+1, err)
	}
}

// abiServer is a Connector service that answers Open with another ABI.
type abiServer struct{}

func (abiServer) open(context.Context, *OpenArgs) (*OpenReply, error) {
	return &OpenReply{ABI: 9, Manifest: connector.Manifest{ID: "old"}}, nil
}
func (abiServer) call(context.Context, *CallArgs) (*connector.CallResult, error) { return nil, nil }

func TestOpenRefusesOtherABI(t *testing.T) {
	conn := serve(t, func(s *grpc.Server) { s.RegisterService(&connectorDesc, abiServer{}) })
	_, err := Open(context.Background(), conn, func(func(*grpc.Server)) uint32 { return 1 })
	var abi *connector.ABIError
	if !errors.Is(err, connector.ErrABIMismatch) || !errors.As(err, &abi) || abi.Got != 9 || abi.Want != connector.ABIVersion {
		t.Fatalf("err = %v, want an ABIError got 9 want %d", err, connector.ABIVersion)
	}
}

func TestCallBeforeOpen(t *testing.T) {
	conn := serve(t, NewServer(fixed{}, func(uint32) (*grpc.ClientConn, error) { return nil, nil }).Register)
	var res connector.CallResult
	err := conn.Invoke(context.Background(), methodCall, &CallArgs{CallID: 1, Request: connector.CallRequest{Tool: "t", Arguments: json.RawMessage(`{}`)}}, &res, callOpts...)
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("call before open: %v, want FailedPrecondition", err)
	}
}

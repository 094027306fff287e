//go:build !wasip1

package native_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/native"
)

// wirePlugin has one tool per behaviour the wire must carry.
func wirePlugin() *sdk.Plugin {
	schema := json.RawMessage(`{"type":"object"}`)
	tools := map[string]sdk.ToolFunc{
		"echo": func(_ context.Context, _ connector.Host, args json.RawMessage) (any, error) {
			return map[string]json.RawMessage{"args": args}, nil
		},
		"fetch": func(ctx context.Context, h connector.Host, args json.RawMessage) (any, error) {
			var a struct{ URL string }
			if err := sdk.DecodeArgs(args, &a); err != nil {
				return nil, err
			}
			r, err := sdk.Get(ctx, h, a.URL, "api", 1, connector.ClassNone)
			if err != nil {
				return nil, err
			}
			return map[string]any{"status": r.Status, "body": string(r.Body)}, nil
		},
		"log": func(ctx context.Context, h connector.Host, _ json.RawMessage) (any, error) {
			h.Log(ctx, connector.LevelWarn, "careful")
			return "logged", nil
		},
		"progress": func(ctx context.Context, h connector.Host, _ json.RawMessage) (any, error) {
			p, ok := h.(interface {
				Progress(ctx context.Context, done, total float64, message string)
			})
			if !ok {
				return "no progress", nil
			}
			p.Progress(ctx, 1, 2, "half")
			p.Progress(ctx, 2, 2, "done")
			return "reported", nil
		},
		"fail": func(context.Context, connector.Host, json.RawMessage) (any, error) {
			return nil, errors.New("the platform said no")
		},
		"boom": func(context.Context, connector.Host, json.RawMessage) (any, error) {
			panic("kaboom")
		},
	}
	m := connector.Manifest{ID: "wire", Version: "1", Title: "Wire", Services: []connector.Service{{Name: "api"}}}
	for name := range tools {
		m.Tools = append(m.Tools, connector.Tool{Name: name, Description: name, InputSchema: schema})
	}
	return &sdk.Plugin{Manifest: m, Tools: tools}
}

// dispense connects a host-side connector to p over go-plugin's in-process
// gRPC wiring (a real gRPC connection and broker, no child process).
func dispense(t *testing.T, p connector.Connector) connector.Connector {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, plugin.PluginSet{native.PluginName: &native.Plugin{Impl: p}})
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense(native.PluginName)
	if err != nil {
		t.Fatal(err)
	}
	return raw.(connector.Connector)
}

type ctxKey struct{}

// recHost answers fetches with the URL as body, checks that the call's
// context reached it, and can block a fetch until its context ends.
type recHost struct {
	t       *testing.T
	mu      sync.Mutex
	logs    []string
	entered chan struct{} // closed-over by blocking fetches
	ended   chan error    // what a blocking fetch's context said
}

func (h *recHost) Fetch(ctx context.Context, req connector.FetchRequest) (connector.FetchResponse, error) {
	if got, _ := ctx.Value(ctxKey{}).(string); got != req.URL {
		h.t.Errorf("fetch %s ran under the context of call %q", req.URL, got)
	}
	switch {
	case strings.HasSuffix(req.URL, "/block"):
		h.entered <- struct{}{}
		<-ctx.Done()
		h.ended <- ctx.Err()
		return connector.FetchResponse{}, ctx.Err()
	case strings.HasSuffix(req.URL, "/refuse"):
		return connector.FetchResponse{}, &connector.FetchError{Kind: connector.FetchRefused, Message: "host not allowed"}
	case strings.HasSuffix(req.URL, "/plain"):
		return connector.FetchResponse{}, errors.New("socket trouble")
	}
	return connector.FetchResponse{Status: 200, Body: []byte(req.URL)}, nil
}

func (h *recHost) Log(ctx context.Context, level int, msg string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.logs = append(h.logs, fmt.Sprintf("%d %s %v", level, msg, ctx.Value(ctxKey{})))
}

func (h *recHost) Progress(ctx context.Context, done, total float64, msg string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.logs = append(h.logs, fmt.Sprintf("progress %g/%g %s %v", done, total, msg, ctx.Value(ctxKey{})))
}

// plainHost hides recHost's Progress method.
type plainHost struct{ connector.Host }

func call(ctx context.Context, c connector.Connector, h connector.Host, tool, args string) (connector.CallResult, error) {
	return c.Call(ctx, connector.CallRequest{Tool: tool, Arguments: json.RawMessage(args)}, h)
}

func TestNativeWireMatchesInProcess(t *testing.T) {
	p := wirePlugin()
	remote := dispense(t, p)
	wantM, _ := p.Describe(context.Background())
	gotM, err := remote.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(wantM, gotM); d != "" {
		t.Errorf("manifest over the wire (-in-process +native):\n%s", d)
	}
	cases := []struct{ tool, args string }{
		{"echo", `{"a":[1,2,"ü"]}`},
		{"echo", ``},
		{"fetch", `{"URL":"https://x.test/ok"}`},
		{"fetch", `{"URL":"https://x.test/refuse"}`},
		{"fetch", `{"URL":5}`},
		{"fail", `{}`},
		{"nosuchtool", `{}`},
	}
	for _, c := range cases {
		var url struct{ URL any }
		json.Unmarshal([]byte(c.args), &url)
		ctx := context.WithValue(context.Background(), ctxKey{}, url.URL)
		h := &recHost{t: t}
		want, werr := call(ctx, p, h, c.tool, c.args)
		got, gerr := call(ctx, remote, h, c.tool, c.args)
		if werr != nil || gerr != nil {
			t.Errorf("%s(%s): errors in-process %v, native %v", c.tool, c.args, werr, gerr)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s(%s) (-in-process +native):\n%s", c.tool, c.args, d)
		}
	}
}

// TestNativeFetchErrorKinds: a host error that is not a FetchError reaches
// the connector as one of kind unavailable, as on the WebAssembly ABI.
func TestNativeFetchErrorKinds(t *testing.T) {
	remote := dispense(t, wirePlugin())
	url := "https://x.test/plain"
	res, err := call(context.WithValue(context.Background(), ctxKey{}, url), remote, &recHost{t: t}, "fetch", `{"URL":"`+url+`"}`)
	if err != nil || !res.IsError || res.Text != "unavailable: socket trouble" {
		t.Fatalf("got %+v, %v; want the tool error \"unavailable: socket trouble\"", res, err)
	}
	if _, err := call(context.Background(), remote, &recHost{t: t}, "echo", `{"a":`); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("malformed arguments: %v, want an error saying they are not valid JSON", err)
	}
}

func TestNativeConnectorErrorIsPlain(t *testing.T) {
	remote := dispense(t, wirePlugin())
	_, err := call(context.Background(), remote, &recHost{t: t}, "boom", `{}`)
	if err == nil || !strings.Contains(err.Error(), `tool "boom" panicked: kaboom`) {
		t.Fatalf("err = %v, want the connector's panic message", err)
	}
	if _, ok := status.FromError(err); ok {
		t.Errorf("a connector failure kept its gRPC status: %#v", err)
	}
	// The process survives its tool's panic.
	if res, err := call(context.Background(), remote, &recHost{t: t}, "echo", `{}`); err != nil || res.IsError {
		t.Fatalf("after a panic: %+v, %v", res, err)
	}
}

func TestNativeLogReachesCallHost(t *testing.T) {
	remote := dispense(t, wirePlugin())
	h := &recHost{t: t}
	ctx := context.WithValue(context.Background(), ctxKey{}, "c1")
	if _, err := call(ctx, remote, h, "log", `{}`); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"4 careful c1"}, h.logs); d != "" {
		t.Errorf("logs (-want +got):\n%s", d)
	}
}

// TestNativeProgress: progress reports reach a host that takes them,
// under the call's context; a host without Progress leaves the call
// working.
func TestNativeProgress(t *testing.T) {
	remote := dispense(t, wirePlugin())
	h := &recHost{t: t}
	ctx := context.WithValue(context.Background(), ctxKey{}, "c2")
	if _, err := call(ctx, remote, h, "progress", `{}`); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"progress 1/2 half c2", "progress 2/2 done c2"}, h.logs); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
	h = &recHost{t: t}
	res, err := call(ctx, remote, plainHost{h}, "progress", `{}`)
	if err != nil || res.Text != `"reported"` || len(h.logs) != 0 {
		t.Errorf("without Progress on the host: %+v, %v, %v", res, err, h.logs)
	}
}

// TestNativeCancelReachesFetch cancels a call while its fetch waits in the
// host: the host's fetch must see the cancellation (so a queued request
// leaves the scheduler), and the call must end with Canceled.
func TestNativeCancelReachesFetch(t *testing.T) {
	remote := dispense(t, wirePlugin())
	h := &recHost{t: t, entered: make(chan struct{}), ended: make(chan error, 1)}
	url := "https://x.test/block"
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, url))
	done := make(chan error, 1)
	go func() {
		_, err := call(ctx, remote, h, "fetch", `{"URL":"`+url+`"}`)
		done <- err
	}()
	<-h.entered
	cancel()
	if err := <-h.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("host fetch ended with %v, want context.Canceled", err)
	}
	if err := <-done; status.Code(err) != codes.Canceled {
		t.Errorf("call ended with %v, want gRPC Canceled", err)
	}
}

// TestNativeHammer runs concurrent calls on one connection: every call's
// fetches must be answered under its own context, never another call's.
func TestNativeHammer(t *testing.T) {
	remote := dispense(t, wirePlugin())
	h := &recHost{t: t}
	const P, N = 8, 40
	var wg sync.WaitGroup
	for g := range P {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range N {
				url := fmt.Sprintf("https://x.test/%d/%d", g, i)
				ctx, cancel := context.WithTimeout(context.WithValue(context.Background(), ctxKey{}, url), time.Minute)
				res, err := call(ctx, remote, h, "fetch", `{"URL":"`+url+`"}`)
				cancel()
				if err != nil {
					t.Error(err)
					return
				}
				var out struct{ Body string }
				if err := json.Unmarshal([]byte(res.Text), &out); err != nil || out.Body != url {
					t.Errorf("call for %s got %q (%v)", url, res.Text, err)
				}
			}
		}()
	}
	wg.Wait()
}

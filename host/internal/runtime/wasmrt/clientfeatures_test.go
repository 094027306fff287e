package wasmrt_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmrt"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

func loadConformance(t *testing.T, o wasmrt.Options) *wasmrt.Connector {
	t.Helper()
	o.ID = "conformance"
	o.Wasm = wasmbuild.Bytes(t, "./plugins/conformance/cmd")
	o.CompilationCache = testCache(t) // see testCache: 45 s a load under -race without it
	c, err := wasmrt.Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// slowClient is sdktest's host answering elicitations after a delay, as
// a person would.
type slowClient struct {
	*sdktest.Host
	delay time.Duration
}

func (c slowClient) Elicit(ctx context.Context, req connector.ElicitRequest) (connector.ElicitResult, error) {
	time.Sleep(c.delay)
	return c.Host.Elicit(ctx, req)
}

// TestClientFeaturesThroughTheABI: the client_* host functions reach the
// client through the gate, in both directions, with the errors a
// connector sees.
func TestClientFeaturesThroughTheABI(t *testing.T) {
	granted := loadConformance(t, wasmrt.Options{PoolSize: 1, Grant: []string{"elicitation", "sampling", "roots"}, CallTimeout: 200 * time.Millisecond})
	bare := loadConformance(t, wasmrt.Options{PoolSize: 1})
	answer := `{"username":"ann","email":"ann@example.org"}`
	h := sdktest.NewHost(t).OnElicit(sdktest.Accept(answer)).OnSample(sdktest.SampleReply("m", "hi there")).
		OnRoots(connector.Root{URI: "file:///work", Name: "work"})
	cases := []struct {
		c          *wasmrt.Connector
		h          connector.Host
		tool, args string
		want       string
		isError    bool
	}{
		{granted, h, "test_elicitation", `{"message":"Who are you?"}`, "User response: action=accept, content=" + answer, false},
		{granted, h, "test_sampling", `{"prompt":"Say hi"}`, "LLM response: hi there", false},
		{granted, h, "test_roots", `{}`, `{"roots":[{"uri":"file:///work","name":"work"}]}`, false},
		{bare, h, "test_elicitation", `{"message":"Who?"}`, `client feature "elicitation" is not granted to connector "conformance": add it to connectors.conformance.grant`, true},
		{granted, sdktest.NewHost(t), "test_elicitation", `{"message":"Who?"}`, `the MCP client did not declare the "elicitation" capability`, true},
		{granted, nil, "test_sampling", `{"prompt":"x"}`, "no client to ask", true},
		{granted, sdktest.NewHost(t).OnElicit(sdktest.Decline()), "test_elicitation", `{"message":"Who?"}`, "User response: action=decline, content={}", false},
	}
	for _, c := range cases {
		res, err := c.c.Call(context.Background(), connector.CallRequest{Tool: c.tool, Arguments: json.RawMessage(c.args)}, c.h)
		if err != nil || res.IsError != c.isError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%s(%s): %+v, %v; want isError=%v and %q", c.tool, c.args, res, err, c.isError, c.want)
		}
	}
	if got := h.Elicitations(); len(got) != 1 || got[0].Message != "Who are you?" || !strings.Contains(string(got[0].RequestedSchema), `"required":["username","email"]`) {
		t.Errorf("the client was asked %+v", got)
	}

	// A person who takes longer than the call's own 200 ms deadline: the
	// deadline stops while the call waits, and the answer arrives.
	slow := slowClient{sdktest.NewHost(t).OnElicit(sdktest.Accept(answer)), 600 * time.Millisecond}
	res, err := granted.Call(context.Background(), connector.CallRequest{Tool: "test_elicitation", Arguments: json.RawMessage(`{"message":"Slowly?"}`)}, slow)
	if err != nil || res.IsError || !strings.Contains(res.Text, "action=accept") {
		t.Errorf("a 600 ms answer in a 200 ms call: %+v, %v", res, err)
	}
	// The deadline still holds otherwise: a 300 ms sleep in a 200 ms
	// call is stopped.
	res, err = granted.Call(context.Background(), connector.CallRequest{Tool: "test_reconnection", Arguments: json.RawMessage(`{}`)}, nil)
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Errorf("a 300 ms sleep in a 200 ms call: %+v, %v; want the deadline's error", res, err)
	}
}

// TestReconnectionToolWaits: a guest's sleep is real (the fixture's
// test_reconnection takes its 300 ms), though its clock tells it nothing
// of the real time.
func TestReconnectionToolWaits(t *testing.T) {
	c := loadConformance(t, wasmrt.Options{PoolSize: 1})
	start := time.Now()
	res, err := c.Call(context.Background(), connector.CallRequest{Tool: "test_reconnection", Arguments: json.RawMessage(`{}`)}, nil)
	took := time.Since(start)
	if err != nil || res.IsError || res.Text != "Reconnection test completed successfully" {
		t.Fatalf("%+v, %v", res, err)
	}
	if took < 250*time.Millisecond || took > 5*time.Second {
		t.Errorf("test_reconnection answered after %v, want about 300 ms", took)
	}
}

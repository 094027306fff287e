//go:build unix

package nativert_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/runtime/nativert"
	"github.com/besluitbron/besluitbron/host/internal/testsupport/nativerttest"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// slowUser answers elicitations after a delay, as a person would.
type slowUser struct {
	*sdktest.Host
	delay time.Duration
}

func (u slowUser) Elicit(ctx context.Context, req connector.ElicitRequest) (connector.ElicitResult, error) {
	time.Sleep(u.delay)
	return u.Host.Elicit(ctx, req)
}

// TestProcessClientFeatures: a native connector's client feature requests
// come back over the broker to the gate: refused without a grant, passed
// to the call's client with it, and a person slower than the call's own
// deadline still answers (the deadline stays with the host, stopped
// meanwhile, and is not sent to the process).
func TestProcessClientFeatures(t *testing.T) {
	bin := nativerttest.Build(t, "./plugins/conformance/cmd")
	load := func(grant ...string) *nativert.Connector {
		c, err := nativert.Load(t.Context(), nativert.Options{ID: "conformance", Path: bin, SHA256: nativerttest.SHA256(t, bin),
			Grant: grant, CallTimeout: 300 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	granted, bare := load("elicitation"), load()
	call := func(c *nativert.Connector, h connector.Host, tool, args string) connector.CallResult {
		t.Helper()
		res, err := c.Call(t.Context(), connector.CallRequest{Tool: tool, Arguments: json.RawMessage(args)}, h)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return res
	}
	answer := `{"username":"ann","email":"ann@example.org"}`
	user := sdktest.NewHost(t).OnElicit(sdktest.Accept(answer))
	if res := call(granted, user, "test_elicitation", `{"message":"Who?"}`); res.IsError || res.Text != "User response: action=accept, content="+answer {
		t.Errorf("granted: %+v", res)
	}
	res := call(bare, user, "test_elicitation", `{"message":"Who?"}`)
	if !res.IsError || !strings.Contains(res.Text, `client feature "elicitation" is not granted to connector "conformance": add it to connectors.conformance.grant`) {
		t.Errorf("not granted: %+v", res)
	}
	if res := call(granted, nil, "test_elicitation", `{"message":"Who?"}`); !res.IsError || !strings.Contains(res.Text, "no client to ask") {
		t.Errorf("no client: %+v", res)
	}
	if res := call(granted, sdktest.NewHost(t), "test_elicitation", `{"message":"Who?"}`); !res.IsError || !strings.Contains(res.Text, "did not declare") {
		t.Errorf("client without elicitation: %+v", res)
	}
	slow := slowUser{sdktest.NewHost(t).OnElicit(sdktest.Decline()), time.Second}
	if res := call(granted, slow, "test_elicitation", `{"message":"Slowly?"}`); res.IsError || !strings.Contains(res.Text, "action=decline") {
		t.Errorf("a 1 s answer in a 300 ms call: %+v", res)
	}
	if len(user.Elicitations()) != 1 {
		t.Errorf("the user was asked %d times, want once", len(user.Elicitations()))
	}
}

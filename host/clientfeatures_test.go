package host_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/host/internal/testsupport/nativerttest"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// startConformanceHost serves the conformance fixture connector (which
// asks for every client feature) from module on runtime, with grant as
// its connectors.conformance.grant line ("" for none).
func startConformanceHost(t *testing.T, runtime, module, grant string, logs *syncBuffer) string {
	t.Helper()
	cfgPath := writeConfig(t, `
[runtime]
compilation_cache_dir = "`+sharedCompilationCache(t)+`"
[cache]
enabled = false
[status]
enabled = false
[connectors.conformance]
runtime = "`+runtime+`"
module = "`+module+`"
`+grant+`
`)
	cfg, err := host.LoadConfig(cfgPath, []string{})
	if err != nil {
		t.Fatal(err)
	}
	o := &host.Options{Config: cfg, Version: "9.9.9-test"}
	if logs != nil {
		o.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	h, err := host.New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp/unified/v1"
}

// elicitingClient connects a go-sdk client that declares elicitation and
// sampling and answers as a user and a model would; asked counts the
// elicitations it received.
func elicitingClient(t *testing.T, url string, asked *atomic.Int32) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "asking", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			n := asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{
				"username": fmt.Sprintf("user%d", n), "email": "ann@example.org"}}, nil
		},
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			prompt := req.Params.Messages[0].Content.(*mcp.TextContent).Text
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "echo: " + prompt}}, nil
		},
	})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, legacyClient)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// checkClientFeatures runs the three cases of the issue against one host:
// without a grant the error names it; with it, a client that supports
// elicitation is asked and its answer reaches the connector; a client
// without the capability is told it lacks it.
func checkClientFeatures(t *testing.T, runtime, module string) {
	var asked atomic.Int32
	bare := startConformanceHost(t, runtime, module, "", nil)
	granted := startConformanceHost(t, runtime, module, `grant = ["elicitation", "sampling"]`, nil)

	res := callTool(t, elicitingClient(t, bare, &asked), "conformance_test_elicitation", map[string]any{"message": "Who are you?"})
	want := `client feature "elicitation" is not granted to connector "conformance": add it to connectors.conformance.grant`
	if !res.IsError || !strings.Contains(text(res), want) || asked.Load() != 0 {
		t.Errorf("%s, no grant: %q (asked %d); want a tool error saying %s", runtime, text(res), asked.Load(), want)
	}

	cs := elicitingClient(t, granted, &asked)
	for i := 1; i <= 2; i++ {
		// The same question twice: the second is asked again, never
		// answered from a kept result.
		res = callTool(t, cs, "conformance_test_elicitation", map[string]any{"message": "Who are you?"})
		want = fmt.Sprintf(`User response: action=accept, content={"email":"ann@example.org","username":"user%d"}`, i)
		if res.IsError || text(res) != want {
			t.Errorf("%s, granted, call %d: %q, want %q", runtime, i, text(res), want)
		}
	}
	if asked.Load() != 2 {
		t.Errorf("%s: the user was asked %d times, want 2", runtime, asked.Load())
	}
	res = callTool(t, cs, "conformance_test_sampling", map[string]any{"prompt": "Say hi"})
	if res.IsError || text(res) != "LLM response: echo: Say hi" {
		t.Errorf("%s, sampling: %q", runtime, text(res))
	}
	// roots is asked for but not granted here.
	res = callTool(t, cs, "conformance_test_roots", map[string]any{})
	if !res.IsError || !strings.Contains(text(res), `client feature "roots" is not granted to connector "conformance"`) {
		t.Errorf("%s, roots not granted: %q", runtime, text(res))
	}

	plain := connect(t, granted) // declares neither elicitation nor sampling
	res = callTool(t, plain, "conformance_test_elicitation", map[string]any{"message": "Who?"})
	want = `the MCP client did not declare the "elicitation" capability when it connected`
	if !res.IsError || !strings.Contains(text(res), want) {
		t.Errorf("%s, client without elicitation: %q, want %q", runtime, text(res), want)
	}
}

// TestClientFeaturesWasm: the WebAssembly conformance connector through a
// go-sdk client over streamable HTTP.
func TestClientFeaturesWasm(t *testing.T) {
	checkClientFeatures(t, "wasm", wasmbuild.Path(t, "./plugins/conformance/cmd"))
}

// TestClientFeaturesProcess: the same connector as a native process
// (go-plugin, the gRPC broker's Client* calls).
func TestClientFeaturesProcess(t *testing.T) {
	checkClientFeatures(t, "process", nativerttest.Build(t, "./plugins/conformance/cmd"))
}

// TestGrantReported: check-config's summary and the start log say what the
// connector asked for and what it got; a grant it did not ask for stops
// the start, naming the key, the file and what may be granted.
func TestGrantReported(t *testing.T) {
	wasm := wasmbuild.Path(t, "./plugins/conformance/cmd")
	var logs syncBuffer
	startConformanceHost(t, "wasm", wasm, `grant = ["elicitation"]`, &logs)
	if want := `client_features="elicitation granted; sampling, roots asked for, not granted (connectors.conformance.grant)"`; !strings.Contains(logs.String(), want) {
		t.Errorf("the start log does not say %s:\n%s", want, logs.String())
	}
	cfgPath := writeConfig(t, `
[runtime]
compilation_cache_dir = "`+sharedCompilationCache(t)+`"
[status]
enabled = false
[connectors.conformance]
module = "`+wasm+`"
grant = ["elicitation"]
`)
	cfg, err := host.LoadConfig(cfgPath, []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: "9.9.9-test"})
	if err != nil {
		t.Fatal(err)
	}
	sum := h.Summary()
	h.Close(context.Background())
	if len(sum) != 1 || strings.Join(sum[0].Asked, ",") != "elicitation,sampling,roots" || strings.Join(sum[0].Granted, ",") != "elicitation" {
		t.Errorf("summary %+v", sum)
	}
}

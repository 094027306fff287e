package mcpserver

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
)

// Multi-round-trip requests on the wire (MCP 2026-07-28,
// basic/patterns/mrtr.mdx): a call whose connector asks is answered
// input_required with the question under its key and no content; the
// same call sent again with the answer under that key runs to its end
// with the answer; a client that declares no elicitation is not asked.
func TestModernCallIsAskedInItsResult(t *testing.T) {
	var runs atomic.Int32
	p := askingPlugin(&runs)
	var mu sync.Mutex
	var outcomes []string
	s, err := New(Options{Version: "test", Platforms: []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: p, Host: &validityHost{now: time.Now()}, Stamp: "v1"}}}, Logger: quiet,
		Observe: func(_ context.Context, e invoke.CallEvent) {
			mu.Lock()
			outcomes = append(outcomes, e.Outcome)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	defer srv.Close()
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "demo_pick"}
	meta := func(caps string) string {
		return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	}
	const elicitation = `{"elicitation":{"form":{}}}`

	_, m := modernPost(t, srv.URL+"/mcp/unified/v1", h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"demo_pick","arguments":{"ask":true},`+meta(elicitation)+`}}`)
	res, _ := m["result"].(map[string]any)
	reqs, _ := res["inputRequests"].(map[string]any)
	q, _ := reqs["besluitbron-elicitation-1"].(map[string]any)
	params, _ := q["params"].(map[string]any)
	if res["resultType"] != "input_required" || q["method"] != "elicitation/create" || params["message"] != "Which one?" || res["content"] != nil {
		t.Fatalf("first round: %v; want input_required asking besluitbron-elicitation-1 \"Which one?\" and no content", m)
	}

	_, m = modernPost(t, srv.URL+"/mcp/unified/v1", h, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"demo_pick","arguments":{"ask":true},`+
		`"inputResponses":{"besluitbron-elicitation-1":{"action":"accept","content":{"n":7}}},`+meta(elicitation)+`}}`)
	res, _ = m["result"].(map[string]any)
	if res["resultType"] != "complete" || res["isError"] == true || !strings.Contains(resultTextOf(res), `{\"n\":7}`) {
		t.Fatalf("second round with the answer: %v; want the user's answer", m)
	}

	_, m = modernPost(t, srv.URL+"/mcp/unified/v1", h, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"demo_pick","arguments":{"ask":true},`+meta(`{}`)+`}}`)
	res, _ = m["result"].(map[string]any)
	if res["resultType"] != "complete" || res["isError"] != true || res["inputRequests"] != nil {
		t.Fatalf("a client without elicitation: %v; want a tool error, not a question", m)
	}
	if n := runs.Load(); n != 3 {
		t.Errorf("the connector ran %d times, want 3 (a call that asked is never kept)", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(outcomes) != 3 || outcomes[0] != OutcomeInputRequired || outcomes[1] != "ok" {
		t.Errorf("outcomes %q: want the question counted as input_required, then ok", outcomes)
	}
}

// resultTextOf joins a raw result's text content.
func resultTextOf(res map[string]any) string {
	var b strings.Builder
	content, _ := res["content"].([]any)
	for _, c := range content {
		if m, ok := c.(map[string]any); ok {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// The go-sdk's client does the round trip itself: its elicitation handler
// is asked once and the call returns the user's answer.
func TestModernGoSDKClientAnswersInTheRetry(t *testing.T) {
	var runs atomic.Int32
	p := askingPlugin(&runs)
	s, err := New(Options{Version: "test", Platforms: []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: p, Host: &validityHost{now: time.Now()}, Stamp: "v1"}}}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	defer srv.Close()
	var asked atomic.Int32
	c := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"n": 42}}, nil
		},
	})
	ctx := context.Background()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/unified/v1"}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "demo_pick", Arguments: map[string]any{"ask": true}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `{\"n\":42}`) {
		t.Fatalf("demo_pick: %v %+v", err, res)
	}
	if asked.Load() != 1 || runs.Load() != 2 {
		t.Errorf("asked %d times, the connector ran %d times; want once and twice (the question, then the answer)", asked.Load(), runs.Load())
	}
}

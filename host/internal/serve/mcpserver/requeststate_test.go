package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// twoStepPlugin's tool asks two named questions, one after the other.
func twoStepPlugin() *sdk.Plugin {
	return &sdk.Plugin{
		Manifest: connector.Manifest{ID: "demo", Version: "1", Title: "Demo", Services: []connector.Service{{Name: "api"}},
			ClientFeatures: []string{connector.FeatureElicitation, connector.FeatureSampling},
			Tools: []connector.Tool{
				{Name: "steps", Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"integer"}}}`)},
				{Name: "needs_model", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`), RequiresClient: []string{connector.FeatureSampling}},
			}},
		Tools: map[string]sdk.ToolFunc{
			"steps": func(ctx context.Context, h connector.Host, args json.RawMessage) (any, error) {
				c := callinfo.From(ctx).AskClient()
				if c == nil {
					return nil, errors.New("no client")
				}
				a, err := c.Elicit(ctx, connector.ElicitRequest{Key: "step1", Message: "Name?"})
				if err != nil {
					return nil, err
				}
				b, err := c.Elicit(ctx, connector.ElicitRequest{Key: "step2", Message: "Colour?"})
				if err != nil {
					return nil, err
				}
				return map[string]string{"step1": string(a.Content), "step2": string(b.Content)}, nil
			},
			"needs_model": func(context.Context, connector.Host, json.RawMessage) (any, error) {
				return map[string]string{"ran": "yes"}, nil
			},
		},
	}
}

// A call asking two named questions in two rounds (MCP 2026-07-28,
// basic/patterns/mrtr.mdx): the second round's requestState carries the
// first answer, so the third round, sent with the second answer alone,
// completes with both. A tampered state, a state for other arguments and
// an expired one are refused with -32602; a tool that requires sampling
// answers -32021 to a client that did not declare it.
func TestRequestStateCarriesEarlierAnswersAndIsSealed(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	p := twoStepPlugin()
	s, err := New(Options{Version: "test", Now: clock, Platforms: []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: p, Host: &validityHost{now: now}, Stamp: "v1"}}}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	// The client's address, which a modern call is charged to, from a
	// test header: two clients from one test.
	srv := httptest.NewServer(s.Handler(HTTPOptions{ClientAddr: func(r *http.Request) string {
		if a := r.Header.Get("X-Test-Addr"); a != "" {
			return a
		}
		return RemoteIP(r)
	}}))
	defer srv.Close()
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "demo_steps"}
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`
	call := func(id, args, extra string) map[string]any {
		t.Helper()
		_, m := modernPost(t, srv.URL+"/mcp/unified/v1", h, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"demo_steps","arguments":`+args+`,`+extra+meta+`}}`)
		return m
	}
	round := func(m map[string]any) (key, state string) {
		t.Helper()
		res, _ := m["result"].(map[string]any)
		reqs, _ := res["inputRequests"].(map[string]any)
		if res["resultType"] != "input_required" || len(reqs) != 1 {
			t.Fatalf("want one question: %v", m)
		}
		for k := range reqs {
			key = k
		}
		state, _ = res["requestState"].(string)
		if state == "" {
			t.Fatalf("no requestState: %v", m)
		}
		return key, state
	}
	k1, s1 := round(call("1", `{"x":1}`, ""))
	if k1 != "step1" {
		t.Fatalf("first question %q, want the connector's key step1", k1)
	}
	k2, s2 := round(call("2", `{"x":1}`, `"inputResponses":{"step1":{"action":"accept","content":{"name":"Alice"}}},"requestState":"`+s1+`",`))
	if k2 != "step2" || s2 == s1 {
		t.Fatalf("second round asks %q with the same state: want step2 and a new state", k2)
	}
	m := call("3", `{"x":1}`, `"inputResponses":{"step2":{"action":"accept","content":{"color":"blue"}}},"requestState":"`+s2+`",`)
	res, _ := m["result"].(map[string]any)
	if text := resultTextOf(res); res["resultType"] != "complete" || !strings.Contains(text, "Alice") || !strings.Contains(text, "blue") {
		t.Fatalf("third round: %v; want both answers, the first from the state", m)
	}

	refused := func(what string, m map[string]any) {
		t.Helper()
		e, _ := m["error"].(map[string]any)
		if code, _ := e["code"].(float64); code != -32602 {
			t.Errorf("%s: %v; want -32602", what, m)
		}
	}
	answer := `"inputResponses":{"step2":{"action":"accept","content":{"color":"red"}}},`
	refused("tampered", call("4", `{"x":1}`, answer+`"requestState":"`+s2+`-TAMPERED",`))
	refused("other arguments", call("5", `{"x":2}`, answer+`"requestState":"`+s2+`",`))
	h["X-Test-Addr"] = "203.0.113.9" // another client
	refused("another client", call("5", `{"x":1}`, answer+`"requestState":"`+s2+`",`))
	delete(h, "X-Test-Addr")
	mu.Lock()
	now = now.Add(stateLife + time.Second)
	mu.Unlock()
	refused("expired", call("6", `{"x":1}`, answer+`"requestState":"`+s2+`",`))

	h["Mcp-Name"] = "demo_needs_model"
	_, m = modernPost(t, srv.URL+"/mcp/unified/v1", h, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"demo_needs_model","arguments":{},`+meta+`}}`)
	e, _ := m["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	caps, _ := data["requiredCapabilities"].(map[string]any)
	if code, _ := e["code"].(float64); code != -32021 || caps["sampling"] == nil {
		t.Errorf("a tool requiring sampling, client without it: %v; want -32021 naming sampling", m)
	}
}

// A prompt with a form (connector.Prompt.Ask), asked by a 2026-07-28
// client: the first prompts/get is input_required with the form under its
// key, the second, with the answer, is the prompt filled with it; a
// client that declared no elicitation gets -32021.
func TestModernPromptAsksInItsResult(t *testing.T) {
	p := twoStepPlugin()
	p.Manifest.Prompts = []connector.Prompt{{Name: "ctx", Description: "d", Template: "Context: {{context}}",
		Ask: &connector.ElicitRequest{Key: "user_context", Message: "Which context?"}}}
	s, err := New(Options{Version: "test", Platforms: []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: p, Host: &validityHost{now: time.Now()}, Stamp: "v1"},
		Grant: []string{connector.FeatureElicitation}}}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	defer srv.Close()
	h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "prompts/get", "Mcp-Name": "demo_ctx"}
	meta := func(caps string) string {
		return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	}
	_, m := modernPost(t, srv.URL+"/mcp/unified/v1", h, `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"demo_ctx",`+meta(`{"elicitation":{}}`)+`}}`)
	res, _ := m["result"].(map[string]any)
	reqs, _ := res["inputRequests"].(map[string]any)
	if res["resultType"] != "input_required" || reqs["user_context"] == nil {
		t.Fatalf("first prompts/get: %v; want input_required asking user_context", m)
	}
	_, m = modernPost(t, srv.URL+"/mcp/unified/v1", h, `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"demo_ctx",`+
		`"inputResponses":{"user_context":{"action":"accept","content":{"context":"budgets"}}},`+meta(`{"elicitation":{}}`)+`}}`)
	res, _ = m["result"].(map[string]any)
	b, _ := json.Marshal(res["messages"])
	if res["resultType"] != "complete" || !strings.Contains(string(b), "Context: budgets") {
		t.Fatalf("second prompts/get: %v; want the prompt filled with the answer", m)
	}
	_, m = modernPost(t, srv.URL+"/mcp/unified/v1", h, `{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"demo_ctx",`+meta(`{}`)+`}}`)
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32021) {
		t.Errorf("a client without elicitation: %v; want -32021", m)
	}
}

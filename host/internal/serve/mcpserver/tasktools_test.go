package mcpserver

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/tasks"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// A tool that declares its task support (connector.Tool.Task) is a task
// at once for a 2026-07-28 client that declared the extension, though
// nothing makes it wait; one that requires it answers -32021 to a client
// that did not, and runs for one that did. A tasks/get whose Mcp-Name
// header names another task than its body is refused with -32020.
func TestToolTaskSupport(t *testing.T) {
	p := &sdk.Plugin{
		Manifest: connector.Manifest{ID: "demo", Version: "1", Title: "Demo", Services: []connector.Service{{Name: "api"}},
			Tools: []connector.Tool{
				{Name: "long", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`), Task: connector.TaskOptional},
				{Name: "only", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`), Task: connector.TaskRequired},
			}},
		Tools: map[string]sdk.ToolFunc{
			"long": func(context.Context, connector.Host, json.RawMessage) (any, error) {
				return map[string]string{"done": "long"}, nil
			},
			"only": func(context.Context, connector.Host, json.RawMessage) (any, error) {
				return map[string]string{"done": "only"}, nil
			},
		},
	}
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	s, err := New(Options{Version: "test", Platforms: []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: p, Host: &validityHost{now: now}, Stamp: "v1"}}},
		Logger: quiet, Tasks: tasks.New(tasks.Options{Now: func() time.Time { return now }})})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	defer srv.Close()
	meta := func(caps string) string {
		return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
	}
	const withTasks = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	call := func(name, caps string) map[string]any {
		t.Helper()
		h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name}
		_, m := modernPost(t, srv.URL+"/mcp/unified/v1", h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","arguments":{},`+meta(caps)+`}}`)
		return m
	}

	res, _ := call("demo_long", withTasks)["result"].(map[string]any)
	id, _ := res["taskId"].(string)
	if res["resultType"] != "task" || id == "" {
		t.Fatalf("a task-supporting tool, client with the extension: %v; want a task at once", res)
	}
	if res, _ := call("demo_long", `{}`)["result"].(map[string]any); res["resultType"] != "complete" || res["content"] == nil {
		t.Errorf("a task-supporting tool, client without the extension: %v; want its result", res)
	}
	m := call("demo_only", `{}`)
	e, _ := m["error"].(map[string]any)
	if b, _ := json.Marshal(e["data"]); e["code"] != float64(-32021) || !json.Valid(b) || string(b) == "null" {
		t.Errorf("a task-only tool, client without the extension: %v; want -32021", m)
	}
	if res, _ := call("demo_only", withTasks)["result"].(map[string]any); res["resultType"] != "task" {
		t.Errorf("a task-only tool, client with the extension: %v; want a task", res)
	}

	get := func(header string) map[string]any {
		t.Helper()
		h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tasks/get", "Mcp-Name": header}
		_, m := modernPost(t, srv.URL+"/mcp/unified/v1", h, `{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"`+id+`",`+meta(withTasks)+`}}`)
		return m
	}
	if m := get(id); m["result"] == nil {
		t.Errorf("tasks/get naming its task in Mcp-Name: %v", m)
	}
	if e, _ := get("another-task")["error"].(map[string]any); e == nil || e["code"] != float64(-32020) {
		t.Errorf("tasks/get with a mismatched Mcp-Name: %v; want -32020", e)
	}
}

package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type rpcReply struct {
	status      int
	contentType string
	raw         string
	JSONRPC     string           `json:"jsonrpc"`
	ID          *json.RawMessage `json:"id"`
	Error       *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func post(t *testing.T, url, contentType, body string, header map[string]string) rpcReply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := rpcReply{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), raw: string(b)}
	json.Unmarshal(b, &r)
	return r
}

// TestMalformedBodiesGetJSONRPCErrors: over real HTTP, on the streamable
// and the HTTP+SSE addresses, a body that is not JSON is answered with
// -32700, JSON that is not a JSON-RPC message with -32600, an unknown
// method with -32601, each a JSON-RPC error object (400, no id unless the
// message had one) instead of the go-sdk's plain text; good messages and
// other refusals pass untouched. It catches the middleware missing from an
// address, a plain-text body, a wrong code or status.
func TestMalformedBodiesGetJSONRPCErrors(t *testing.T) {
	s, _ := realServer(t)
	srv := httptest.NewServer(s.Handler(HTTPOptions{MaxBodyBytes: 4096}))
	defer srv.Close()
	for _, c := range []struct {
		name, path, body string
		status, code     int
		id               string // "" for none
		want             string
	}{
		{"not JSON", "/mcp/unified/v1", `hello`, 400, -32700, "", "Parse error: the body is not valid JSON: invalid character 'h'"},
		{"cut off", "/mcp/obv/v1", `{"jsonrpc":"2.0","id":1,"method":"tools/list"`, 400, -32700, "", "Parse error"},
		{"empty", "/mcp/tk/v1", ``, 400, -32700, "", "the body is empty"},
		{"not an object", "/mcp/unified/v1", `"ping"`, 400, -32600, "", "not a JSON-RPC message object"},
		{"wrong version", "/mcp/unified/v1", `{"jsonrpc":"1.0","id":7,"method":"ping"}`, 400, -32600, "7", `"jsonrpc" must be "2.0"`},
		{"bad id", "/mcp/unified/v1", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, 400, -32600, "", `"id" must be a string or a number`},
		{"method not a string", "/mcp/unified/v1", `{"jsonrpc":"2.0","id":"a","method":5}`, 400, -32600, `"a"`, `"method" must be a string`},
		{"neither method nor id", "/mcp/unified/v1", `{"jsonrpc":"2.0","params":{}}`, 400, -32600, "", `needs a "method"`},
		{"empty batch", "/mcp/unified/v1", `[]`, 400, -32600, "", "empty batch"},
		{"bad batch item", "/mcp/unified/v1", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"x":1}]`, 400, -32600, "", "batch item 2"},
		{"unknown method", "/mcp/unified/v1", `{"jsonrpc":"2.0","id":3,"method":"no/such"}`, 400, -32601, "3", `Method not found: "no/such" unsupported`},
		{"too large", "/mcp/unified/v1", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 5000) + `"}}`, 413, -32600, "", "larger than 4096 bytes"},
		{"legacy transport", "/sse?sessionid=abc", `hello`, 400, -32700, "", "Parse error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := post(t, srv.URL+c.path, "application/json", c.body, nil)
			if r.status != c.status || r.contentType != "application/json" || r.JSONRPC != "2.0" || r.Error == nil {
				t.Fatalf("got %d %s %q", r.status, r.contentType, r.raw)
			}
			if r.Error.Code != c.code || !strings.Contains(r.Error.Message, c.want) {
				t.Errorf("error %d %q, want %d containing %q", r.Error.Code, r.Error.Message, c.code, c.want)
			}
			gotID := ""
			if r.ID != nil {
				gotID = string(*r.ID)
			}
			if gotID != c.id {
				t.Errorf("id %q, want %q (%s)", gotID, c.id, r.raw)
			}
			if len(r.raw) > 600 {
				t.Errorf("%d-byte error", len(r.raw))
			}
		})
	}

	// Inside a session the go-sdk is the first to read a single message
	// (the wrapper judges it only after the go-sdk refused it): the same
	// errors, with the message's id when it had one.
	t.Run("inside a session", func(t *testing.T) {
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp/unified/v1", strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		sid := resp.Header.Get("Mcp-Session-Id")
		if sid == "" {
			t.Fatal("no session")
		}
		h := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-06-18"}
		for _, c := range []struct {
			body, id, want string
			code           int
		}{
			{`hello`, "", "Parse error: the body is not valid JSON", -32700},
			{`{"jsonrpc":"2.0","id":1,"method":"tools/list"`, "", "Parse error", -32700},
			{`{"jsonrpc":"1.0","id":7,"method":"ping"}`, "7", `"jsonrpc" must be "2.0"`, -32600},
			{`{"jsonrpc":"2.0","id":3,"method":"no/such"}`, "3", `Method not found`, -32601},
		} {
			r := post(t, srv.URL+"/mcp/unified/v1", "application/json", c.body, h)
			if r.status != 400 || r.Error == nil || r.Error.Code != c.code || !strings.Contains(r.Error.Message, c.want) {
				t.Errorf("%s: got %d %q, want %d containing %q", c.body, r.status, r.raw, c.code, c.want)
				continue
			}
			if got := ""; r.ID != nil {
				if got = string(*r.ID); got != c.id {
					t.Errorf("%s: id %q, want %q", c.body, got, c.id)
				}
			} else if c.id != "" {
				t.Errorf("%s: no id, want %q", c.body, c.id)
			}
		}
	})

	t.Run("other refusals pass untouched", func(t *testing.T) {
		r := post(t, srv.URL+"/mcp/unified/v1", "text/plain", `hello`, nil)
		if r.status != http.StatusUnsupportedMediaType {
			t.Errorf("wrong content type: %d %q", r.status, r.raw)
		}
	})

	t.Run("good messages pass", func(t *testing.T) {
		init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
		r := post(t, srv.URL+"/mcp/unified/v1", "application/json", init, nil)
		if r.status != 200 || !strings.Contains(r.raw, `"serverInfo"`) {
			t.Fatalf("initialize: %d %q", r.status, r.raw)
		}
		// A real client over streamable HTTP: its session, its streams.
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/unified/v1"}, legacyVersion)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil || len(tools.Tools) == 0 {
			t.Fatalf("tools/list: %v", err)
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "demo_get_document", Arguments: map[string]any{"id": "doc-1", "page": 0}})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `argument "page" must be at least 1 (got 0)`) {
			t.Errorf("tool error through HTTP: %v %+v", err, res)
		}
	})
}

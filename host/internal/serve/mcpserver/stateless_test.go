package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// legacyVersion pins a go-sdk client to the newest protocol version with
// sessions: the go-sdk's client asks for 2026-07-28 unless told.
var legacyVersion = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}

// modernServer serves the conformance fixtures over HTTP and records who
// each tool call was charged to.
func modernServer(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var charged []string
	s, err := New(Options{Version: "test", Platforms: []Platform{fixtures(t, nil, "")}, Logger: quiet, Observe: func(_ context.Context, e invoke.CallEvent) {
		mu.Lock()
		charged = append(charged, e.Session)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), charged...)
	}
}

// A go-sdk client asking for 2026-07-28 gets it (server/discover, then
// stateless requests), on the same address where a client pinned to
// 2025-11-25 gets a session as before; the modern client's calls are
// charged to its address, the older one's to its session.
func TestModernAndLegacyClientsOnOneAddress(t *testing.T) {
	srv, charged := modernServer(t)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)

	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/conformance/v1"}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %q, want 2026-07-28 (not the fallback to the initialize handshake)", v)
	}
	if cs.ID() != "" {
		t.Errorf("the modern client holds session %q, want none", cs.ID())
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "conformance_test_simple_text"}); err != nil || res.IsError {
		t.Fatalf("modern tools/call: %v %+v", err, res)
	}

	old, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/conformance/v1"}, legacyVersion)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if v := old.InitializeResult().ProtocolVersion; v != "2025-11-25" || old.ID() == "" {
		t.Fatalf("older client: version %q, session %q; want 2025-11-25 with a session", v, old.ID())
	}
	if res, err := old.CallTool(ctx, &mcp.CallToolParams{Name: "conformance_test_simple_text"}); err != nil || res.IsError {
		t.Fatalf("older tools/call: %v %+v", err, res)
	}
	got := charged()
	want := []string{callinfo.AddressPrefix + "127.0.0.1", old.ID()}
	if !slices.Equal(got, want) {
		t.Errorf("charged to %q, want %q (the modern client by its address, the older one by its session)", got, want)
	}
}

// modernPost sends one raw message to an address with the given headers.
func modernPost(t *testing.T, url string, h map[string]string, body string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	// An event stream's message is on its data: line.
	if i := strings.Index(string(b), "data: "); i >= 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b = []byte(strings.SplitN(string(b[i+6:]), "\n", 2)[0])
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return resp, m
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// The transport's rules for a modern request on an address that also
// serves older clients, one section of the specification each (MCP
// 2026-07-28, basic/transports/streamable-http.mdx, server/discover.mdx,
// basic/index.mdx), where the go-sdk's client cannot be made to break
// them.
func TestModernRequestsFollowTheTransport(t *testing.T) {
	srv, _ := modernServer(t)
	addr := srv.URL + "/mcp/unified/v1"
	modernH := func(method, name string) map[string]string {
		h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
		if name != "" {
			h["Mcp-Name"] = name
		}
		return h
	}

	t.Run("server/discover lists both eras", func(t *testing.T) {
		resp, m := modernPost(t, addr, modernH("server/discover", ""), `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`)
		res, _ := m["result"].(map[string]any)
		var versions []string
		for _, v := range res["supportedVersions"].([]any) {
			versions = append(versions, v.(string))
		}
		meta, _ := res["_meta"].(map[string]any)
		if resp.StatusCode != 200 || !slices.Contains(versions, "2026-07-28") || !slices.Contains(versions, "2025-11-25") || res["resultType"] != "complete" || meta["io.modelcontextprotocol/serverInfo"] == nil {
			t.Fatalf("discover: %d %v", resp.StatusCode, m)
		}
		// The lists never change while the host runs: no listChanged
		// is promised (fixedLists).
		caps, _ := res["capabilities"].(map[string]any)
		for _, c := range []string{"tools", "prompts"} {
			if kind, _ := caps[c].(map[string]any); kind == nil || kind["listChanged"] == true {
				t.Errorf("discover: capabilities.%s = %v, want present without listChanged", c, caps[c])
			}
		}
	})
	t.Run("no session is minted and one sent is ignored", func(t *testing.T) {
		h := modernH("tools/call", "conformance_test_simple_text")
		h["Mcp-Session-Id"] = "never-issued"
		resp, m := modernPost(t, addr, h, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"conformance_test_simple_text",`+modernMeta+`}}`)
		if resp.StatusCode != 200 || m["result"] == nil || resp.Header.Get("Mcp-Session-Id") != "" {
			t.Fatalf("tools/call with an unknown session id: %d, session %q, %v", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), m)
		}
	})
	t.Run("Mcp-Name must match the body", func(t *testing.T) {
		resp, m := modernPost(t, addr, modernH("tools/call", "conformance_test_error_handling"), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"conformance_test_simple_text",`+modernMeta+`}}`)
		if resp.StatusCode != 400 || errCode(m) != -32020 {
			t.Fatalf("mismatched Mcp-Name: %d %v, want 400 with HeaderMismatch -32020", resp.StatusCode, m)
		}
	})
	t.Run("an unknown version lists the supported ones", func(t *testing.T) {
		h := modernH("tools/list", "")
		h["MCP-Protocol-Version"] = "2099-01-01"
		resp, m := modernPost(t, addr, h, `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		e, _ := m["error"].(map[string]any)
		data, _ := e["data"].(map[string]any)
		if resp.StatusCode != 400 || errCode(m) != -32022 || data["supported"] == nil {
			t.Fatalf("version 2099-01-01: %d %v, want 400 with UnsupportedProtocolVersion -32022 and the supported versions", resp.StatusCode, m)
		}
	})
	t.Run("a request without its _meta version is malformed", func(t *testing.T) {
		resp, m := modernPost(t, addr, modernH("tools/list", ""), `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{}}`)
		if resp.StatusCode != 400 || errCode(m) != -32602 {
			t.Fatalf("no _meta: %d %v, want 400 with -32602", resp.StatusCode, m)
		}
	})
	t.Run("one message per POST", func(t *testing.T) {
		resp, m := modernPost(t, addr, modernH("tools/list", ""), `[{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{`+modernMeta+`}}]`)
		if resp.StatusCode != 400 || errCode(m) != -32600 {
			t.Fatalf("batch: %d %v, want 400 with -32600", resp.StatusCode, m)
		}
	})
	t.Run("listening to a document is refused", func(t *testing.T) {
		resp, m := modernPost(t, addr, modernH("subscriptions/listen", ""), `{"jsonrpc":"2.0","id":8,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["besluitbron://conformance/doc/x"]},`+modernMeta+`}}`)
		e, _ := m["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if resp.StatusCode != 400 || errCode(m) != -32602 || !strings.Contains(msg, "besluitbron://conformance/watched-resource") {
			t.Fatalf("listen to a document: %d %v, want 400 with -32602 naming what can be listened to", resp.StatusCode, m)
		}
	})
	t.Run("log lines only for a request that asks with its logLevel", func(t *testing.T) {
		for _, tc := range []struct {
			meta string
			want int
		}{
			{modernMeta, 0},
			{strings.Replace(modernMeta, `"_meta":{`, `"_meta":{"io.modelcontextprotocol/logLevel":"info",`, 1), 3},
		} {
			req, _ := http.NewRequest(http.MethodPost, addr, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"conformance_test_tool_with_logging",`+tc.meta+`}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range modernH("tools/call", "conformance_test_tool_with_logging") {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if n := strings.Count(string(b), `"method":"notifications/message"`); resp.StatusCode != 200 || n != tc.want || !strings.Contains(string(b), `"result"`) {
				t.Errorf("_meta %s: %d, %d log notifications, want %d and the result:\n%s", tc.meta, resp.StatusCode, n, tc.want, b)
			}
		}
	})
	t.Run("no GET stream", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, addr, nil)
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Fatalf("modern GET: %d, want 405 (an HTTP+SSE client's GET carries no such version)", resp.StatusCode)
		}
	})
	t.Run("an older client's initialize still gets a session", func(t *testing.T) {
		resp, m := modernPost(t, addr, nil, `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"old","version":"1"}}}`)
		res, _ := m["result"].(map[string]any)
		if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") == "" || res["protocolVersion"] != "2025-11-25" {
			t.Fatalf("initialize: %d, session %q, %v", resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), m)
		}
	})
}

// bearerTransport adds Authorization: Bearer <token> to every request.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// A 2026-07-28 request of a named client (server.auth) is charged to the
// client's name, as its sessions' are; only an anonymous one falls back to
// its address.
func TestModernNamedClientIsChargedByName(t *testing.T) {
	var mu sync.Mutex
	var charged []string
	s, err := New(Options{Version: "test", Platforms: []Platform{fixtures(t, nil, "")}, Logger: quiet, Observe: func(_ context.Context, e invoke.CallEvent) {
		mu.Lock()
		charged = append(charged, e.Session)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	// As serve/auth hands the go-sdk the client it admitted.
	verify := func(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		return &sdkauth.TokenInfo{UserID: "named:" + token, Extra: map[string]any{"besluitbron/named": token}}, nil
	}
	srv := httptest.NewServer(sdkauth.RequireBearerToken(verify, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(s.Handler(HTTPOptions{})))
	defer srv.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/unified/v1", HTTPClient: &http.Client{Transport: bearerTransport{"alice"}}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %q", v)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "conformance_test_simple_text"}); err != nil || res.IsError {
		t.Fatalf("tools/call: %v %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{callinfo.NamedPrefix + "alice"}; !slices.Equal(charged, want) {
		t.Errorf("charged to %q, want %q", charged, want)
	}
}

// End-to-end checks of the errors an assistant reads, through the whole
// HTTP stack (client limits, MCP handler, real WebAssembly connectors
// against the platform simulator). Like search_tool_test.go it builds the
// seven modules, so it runs in the plain pass of make test, not under the
// race detector.

//go:build !race

package host_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// rawMCP is a streamable-HTTP session driven by hand, so that a test sees
// the bytes a client receives.
type rawMCP struct {
	t   *testing.T
	url string
	sid string
}

func newRawMCP(t *testing.T, url string) *rawMCP {
	t.Helper()
	m := &rawMCP{t: t, url: url}
	_, _, hdr := m.post([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	m.sid = hdr.Get("Mcp-Session-Id")
	if m.sid == "" {
		t.Fatal("no session id")
	}
	m.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return m
}

// post sends one body and returns the HTTP status and the JSON-RPC
// message in the answer (the data of the SSE event, or the JSON body).
func (m *rawMCP) post(body []byte) (int, []byte, http.Header) {
	m.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, m.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if m.sid != "" {
		req.Header.Set("Mcp-Session-Id", m.sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		m.t.Fatal(err)
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b, resp.Header
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(d, `"id"`) {
			return resp.StatusCode, []byte(d), resp.Header
		}
	}
	return resp.StatusCode, nil, resp.Header
}

// callTool sends tools/call and returns the whole JSON-RPC response and
// the result's text.
func (m *rawMCP) callTool(name string, args any) (raw []byte, isError bool, text string) {
	m.t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	status, raw, _ := m.post(body)
	var r struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct{ Text string }
		}
		Error *struct{ Message string }
	}
	if status != 200 || json.Unmarshal(raw, &r) != nil || r.Error != nil {
		m.t.Fatalf("%s: HTTP %d %.300s", name, status, raw)
	}
	for _, c := range r.Result.Content {
		text += c.Text
	}
	return raw, r.Result.IsError, text
}

// checkAssistantErrors is issue 17's list, measured through real MCP
// calls: a 900 KB argument gives an error of at most 2 KB on every kind of
// tool (a connector's, the cross search, the status tool); argument errors
// say the rule in words and list the tool's arguments; besluitbron_search
// with no platform answering is a tool error giving each platform's
// reason; a body that is not JSON-RPC gets a JSON-RPC error object through
// the client limits. TestAgainstTheSimulator runs it on its host (starting
// one with seven modules is the slow part).
func checkAssistantErrors(t *testing.T, sim *platformsim.Sim, base string) {
	m := newRawMCP(t, base+"/mcp/unified/v1")
	big := strings.Repeat("woningbouw ", 900<<10/11) // 921 591 bytes

	t.Run("a 900 KB argument gives at most 2 KB", func(t *testing.T) {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"ori_search", map[string]any{"query": big}},
			{"obv_get_document", map[string]any{"entity_id": big}},
			{"obk_search", map[string]any{"query": "x", big[:300]: big}},
			{"besluitbron_search", map[string]any{"query": big}},
			{"besluitbron_status", map[string]any{"organization": big}},
		} {
			raw, isErr, text := m.callTool(c.tool, c.args)
			t.Logf("%s: %d-byte argument → %d-byte JSON-RPC response, %d-byte error text", c.tool, len(big), len(raw), len(text))
			if !isErr || len(raw) > 2048 || !strings.Contains(text, "(got 921") && !strings.Contains(text, "unknown argument") {
				t.Errorf("%s: error %v, %d bytes: %.400s", c.tool, isErr, len(raw), text)
			}
		}
	})

	t.Run("argument errors in words", func(t *testing.T) {
		for _, c := range []struct {
			tool string
			args map[string]any
			want []string
		}{
			{"tk_get_document", map[string]any{"id": "2024D41190", "page": 0}, []string{`argument "page" must be at least 1 (got 0)`}},
			{"obv_get_document", map[string]any{"id": "document:x", "organization": "soest"},
				[]string{`unknown argument "organization"`, `(this tool takes: id, entity_id, page, find)`}},
			{"ori_search", map[string]any{"query": "x", "limit": "banana"}, []string{`argument "limit" must be a whole number (got the string "banana")`}},
			{"besluitbron_search", map[string]any{"query": "x", "platforms": []string{"nowhere"}},
				[]string{`besluitbron_search: invalid arguments: argument "platforms" (item 1) must be one of "obk", "obv"`, `(got "nowhere")`}},
		} {
			_, isErr, text := m.callTool(c.tool, c.args)
			for _, w := range c.want {
				if !isErr || !strings.Contains(text, w) {
					t.Errorf("%s: %q lacks %q", c.tool, text, w)
				}
			}
		}
	})

	t.Run("no platform answering is a tool error", func(t *testing.T) {
		for _, id := range []string{"obv", "tk"} {
			if err := sim.SetFault(id, platformsim.Fault{ErrorRate: 1}); err != nil {
				t.Fatal(err)
			}
		}
		defer sim.ClearFaults()
		// A query not searched before, so no platform answers from cache.
		_, isErr, text := m.callTool("besluitbron_search", map[string]any{"query": "nergens-te-vinden", "platforms": []string{"obv", "tk", "rechtspraak"}})
		for _, w := range []string{`besluitbron_search: no platform answered "nergens-te-vinden".`,
			"\n- OpenBesluitvorming (obv) failed: ", "\n- Tweede Kamer (Gegevensmagazijn) (tk) failed: ", "\n- Rechtspraak (rechtspraak) skipped: "} {
			if !isErr || !strings.Contains(text, w) {
				t.Errorf("%v %q lacks %q", isErr, text, w)
			}
		}
		if strings.Count(text, "upstream answered HTTP 5") < 2 {
			t.Errorf("the platforms' reasons are missing: %s", text)
		}
	})

	t.Run("malformed bodies get JSON-RPC errors", func(t *testing.T) {
		for body, code := range map[string]int{`{"jsonrpc":"2.0","id":1,"method":`: -32700, `{"jsonrpc":"2.0"}`: -32600} {
			status, raw, hdr := m.post([]byte(body))
			var r struct {
				JSONRPC string
				Error   struct{ Code int }
			}
			if status != 400 || hdr.Get("Content-Type") != "application/json" || json.Unmarshal(raw, &r) != nil || r.JSONRPC != "2.0" || r.Error.Code != code {
				t.Errorf("%s: HTTP %d %s %q", body, status, hdr.Get("Content-Type"), raw)
			}
		}
	})
}

// TestORIOfflineSaysUnreachable: the ORI connector, built to WebAssembly
// and run by the host, pointed at an address nothing listens on, reports
// the host it could not reach and why, not that ORI is gone: the fetch
// gate's real error text goes through the connector's classification.
func TestORIOfflineSaysUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a connector")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // now nothing listens there: connection refused
	wasm := wasmbuild.Path(t, "./plugins/ori/cmd")
	cfg := fmt.Sprintf("[runtime]\ncompilation_cache_dir = %q\n[cache]\ndir = %q\n[status]\nenabled = false\n"+
		"[connectors.ori]\nmodule = %q\nbase_url = %q\nprivate_networks = [\"127.0.0.0/8\"]\n", proofCompileDir(t), t.TempDir(), wasm, "http://"+closed+"/v1/elastic")
	c, err := host.LoadConfig(writeConfig(t, cfg), []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: c, Version: "9.9.9-offline", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	cs := connect(t, srv.URL+"/mcp/ori/v1")
	res := callTool(t, cs, "ori_search", map[string]any{"query": "klimaat"})
	got := text(res)
	t.Logf("%s", got)
	if !res.IsError || !strings.Contains(got, "could not reach "+closed+": the connection was refused") || strings.Contains(got, "probably gone") {
		t.Errorf("%s", got)
	}
}

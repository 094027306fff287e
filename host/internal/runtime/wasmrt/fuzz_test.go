package wasmrt_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmrt"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/mcpserver"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// FuzzGuestResult hands the host every possible guest result: a guest
// (testdata/guests/rawout) writes the fuzzed bytes as its call output with
// the fuzzed return code, through the real runtime and MCP layer. The host
// never panics; output that is not a well-formed result is a tool error
// naming the platform, and a well-formed one reaches the client as a
// result that encodes as MCP.
func FuzzGuestResult(f *testing.F) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := wasmrt.Load(context.Background(), wasmrt.Options{ID: "rawout", PoolSize: 2, MaxOutputBytes: 1 << 20, Logger: quiet, CompilationCache: testCache(f),
		Wasm: wasmbuild.Bytes(f, "./host/internal/runtime/wasmrt/testdata/guests/rawout")})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { c.Close(context.Background()) })
	m, _ := c.Describe(context.Background())
	s, err := mcpserver.New(mcpserver.Options{Platforms: []mcpserver.Platform{{Platform: &invoke.Platform{Manifest: m, Connector: c}}}, Logger: quiet})
	if err != nil {
		f.Fatal(err)
	}
	// Through an MCP session, as a client gets it.
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Unified().Connect(context.Background(), st, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fuzz", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { cs.Close() })
	for _, seed := range []string{
		`{"text":"ok"}`, `{"text":"{\"a\":1}","structured":{"a":1}}`, `{"text":"x","structured":[1]}`, `{"text":"bad","is_error":true}`,
		`{"text":"","content":[{"type":"image","data":"AQID","mime_type":"image/png"}]}`,
		`{"content":[{"type":"resource","uri":"besluitbron://rawout/x","mime_type":"text/plain","text":"t"}]}`,
		`{"content":[{"type":"video"}]}`, `{"text":1}`, `null`, ``, `not json`, "\xff\xfe", `{"structured":"{"}`,
	} {
		f.Add([]byte(seed), uint8(0))
	}
	f.Add([]byte("guest says no"), uint8(1))
	f.Fuzz(func(t *testing.T, out []byte, rc uint8) {
		args, _ := json.Marshal(map[string]any{"out": base64.StdEncoding.EncodeToString(out), "rc": rc % 3})
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "rawout_emit", Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("the call failed at the protocol level: %v", err)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("result does not encode as MCP: %v", err)
		}
		var want connector.CallResult
		wellFormed := rc%3 == 0 && json.Unmarshal(out, &want) == nil
		if !wellFormed {
			if !res.IsError || !strings.HasPrefix(text(res), "Raw output: ") {
				t.Fatalf("rc %d output %q: want a tool error naming the platform, got %+v", rc%3, out, res)
			}
			return
		}
		if res.IsError {
			if !strings.HasPrefix(text(res), "Raw output: ") {
				t.Fatalf("tool error %q does not name the platform", text(res))
			}
			return
		}
		if want.IsError {
			t.Fatalf("guest error %q came back as a success", want.Text)
		}
		if sc, ok := res.StructuredContent.(json.RawMessage); ok && !strings.HasPrefix(strings.TrimSpace(string(sc)), "{") {
			t.Fatalf("structured content is not an object: %s", sc)
		}
	})
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

package mcpserver

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/internal/syncbuf"
)

// A 2026-07-28 client's requests leave no per-connection lines in the
// log (each is an ephemeral go-sdk session of its own); an older client's
// session still logs its connection, with its id.
func TestModernRequestsDoNotFloodTheLog(t *testing.T) {
	var buf syncbuf.Buffer // the go-sdk logs from its own goroutines
	s, err := New(Options{Version: "test", Platforms: []Platform{fixtures(t, nil, "")}, Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler(HTTPOptions{}))
	defer srv.Close()
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/conformance/v1"}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "conformance_test_simple_text"}); err != nil {
			t.Fatal(err)
		}
	}
	cs.Close()
	if n := strings.Count(buf.String(), "server connecting") + strings.Count(buf.String(), "server session connected"); n != 0 {
		t.Errorf("%d per-connection lines for one 2026-07-28 client's discover and 3 calls:\n%s", n, buf.String())
	}
	old, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/conformance/v1"}, legacyVersion)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if !strings.Contains(buf.String(), `msg="server session connected" session_id=`+old.ID()) {
		t.Errorf("the older client's session was not logged:\n%s", buf.String())
	}
}

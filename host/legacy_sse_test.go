package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLegacySSEClient: a client of the older HTTP+SSE transport (as older
// Inspector versions use by default) is served on the same address.
func TestLegacySSEClient(t *testing.T) {
	up := fakeOBV(t, nil)
	_, base := startHost(t, up.URL)
	for _, addr := range []string{"/mcp/unified/v1", "/sse"} {
		legacyCall(t, base+addr)
	}
}

func legacyCall(t *testing.T, endpoint string) {
	c := mcp.NewClient(&mcp.Implementation{Name: "legacy", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.SSEClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(lt.Tools) == 0 {
		t.Fatalf("tools over SSE: %v", err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": "begroting"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "Raadsvoorstel") {
		t.Fatalf("call over SSE: %v %v", err, res)
	}
}

package mcpserver

import (
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/inbound"
)

// TestLeanRequestKeepsWhatTheCallReads: a task's call keeps of its
// request's extra the authenticated client, the client's address and
// when the client limits checked it (its trace's first span), and none of
// the other headers; the request the go-sdk holds is left as it was.
func TestLeanRequestKeepsWhatTheCallReads(t *testing.T) {
	ti := &auth.TokenInfo{UserID: "alice"}
	h := http.Header{}
	h.Set(ClientHeader, "192.0.2.7")
	h.Set(inbound.CheckedHeader, "1,2")
	h.Set("User-Agent", "a client")
	h.Set("Accept", "application/json, text/event-stream")
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "demo_search"}, Extra: &mcp.RequestExtra{TokenInfo: ti, Header: h}}
	lean := leanRequest(req).(*mcp.CallToolRequest)
	if lean.Extra.TokenInfo != ti || lean.Params != req.Params {
		t.Errorf("the token or params were not kept")
	}
	want := http.Header{}
	want.Set(ClientHeader, "192.0.2.7")
	want.Set(inbound.CheckedHeader, "1,2")
	if len(lean.Extra.Header) != len(want) || lean.Extra.Header.Get(ClientHeader) != "192.0.2.7" || lean.Extra.Header.Get(inbound.CheckedHeader) != "1,2" {
		t.Errorf("kept headers %v, want %v", lean.Extra.Header, want)
	}
	if len(req.Extra.Header) != 4 {
		t.Errorf("the original request's headers changed: %v", req.Extra.Header)
	}
}

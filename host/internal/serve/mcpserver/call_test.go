package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// Call (for this package's tests only) runs a connector tool by full name outside an MCP session and
// returns its MCP result, as a client would get it (tests compare it with
// the engine's Invoke, which the host's own features use).
func (s *Server) Call(ctx context.Context, info *callinfo.Info, name string, args json.RawMessage) *mcp.CallToolResult {
	e, ok := s.tools[name]
	if !ok {
		return toolError(invoke.UnknownTool(name), callinfo.Summary{Cache: callinfo.Bypass})
	}
	return s.run(ctx, info, e, args)
}

package host

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/crosssearch"
	"github.com/besluitbron/besluitbron/host/internal/mcpserver"
)

// searchTools returns besluitbron_search, the cross-platform search over
// the loaded connectors that can take part (none: no tool).
func (h *Host) searchTools() []mcpserver.HostTool {
	var ps []crosssearch.Platform
	for _, p := range h.platforms {
		var tools []string
		for _, t := range p.manifest.Tools {
			tools = append(tools, t.Name)
		}
		ps = append(ps, crosssearch.Platform{ID: p.id, Title: p.manifest.Title, Tools: tools, Profile: p.manifest.SearchProfile})
	}
	o := crosssearch.Options{
		Platforms: ps,
		// h.mcp is built after the host tools are listed; the search
		// runs only once it exists.
		Invoke: func(ctx context.Context, info *callinfo.Info, tool string, args json.RawMessage) mcpserver.Answer {
			return h.mcp.Invoke(ctx, info, tool, args)
		},
	}
	if h.o.Clock != nil {
		o.Now = h.o.Clock.Now
	}
	s := crosssearch.New(o)
	if len(s.IDs()) == 0 {
		return nil
	}
	return []mcpserver.HostTool{{
		Tool: s.Tool(),
		Handler: func(ctx context.Context, info *callinfo.Info, args json.RawMessage) (*mcp.CallToolResult, error) {
			return s.Handle(ctx, info, args), nil
		},
	}}
}

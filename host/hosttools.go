package host

import "github.com/besluitbron/besluitbron/host/internal/mcpserver"

// hostTools are the tools the host itself serves on the unified address:
// the cross-platform search and the load status.
func (h *Host) hostTools() []mcpserver.HostTool {
	return append(h.searchTools(), h.statusTools()...)
}

package host

import "github.com/besluitbron/besluitbron/host/internal/mcpserver"

// searchTools returns besluitbron_search, the cross-platform search.
func (h *Host) searchTools() []mcpserver.HostTool { return nil }

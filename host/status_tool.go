package host

import "github.com/besluitbron/besluitbron/host/internal/mcpserver"

// statusTools returns besluitbron_status, the platforms' load status.
func (h *Host) statusTools() []mcpserver.HostTool { return nil }

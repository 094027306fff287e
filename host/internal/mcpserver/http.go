package mcpserver

import (
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the streamable HTTP handler.
type HTTPOptions struct {
	// MaxBodyBytes caps a request body (default 1 MiB).
	MaxBodyBytes int64
	// SessionTimeout closes idle sessions (default 30 minutes, matching
	// the scheduler's memory of a session).
	SessionTimeout time.Duration
	// ClientAddr returns the client's address for a request (after the
	// trusted-proxy rules); default: the connection's address.
	ClientAddr func(*http.Request) string
}

// Handler serves /mcp/unified/v1 and /mcp/<id>/v1 over streamable HTTP,
// stateful so that every client gets an Mcp-Session-Id.
func (s *Server) Handler(o HTTPOptions) http.Handler {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = 30 * time.Minute
	}
	if o.ClientAddr == nil {
		o.ClientAddr = RemoteIP
	}
	mux := http.NewServeMux()
	add := func(path string, srv *mcp.Server) {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
			SessionTimeout:      o.SessionTimeout,
			MaxRequestBodyBytes: o.MaxBodyBytes,
			Logger:              s.o.Logger,
		})
		// Clients of the 2024-11-05 protocol speak HTTP+SSE: a GET opens
		// an event stream naming a POST endpoint (?sessionid=…). The
		// specification's backwards-compatibility advice is to serve both
		// on one address; a streamable-HTTP GET always carries a session.
		legacy := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.SSEOptions{MaxRequestBodyBytes: o.MaxBodyBytes})
		mux.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Set(ClientHeader, o.ClientAddr(r))
			if isLegacySSE(r) {
				legacy.ServeHTTP(w, r)
				return
			}
			h.ServeHTTP(w, r)
		}))
	}
	add("/mcp/unified/v1", s.unified)
	// Older HTTP+SSE clients (the Inspector CLI among them) replace the
	// path of the address they are given with /sse; serve the unified
	// tools there too.
	add("/sse", s.unified)
	for _, id := range s.ids {
		add("/mcp/"+id+"/v1", s.per[id])
	}
	return mux
}

// RemoteIP is the connection's IP address.
func RemoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// isLegacySSE reports whether r belongs to the HTTP+SSE transport of
// protocol 2024-11-05 rather than to streamable HTTP.
func isLegacySSE(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet:
		// Some HTTP+SSE clients send no Accept header; streamable HTTP
		// has no GET without a session, so nothing else is lost.
		return r.Header.Get("Mcp-Session-Id") == ""
	case http.MethodPost:
		return r.URL.Query().Get("sessionid") != ""
	}
	return false
}

package mcpserver

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
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
		// Bodies that are not JSON-RPC messages get JSON-RPC errors
		// (jsonrpc.go), on both transports.
		mux.Handle(path, jsonRPCErrors(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Set(ClientHeader, o.ClientAddr(r))
			if isLegacySSE(r) {
				if r.Method == http.MethodGet {
					w, r = legacyStream(w, r)
				}
				legacy.ServeHTTP(w, r)
				return
			}
			h.ServeHTTP(w, r)
		}), o.MaxBodyBytes))
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

// An HTTP+SSE client's session is its event stream: the GET that opens it
// names the POST endpoint (?sessionid=…) in its first event, and every
// message the client posts there is handled in a context derived from that
// GET's. The go-sdk's SSE connection reports no session id, so
// legacyStream learns it from the endpoint event and puts it in the
// context, where [sessionOf] finds it: each HTTP+SSE client is a session
// of its own for the scheduler and admission, under the id the client
// limits count its POSTs by.
type legacySession struct {
	id     atomic.Pointer[string]
	client string // the client's address, until the id is known
}

type legacyKey struct{}

func (l *legacySession) session() string {
	if id := l.id.Load(); id != nil {
		return *id
	}
	return "client:" + l.client
}

// legacyStream wraps the GET that opens an HTTP+SSE session.
func legacyStream(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request) {
	ls := &legacySession{client: r.Header.Get(ClientHeader)}
	return &endpointWatch{ResponseWriter: w, s: ls}, r.WithContext(context.WithValue(r.Context(), legacyKey{}, ls))
}

// endpointWatch reads the session id from the stream's first event.
type endpointWatch struct {
	http.ResponseWriter
	s    *legacySession
	done bool
}

func (e *endpointWatch) Write(p []byte) (int, error) {
	if !e.done {
		e.done = true
		if id := endpointSession(p); id != "" {
			e.s.id.Store(&id)
		}
	}
	return e.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController flush the stream.
func (e *endpointWatch) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// endpointSession returns the sessionid of an "endpoint" event
// ("event: endpoint\ndata: /sse?sessionid=…\n\n"), or "".
func endpointSession(event []byte) string {
	var name, data string
	for _, line := range bytes.Split(event, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if v, ok := bytes.CutPrefix(line, []byte("event:")); ok {
			name = string(bytes.TrimSpace(v))
		} else if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = string(bytes.TrimSpace(v))
		}
	}
	if name != "endpoint" {
		return ""
	}
	u, err := url.Parse(data)
	if err != nil {
		return ""
	}
	return u.Query().Get("sessionid")
}

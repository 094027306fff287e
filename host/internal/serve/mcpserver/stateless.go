package mcpserver

import (
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/inbound"
)

// Protocol 2026-07-28 beside the older versions, on the same addresses.
//
// MCP 2026-07-28 has no sessions and no initialize handshake (changelog,
// major changes 1 and 2): every request carries its protocol version in
// its _meta and, on HTTP, in its MCP-Protocol-Version header, and a client
// learns what the server speaks from server/discover (server/discover.mdx).
// The specification lets one server serve both eras on one endpoint
// (basic/versioning.mdx, "Backward Compatibility with Initialization-Based
// Versions": "A dual-era server MAY serve both eras concurrently on the
// same endpoint"), choosing by how the client opens: per-request _meta
// selects the stateless revision, initialize selects the legacy one.
//
// The go-sdk serves 2026-07-28 only on a stateless transport
// (StreamableServerTransport.SupportsProtocolVersion): a stateful
// handler answers server/discover with the legacy versions alone, and the
// client falls back to initialize. So each address has two go-sdk
// handlers over the same mcp.Server, and the same tools, resources and
// prompts: the stateful one every older client has used until now
// (sessions, Last-Event-ID resumption, elicitation during a call), and a
// stateless one for requests whose MCP-Protocol-Version header names
// 2026-07-28 or later. The header is required on every modern POST
// (basic/transports/streamable-http.mdx, "Protocol Version Header") and
// no older client sends a version that recent, so the header alone routes
// a request, before its body is read; the go-sdk then checks it against
// the body's _meta (400, HeaderMismatch -32020, on a mismatch).
//
// What a modern request keeps from the stateful path: the body and batch
// checks (jsonrpc.go; a modern POST carries one message, and a batch is
// refused as under every version after 2025-03-26), and the cancellation
// of its calls when its connection closes (cancel.go; the transport
// section "Cancellation": closing the response stream is the
// cancellation). What it does not take: a session's place among the live
// sessions (live.go) — it has none, and an Mcp-Session-Id it sends is
// ignored, as the transport section "Earlier Streamable HTTP Revisions"
// asks; and resumption (resume.go) — 2026-07-28 removes Last-Event-ID
// (changelog, major change 9), so a broken stream loses its call and the
// call stops. A GET or DELETE in the modern version is answered 405 by
// the go-sdk (no GET stream, no session to delete); a GET without that
// header is still an HTTP+SSE client's.
//
// Who a modern call is charged to follows from what it carries
// (callerOf): the named client or OAuth subject that authenticated it,
// else the client's address, the rule for a request before a session has
// been issued. Anonymous modern clients behind one address are one
// client to the scheduler and the client limits.

// modern reports whether r is spoken in a protocol version without
// sessions: its MCP-Protocol-Version header names 2026-07-28 or later
// ([inbound.Modern], the one reading the client limits share). A version
// later than any the go-sdk knows is modern too, and the go-sdk answers
// it with UnsupportedProtocolVersion (-32022) listing the versions this
// server speaks, which is how the specification lets a client retry
// (basic/versioning.mdx, "Protocol Version Negotiation").
func modern(r *http.Request) bool { return inbound.Modern(r) }

// statelessHandler is the go-sdk handler of srv's modern requests: one
// ephemeral go-sdk session per request, its handlers' contexts ending
// with the request's (PropagateRequestCancellation).
func (s *Server) statelessHandler(srv *mcp.Server, o HTTPOptions) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		PropagateRequestCancellation: true,
		MaxRequestBodyBytes:          o.MaxBodyBytes,
		Logger:                       s.o.Logger,
	})
}

// serveModern serves one modern request: a POST is registered as the
// stateful path registers one (its calls end with its connection), with
// no session's place and no event stream to watch.
func (s *Server) serveModern(w http.ResponseWriter, r *http.Request, rs *resumer, next http.Handler) {
	r.Header.Del(sessionHeader)
	r.Header.Del(lastEventIDHeader)
	if r.Method == http.MethodPost {
		e := newPostEntry(r.Context(), rs)
		e.tok = s.posts.add(e)
		// No session and no stream id: ended cancels what is left at
		// once (nothing can resume it) and forgets the token.
		defer func() { rs.ended(e, r.Context().Err() != nil) }()
		r.Header.Set(postHeader, e.tok)
	}
	next.ServeHTTP(w, r)
}

package inbound

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// SessionHeader is the streamable HTTP session header.
const SessionHeader = "Mcp-Session-Id"

// JSON-RPC error codes of the Guard's refusals (the implementation-defined
// server range -32000…-32099).
const (
	// CodeRateLimited marks a 429: a limit refused the request.
	CodeRateLimited = -32029
	// CodeForbiddenOrigin marks a 403: the Origin is not allowed.
	CodeForbiddenOrigin = -32003
)

// GuardOptions configure a [Guard]. Nil fields mean the defaults.
type GuardOptions struct {
	// Limits holds the rate limits; nil turns them off (the Origin check
	// stays).
	Limits *Limits
	// Origins is the Origin allow list; nil admits only requests without
	// an Origin and pages of this server reached as localhost.
	Origins *Origins
	// ClientIP returns a request's client address; nil means the
	// connection's peer, ignoring forwarding headers.
	ClientIP func(*http.Request) netip.Addr
	// Now is the clock the limits read (nil: time.Now).
	Now func() time.Time
	// Route names the connector bucket one JSON-RPC message sent to
	// address counts against: a connector id, or [NoConnector] for a
	// message that touches none; ok is false when address is no MCP
	// address (no connector bucket at all). A request without a body (a
	// GET, a DELETE) is routed as the zero Message. Nil: no connector
	// buckets.
	Route func(address string, m Message) (connector string, ok bool)
	// MaxBodyBytes is the most of a POST body the Guard reads to route its
	// messages: the MCP handler's own cap (server.max_body_kb). A longer
	// body is passed on unread, as one message, for the handler to refuse.
	// Default 1 MiB.
	MaxBodyBytes int64
	// Principal returns the authenticated client a request comes from
	// ([Request.Principal]; "" when anonymous). Nil: every request is
	// anonymous.
	Principal func(*http.Request) string
	// MarkChecked, when set (tracing is on), stamps every request the
	// limits let through with when they were checked ([CheckedHeader]),
	// so that the call's trace shows the check as its own span; whatever
	// a client sent in that header is dropped first.
	MarkChecked bool
	// MaxBatch is the MCP handler's cap on a batch's messages
	// (server.max_batch): a larger batch is refused whole by the handler,
	// none of its messages run, so it costs one token, as one request,
	// not one per message. 0: no cap known, every batch costs its size.
	MaxBatch int
}

// Guard is the HTTP middleware in front of the MCP addresses: it refuses
// foreign origins (403) and answers allowed ones with CORS headers (and
// their preflight requests itself), applies the [Limits] (429 with
// Retry-After and a JSON-RPC error naming the limit) to every request,
// learns which session ids the server issued from the responses, and puts
// the client address in the request's context ([ClientIPFromContext]).
//
// To charge each JSON-RPC message to its connector's bucket
// ([GuardOptions.Route]) it reads a POST's body, bounded, and hands it on
// to the handler unchanged; a request the process, session or client
// address limit refuses is refused before its body is read.
//
// A Guard is safe for concurrent use.
type Guard struct {
	next          http.Handler
	o             GuardOptions
	originRefused atomic.Uint64
}

// NewGuard wraps next.
func NewGuard(next http.Handler, o GuardOptions) *Guard {
	if next == nil {
		panic("inbound.NewGuard: nil handler")
	}
	if o.ClientIP == nil {
		o.ClientIP = func(r *http.Request) netip.Addr { return parseHop(r.RemoteAddr) }
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	return &Guard{next: next, o: o}
}

type clientIPKey struct{}

// ClientIPFromContext returns the client address a Guard found for the
// request whose context this is.
func ClientIPFromContext(ctx context.Context) (netip.Addr, bool) {
	a, ok := ctx.Value(clientIPKey{}).(netip.Addr)
	return a, ok
}

// ServeHTTP implements http.Handler.
func (g *Guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.o.Origins.Allowed(r) {
		g.originRefused.Add(1)
		writeError(w, http.StatusForbidden, CodeForbiddenOrigin,
			fmt.Sprintf("BesluitBron: Origin %q is not allowed on the MCP addresses; an administrator can add it to server.allowed_origins", r.Header.Get("Origin")), nil)
		return
	}
	origin := r.Header.Get("Origin")
	if origin != "" {
		// An allowed browser page must be able to read the answers, the
		// session id and a 429's Retry-After (CORS); refusals included.
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, Retry-After")
	}
	ip := g.o.ClientIP(r)
	r = r.WithContext(context.WithValue(r.Context(), clientIPKey{}, ip))
	l := g.o.Limits
	sid, legacy := sessionOf(r)
	if g.o.MarkChecked {
		r.Header.Del(CheckedHeader)
	}
	if l != nil {
		var checked time.Time
		if g.o.MarkChecked {
			checked = g.o.Now()
		}
		req := Request{Address: r.URL.Path, Session: sid, IP: ip}
		if g.o.Principal != nil {
			req.Principal = g.o.Principal(r)
		}
		// A request the layers that need no body refuse anyway is refused
		// before its body is read.
		d := l.PeekAt(g.o.Now(), req)
		if d.OK {
			req.Uses = g.uses(r)
			d = l.AllowAt(g.o.Now(), req)
		} else {
			l.count(d)
		}
		if !d.OK {
			refuse(w, d)
			return
		}
		if g.o.MarkChecked {
			r.Header.Set(CheckedHeader, strconv.FormatInt(checked.UnixNano(), 10)+","+strconv.FormatInt(g.o.Now().UnixNano(), 10))
		}
	}
	if origin != "" && r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h := w.Header()
		h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
		h.Set("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if l == nil {
		g.next.ServeHTTP(w, r)
		return
	}
	sw := &sessionWatch{ResponseWriter: w, g: g, address: r.URL.Path, sid: sid, legacy: legacy}
	g.next.ServeHTTP(sw, r)
	if sid != "" && (sw.status == http.StatusNotFound || r.Method == http.MethodDelete && sw.status < 300 && sw.status != 0) {
		// The server no longer knows the session (it timed out or the
		// client ended it): its id is now as good as invented.
		l.SessionEnded(r.URL.Path, sid)
	}
}

// CheckedHeader carries, from the Guard to the MCP edge, when the client
// limits checked a request that passed them: "<start>,<end>" in Unix
// nanoseconds (see GuardOptions.MarkChecked). The Guard overwrites
// whatever a client sends in it.
const CheckedHeader = "X-Besluitbron-Limits-Checked"

// Checked reads [CheckedHeader]: when the limits began and ended checking
// the request; ok is false when the header is absent or malformed.
func Checked(h http.Header) (start, end time.Time, ok bool) {
	a, b, found := strings.Cut(h.Get(CheckedHeader), ",")
	if !found {
		return start, end, false
	}
	s, err1 := strconv.ParseInt(a, 10, 64)
	e, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || e < s {
		return start, end, false
	}
	return time.Unix(0, s), time.Unix(0, e), true
}

// legacyPrefix marks, among the Limits' session ids, those of HTTP+SSE
// clients (protocol 2024-11-05), which name their session in the
// ?sessionid= query parameter of their POSTs instead of a header. An HTTP
// header value cannot hold a NUL (the server refuses the request), so the
// two kinds of id never meet.
const legacyPrefix = "\x00sse:"

// sessionOf returns the session id a request carries: none for a request
// of MCP 2026-07-28 or later, else its Mcp-Session-Id header, or for a
// POST of an HTTP+SSE client (no header, ?sessionid=) the query parameter
// with legacyPrefix.
func sessionOf(r *http.Request) (id string, legacy bool) {
	if Modern(r) {
		// MCP 2026-07-28 has no sessions: an Mcp-Session-Id on such a
		// request is ignored, by the MCP handler as here, and the request
		// counts as one before a session (its client's address, or the
		// authenticated client).
		return "", false
	}
	if id := r.Header.Get(SessionHeader); id != "" {
		return id, false
	}
	if r.Method == http.MethodPost {
		if q := r.URL.Query().Get("sessionid"); q != "" {
			return legacyPrefix + q, true
		}
	}
	return "", false
}

// refuse writes the 429, or a 413 for a batch no wait admits.
func refuse(w http.ResponseWriter, d Decision) {
	name := d.Name()
	if d.Layer == Connector && d.Connector == NoConnector {
		name += " (calls that touch no connector)"
	}
	if d.Layer == Client {
		name += " address (all requests of one client address, its sessions' included)"
	}
	data := map[string]any{"limit": d.Layer.String(), "rps": d.Limit.RPS, "burst": d.Limit.Burst}
	if d.Layer == Connector {
		data["connector"] = d.Connector
	}
	rps := strconv.FormatFloat(d.Limit.RPS, 'f', -1, 64)
	if d.Never {
		data["messages"] = d.Messages
		writeError(w, http.StatusRequestEntityTooLarge, CodeRateLimited,
			fmt.Sprintf("BesluitBron: too many messages in one request: the %s limit (%s requests per second, burst %d) can never admit %d at once; send at most %d per batch",
				name, rps, d.Limit.Burst, d.Messages, d.Limit.Burst), data)
		return
	}
	secs := d.RetryAfterSeconds()
	data["retryAfterSeconds"] = secs
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	writeError(w, http.StatusTooManyRequests, CodeRateLimited,
		fmt.Sprintf("BesluitBron: too many requests: the %s limit (%s requests per second, burst %d) refused this request; retry after %d s",
			name, rps, d.Limit.Burst, secs), data)
}

// writeError writes a JSON-RPC error response with a null id (a refused
// request's id is not looked up).
func writeError(w http.ResponseWriter, status, code int, msg string, data any) {
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	body, _ := json.Marshal(struct {
		JSONRPC string   `json:"jsonrpc"`
		ID      any      `json:"id"`
		Error   rpcError `json:"error"`
	}{"2.0", nil, rpcError{code, msg, data}})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// sessionWatch sees the response status and the session id the server
// issues (the go-sdk handler sets Mcp-Session-Id on the response that
// creates a session).
//
// An HTTP+SSE client's session is learnt from its POSTs instead: the
// handler accepts a message for a live ?sessionid= (202) and answers 404
// for any other, so an accepted id is one the server issued. Its first
// POST counts against its client address, as a streamable client's
// initialize does.
type sessionWatch struct {
	http.ResponseWriter
	g       *Guard
	address string
	sid     string
	legacy  bool
	status  int
}

func (s *sessionWatch) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
		if code < 300 {
			if id := s.Header().Get(SessionHeader); id != "" && id != s.sid {
				s.g.o.Limits.SessionStarted(s.g.o.Now(), s.address, id)
			} else if s.legacy {
				s.g.o.Limits.SessionStarted(s.g.o.Now(), s.address, s.sid)
			}
		}
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *sessionWatch) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.WriteHeader(http.StatusOK)
	}
	return s.ResponseWriter.Write(b)
}

// Flush passes a flush on (server-sent event streams).
func (s *sessionWatch) Flush() {
	if s.status == 0 {
		s.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(s.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (s *sessionWatch) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// OriginRefused counts requests refused for their Origin.
func (g *Guard) OriginRefused() uint64 { return g.originRefused.Load() }

// Limits returns the Guard's limits (nil when the limits are off).
func (g *Guard) Limits() *Limits { return g.o.Limits }

var _ http.Handler = (*Guard)(nil)
var _ http.Flusher = (*sessionWatch)(nil)

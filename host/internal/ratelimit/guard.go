package ratelimit

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
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
	// Limiter holds the rate limits; nil turns them off (the Origin check
	// stays).
	Limiter *Limiter
	// Origins is the Origin allow list; nil admits only requests without
	// an Origin and pages of this server reached as localhost.
	Origins *Origins
	// ClientIP returns a request's client address; nil means the
	// connection's peer, ignoring forwarding headers.
	ClientIP func(*http.Request) netip.Addr
	// Now is the clock the limits read (nil: time.Now).
	Now func() time.Time
}

// Guard is the HTTP middleware in front of the MCP addresses: it refuses
// foreign origins (403) and answers allowed ones with CORS headers (and
// their preflight requests itself), applies the [Limiter] (429 with
// Retry-After and a JSON-RPC error naming the limit) to every request,
// learns which session ids the server issued from the responses, and puts
// the client address in the request's context ([ClientIPFromContext]).
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
		panic("ratelimit.NewGuard: nil handler")
	}
	if o.ClientIP == nil {
		o.ClientIP = func(r *http.Request) netip.Addr { return parseHop(r.RemoteAddr) }
	}
	if o.Now == nil {
		o.Now = time.Now
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
	l := g.o.Limiter
	sid := r.Header.Get(SessionHeader)
	if l != nil {
		if d := l.AllowAt(g.o.Now(), Request{Address: r.URL.Path, Session: sid, IP: ip}); !d.OK {
			refuse(w, d)
			return
		}
	}
	if origin != "" && r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		h := w.Header()
		h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
		h.Set("Access-Control-Allow-Headers", "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID")
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if l == nil {
		g.next.ServeHTTP(w, r)
		return
	}
	sw := &sessionWatch{ResponseWriter: w, g: g, address: r.URL.Path, sid: sid}
	g.next.ServeHTTP(sw, r)
	if sid != "" && (sw.status == http.StatusNotFound || r.Method == http.MethodDelete && sw.status < 300 && sw.status != 0) {
		// The server no longer knows the session (it timed out or the
		// client ended it): its id is now as good as invented.
		l.SessionEnded(r.URL.Path, sid)
	}
}

// refuse writes the 429.
func refuse(w http.ResponseWriter, d Decision) {
	secs := d.RetryAfterSeconds()
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	msg := fmt.Sprintf("BesluitBron: too many requests: the %s limit (%s requests per second, burst %d) refused this request; retry after %d s",
		d.Layer, strconv.FormatFloat(d.Limit.RPS, 'f', -1, 64), d.Limit.Burst, secs)
	writeError(w, http.StatusTooManyRequests, CodeRateLimited, msg, map[string]any{
		"limit": d.Layer.String(), "retryAfterSeconds": secs, "rps": d.Limit.RPS, "burst": d.Limit.Burst,
	})
}

// writeError writes a JSON-RPC error response with a null id: the
// request's body is deliberately not read, so a refusal costs nothing.
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
type sessionWatch struct {
	http.ResponseWriter
	g       *Guard
	address string
	sid     string
	status  int
}

func (s *sessionWatch) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
		if code < 300 {
			if id := s.Header().Get(SessionHeader); id != "" && id != s.sid {
				s.g.o.Limiter.SessionStarted(s.g.o.Now(), s.address, id)
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

// Limiter returns the Guard's limiter (nil when the limits are off).
func (g *Guard) Limiter() *Limiter { return g.o.Limiter }

var _ http.Handler = (*Guard)(nil)
var _ http.Flusher = (*sessionWatch)(nil)

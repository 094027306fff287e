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
	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/host/internal/serve/auth"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sched"
)

// HTTPOptions configure the streamable HTTP handler. Zero values mean the
// defaults.
type HTTPOptions struct {
	// MaxBodyBytes caps a request body (default 1 MiB).
	MaxBodyBytes int64
	// SessionTimeout closes sessions no request has used for this long
	// (server.session_idle_timeout, default [DefaultSessionTimeout]).
	SessionTimeout time.Duration
	// ClientAddr returns the client's address for a request (after the
	// trusted-proxy rules); default: the connection's address.
	ClientAddr func(*http.Request) string
	// MaxSessions caps the live sessions in all (default
	// [DefaultMaxSessions]); a new one past it is refused with 503.
	MaxSessions int
	// MaxSessionsPerIP caps the live sessions of one client address
	// (default [DefaultMaxSessionsPerIP]); past it, 429.
	MaxSessionsPerIP int
	// MaxStreamsPerSession caps the open event streams (GET) of one
	// session (default [DefaultMaxStreamsPerSession]); past it, 429.
	MaxStreamsPerSession int
	// MaxStreamsPerIP caps the open event streams of one client address,
	// streamable GET streams and HTTP+SSE streams together (default
	// [DefaultMaxStreamsPerIP]); past it, 429.
	MaxStreamsPerIP int
	// MaxBatch caps the messages of one JSON-RPC batch (default
	// [DefaultMaxBatch]); a larger batch gets a -32600 error naming the
	// cap.
	MaxBatch int
	// EventStore, when set, keeps every stream's events so that a client
	// whose connection dropped resumes the stream with Last-Event-ID and
	// gets the answers it missed (resume.go); nil: streams are not
	// resumable and a call whose connection closes is cancelled at once.
	EventStore mcp.EventStore
	// ResumeGrace is how long a call whose stream's connection closed
	// keeps running for a resumption (server.resume_grace, default
	// [DefaultResumeGrace]).
	ResumeGrace time.Duration
	// PollAfter closes the event stream of a call still running after this
	// long with a retry hint of PollRetry, for the client to resume
	// (server.stream_poll_after, default [DefaultPollAfter]; negative:
	// never). Only streams that began with a priming event are closed.
	PollAfter time.Duration
	// PollRetry is that hint (server.stream_retry, default
	// [DefaultPollRetry]).
	PollRetry time.Duration
	// PrimeHold is how long the flush of a stream's priming event waits
	// for the call's answer, so that a quick call's two events leave in
	// one write (default [DefaultPrimeHold]; negative: at once).
	PrimeHold time.Duration
	// Clock times the grace, the polls and the held priming flushes
	// (default: the system's).
	Clock sched.Clock
	// Registerer, when set, gets the metrics of the live sessions and
	// streams (besluitbron_sessions_open, besluitbron_streams_open,
	// besluitbron_sessions_refused_total, besluitbron_streams_refused_total).
	// A second handler's are not registered: the first one's stay.
	Registerer prometheus.Registerer
}

func (o *HTTPOptions) defaults() {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.ClientAddr == nil {
		o.ClientAddr = RemoteIP
	}
	if o.ResumeGrace <= 0 {
		o.ResumeGrace = DefaultResumeGrace
	}
	if o.PollAfter == 0 {
		o.PollAfter = DefaultPollAfter
	}
	if o.PollRetry <= 0 {
		o.PollRetry = DefaultPollRetry
	}
	if o.PrimeHold == 0 {
		o.PrimeHold = DefaultPrimeHold
	}
	if o.Clock == nil {
		o.Clock = systemClock{}
	}
	for _, f := range []struct {
		v   *int
		def int
	}{
		{&o.MaxSessions, DefaultMaxSessions},
		{&o.MaxSessionsPerIP, DefaultMaxSessionsPerIP},
		{&o.MaxStreamsPerSession, DefaultMaxStreamsPerSession},
		{&o.MaxStreamsPerIP, DefaultMaxStreamsPerIP},
		{&o.MaxBatch, DefaultMaxBatch},
	} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
}

// Handler serves /mcp/unified/v1 and /mcp/<id>/v1 over streamable HTTP:
// stateful for the clients of protocol versions up to 2025-11-25, so that
// each gets an Mcp-Session-Id, and stateless for those of 2026-07-28 and
// later, which have no sessions (stateless.go); with the caps on
// live sessions and streams (live.go), the cancellation of calls whose
// client has gone (cancel.go) and the checks on bodies and batches
// (jsonrpc.go). The caps hold across every address of one Handler.
func (s *Server) Handler(o HTTPOptions) http.Handler {
	o.defaults()
	lv := newLive(o)
	if o.Registerer != nil {
		if err := o.Registerer.Register(liveCollector{lv}); err != nil {
			if _, dup := err.(prometheus.AlreadyRegisteredError); !dup {
				s.o.Logger.Warn("session metrics not registered", "error", err)
			}
		}
	}
	s.lastLive.Store(lv)
	rs := newResumer(o, &s.posts)
	s.lastResumer.Store(rs)
	batch := batchRules{max: o.MaxBatch, version: func(r *http.Request) string {
		if v := r.Header.Get(protocolVersionHeader); v != "" {
			return v
		}
		return lv.version(r.Header.Get(sessionHeader))
	}}
	mux := http.NewServeMux()
	add := func(path string, srv *mcp.Server) {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
			SessionTimeout:      o.SessionTimeout,
			MaxRequestBodyBytes: o.MaxBodyBytes,
			Logger:              s.o.Logger,
			EventStore:          o.EventStore,
		})
		// Clients of the 2024-11-05 protocol speak HTTP+SSE: a GET opens
		// an event stream naming a POST endpoint (?sessionid=…). The
		// specification's backwards-compatibility advice is to serve both
		// on one address; a streamable-HTTP GET always carries a session.
		legacy := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.SSEOptions{MaxRequestBodyBytes: o.MaxBodyBytes})
		// Bodies that are not JSON-RPC messages get JSON-RPC errors
		// (jsonrpc.go), on both transports.
		inner := jsonRPCErrors(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isLegacySSE(r) {
				if r.Method == http.MethodGet {
					w, r = legacyStream(w, r)
				}
				legacy.ServeHTTP(w, r)
				return
			}
			h.ServeHTTP(w, r)
		}), o.MaxBodyBytes, batch)
		// Requests of protocol 2026-07-28 and later (stateless.go).
		modernH := jsonRPCErrors(s.statelessHandler(srv, o), o.MaxBodyBytes, batch)
		// The caps answer before a body is read.
		mux.Handle(path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ip := o.ClientAddr(r)
			r.Header.Set(ClientHeader, ip)
			r.Header.Del(postHeader)
			if modern(r) {
				s.serveModern(w, r, rs, modernH)
				return
			}
			// The caps per address hold per client for an authenticated
			// one (server.auth): its sessions and streams are counted
			// as its own, not its address's (a newsroom behind one NAT).
			holder := ip
			if p, ok := auth.FromContext(r.Context()); ok {
				holder = p.ID()
			}
			switch {
			case r.Method == http.MethodGet && isLegacySSE(r):
				// An HTTP+SSE client: its stream is its session.
				slot, no := lv.openSession(holder)
				if no != nil {
					no.write(w)
					return
				}
				defer slot.abandon()
				done, no := lv.openStream(nil, holder)
				if no != nil {
					no.write(w)
					return
				}
				defer done()
			case r.Method == http.MethodGet:
				// A GET with Last-Event-ID resumes a POST's stream (one per
				// call that was polled or dropped): it counts against the
				// address's streams, not against the session's own few.
				slot := lv.session(r.Header.Get(sessionHeader))
				if r.Header.Get(lastEventIDHeader) != "" {
					slot = nil
				}
				done, no := lv.openStream(slot, holder)
				if no != nil {
					no.write(w)
					return
				}
				defer done()
				// A stream keeps its session busy: never evicted.
				defer lv.begin(lv.session(r.Header.Get(sessionHeader)))()
				normalizeVersion(r, lv.version(r.Header.Get(sessionHeader)))
				defer rs.adopt(r)()
			case r.Method == http.MethodPost && !isLegacySSE(r):
				e := newPostEntry(r.Context(), rs)
				e.session = r.Header.Get(sessionHeader)
				normalizeVersion(r, lv.version(e.session))
				if o.EventStore != nil {
					e.watch = &streamWatch{ResponseWriter: w, hold: o.PrimeHold, clock: o.Clock}
					defer e.watch.finish()
					w = e.watch
				}
				if r.Header.Get(sessionHeader) == "" {
					slot, no := lv.openSession(holder)
					if no != nil {
						no.write(w)
						return
					}
					defer slot.abandon()
					e.slot = slot
				} else {
					// A session with a request running is not idle; its
					// activity orders the evictions.
					defer lv.begin(lv.session(e.session))()
				}
				e.tok = s.posts.add(e)
				defer func() { rs.ended(e, r.Context().Err() != nil) }()
				r.Header.Set(postHeader, e.tok)
			}
			inner.ServeHTTP(w, r)
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

// The streamable transport's headers.
const (
	sessionHeader         = "Mcp-Session-Id"
	protocolVersionHeader = "Mcp-Protocol-Version"
)

// LiveStats returns the live sessions' and streams' figures of the
// Handler made last.
func (s *Server) LiveStats() LiveStats {
	if lv := s.lastLive.Load(); lv != nil {
		return lv.stats()
	}
	return LiveStats{}
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }
func (systemClock) AfterFunc(d time.Duration, f func()) sched.Timer {
	return time.AfterFunc(d, f)
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
	// principal is the client that authenticated the stream's GET
	// (server.auth "keys" or "oauth"): the client of every call of the
	// session.
	principal auth.Principal
	// stream is the GET's context: it ends when the stream closes, and
	// the session's calls with it (cancel.go).
	stream context.Context
}

type legacyKey struct{}

func (l *legacySession) caller() callinfo.Caller {
	c := l.principal.Caller()
	c.Address = l.client
	if id := l.id.Load(); id != nil {
		c.Session = *id
	}
	return c
}

// legacyStream wraps the GET that opens an HTTP+SSE session.
func legacyStream(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request) {
	ls := &legacySession{client: r.Header.Get(ClientHeader), stream: r.Context()}
	ls.principal, _ = auth.FromContext(r.Context())
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

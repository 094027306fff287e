package mcpserver

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call whose client has gone is cancelled.
//
// On streamable HTTP, the answers to the requests of a POST go back on
// that POST's response (an event stream or one JSON object). The go-sdk
// runs each request's handler in a context of the session, not of the
// POST, and keeps running it when the POST's connection closes (its own
// code says so: "if we have no event store, we should really cancel all
// remaining requests here"); only protocol versions from 2026-07-28 have
// an option for it. This server keeps no event store, so an answer whose
// POST has gone can never be delivered (no Last-Event-ID resumption): the
// call would only hold its place in the scheduler's queue, a connector
// instance and the platform's quota for nobody.
//
// So every streamable POST gets a token in an internal header (the go-sdk
// hands each request's handler the POST's headers, RequestExtra.Header),
// registered with the POST's context while the POST runs; a receiving
// middleware ties each request's handler context to that POST's, for every
// element of a batch alike. When the connection closes, the POST's context
// ends, and with it every call of the POST: a call waiting at a platform's
// limit leaves the queue and is never sent. A request whose POST has
// already ended when its handler starts is refused at once. Calls over
// stdio and HTTP+SSE carry no token. An HTTP+SSE client's POST is
// answered 202 at once and its answers go on its stream: its calls are
// tied to the stream's GET instead, since the go-sdk neither cancels them
// when the stream closes nor lets the session close before they end.
//
// The same token carries the session's place ([liveSlot]) of a POST that
// creates a session, for the initialize handler to bind.

// postHeader is the internal header naming a POST's token; the HTTP layer
// deletes whatever a client sends in it.
const postHeader = "X-Besluitbron-Post"

// errClientGone is the cause of a call cancelled because its POST's
// connection closed.
var errClientGone = errors.New("the client closed the connection before the answer")

// posts are the POSTs running now, by token.
type posts struct {
	mu   sync.Mutex
	next uint64
	m    map[string]*postEntry
}

func (p *posts) add(e *postEntry) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	tok := strconv.FormatUint(p.next, 36)
	if p.m == nil {
		p.m = map[string]*postEntry{}
	}
	p.m[tok] = e
	return tok
}

func (p *posts) remove(tok string) {
	p.mu.Lock()
	delete(p.m, tok)
	p.mu.Unlock()
}

func (p *posts) get(tok string) *postEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[tok]
}

// running is the number of POSTs registered (for tests).
func (p *posts) running() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.m)
}

// followPost is the receiving middleware that ties each request of a
// streamable POST to that POST, and binds a new session to its place.
func (s *Server) followPost(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		tok := ""
		if extra := req.GetExtra(); extra != nil && extra.Header != nil {
			tok = extra.Header.Get(postHeader)
		}
		if tok == "" {
			// An HTTP+SSE client's calls live as long as its stream.
			if ls, ok := ctx.Value(legacyKey{}).(*legacySession); ok && ls.stream != nil && method != "initialize" {
				return tied(ctx, ls.stream, method, req, next)
			}
			return next(ctx, method, req)
		}
		p := s.posts.get(tok)
		if method == "initialize" {
			res, err := next(ctx, method, req)
			ss, _ := req.GetSession().(*mcp.ServerSession)
			if ss == nil {
				return res, err
			}
			if p == nil || p.slot == nil {
				if p == nil {
					// Its client has gone before learning the session
					// id: nobody can use the session.
					go ss.Close() // not from inside its own handler
				}
				return res, err
			}
			version := ""
			if ir, ok := res.(*mcp.InitializeResult); ok && ir != nil {
				version = ir.ProtocolVersion
			}
			// Bound whatever the outcome: the place is given back when the
			// session closes, and a failed initialize's session is closed
			// by the go-sdk. A place already given back (the POST ended
			// first): nobody counts the session, so it goes.
			if !p.slot.bind(ss, version) {
				go ss.Close()
			}
			return res, err
		}
		if p == nil {
			return nil, errClientGone
		}
		if method == "tools/call" {
			stop := p.r.poll(p, req)
			defer stop()
		}
		done := p.begin()
		defer done()
		return tied(ctx, p.life, method, req, next)
	}
}

// tied runs next in a context that also ends when parent (the POST's
// life, resume.go, or the HTTP+SSE stream's request context) does, with
// parent's cause.
func tied(ctx, parent context.Context, method string, req mcp.Request, next mcp.MethodHandler) (mcp.Result, error) {
	if parent.Err() != nil {
		return nil, cause(parent)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(parent, func() { cancel(cause(parent)) })
	defer stop()
	return next(tiedCtx{ctx, parent}, method, req)
}

// tiedCtx is a call's context tied to its parent (the POST's life): its
// Err reports the parent's end at once, before the callback that cancels
// it has run, so that a check just before a platform is asked (the
// scheduler's, the cache's, the fetch gate's) sees a call cancelled when
// server.resume_grace passed in the instant it was (issue 27). Done,
// Value and the cause are the cancelled context's.
type tiedCtx struct {
	context.Context
	parent context.Context
}

func (c tiedCtx) Err() error {
	if err := c.Context.Err(); err != nil {
		return err
	}
	if c.parent.Err() != nil {
		return context.Canceled
	}
	return nil
}

// cause is why parent ended, errClientGone when it says nothing more.
func cause(parent context.Context) error {
	if c := context.Cause(parent); c != nil && c != context.Canceled {
		return c
	}
	return errClientGone
}

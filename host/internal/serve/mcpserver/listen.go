package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// subscriptions/listen (MCP 2026-07-28) subscribes through the address's
// subscribe handlers: the go-sdk calls them for each URI the listen names,
// with a request of its own making that carries the listen's session but
// not its RequestExtra, so the handlers could not tell who listens (a
// watch may be followed only by its owner) and would take the caller for
// the local client. listenCaller hands them the listen request's caller
// through the context; callerOf reads it when a request has no extra.

type listenCallerKey struct{}

// listenCaller is the receiving middleware that puts a
// subscriptions/listen request's caller in its context.
func listenCaller(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "subscriptions/listen" {
			ss, _ := req.GetSession().(*mcp.ServerSession)
			ctx = context.WithValue(ctx, listenCallerKey{}, callerOf(ctx, ss, req.GetExtra()))
		}
		return next(ctx, method, req)
	}
}

// listenerOf is the caller listenCaller put in ctx, if any.
func listenerOf(ctx context.Context) (callinfo.Caller, bool) {
	c, ok := ctx.Value(listenCallerKey{}).(callinfo.Caller)
	return c, ok
}

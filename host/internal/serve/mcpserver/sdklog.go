package mcpserver

import (
	"context"
	"log/slog"
)

// sdkLogger is the logger the go-sdk's servers write to: l, without the
// lines the go-sdk writes for every connection of a server ("server
// connecting", and "server session connected" and "disconnected" for a
// session without an id). A request of MCP 2026-07-28 is a connection
// and an ephemeral session of its own (stateless.go), so those three
// lines came with every such request and buried the log of the calls;
// an older client's session still logs its connection once, with its
// id.
func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(quietConnections{l.Handler()})
}

// quietConnections drops the go-sdk's per-connection lines.
type quietConnections struct{ slog.Handler }

// Handle implements slog.Handler.
func (q quietConnections) Handle(ctx context.Context, r slog.Record) error {
	if r.Level <= slog.LevelInfo && perConnection(r) {
		return nil
	}
	return q.Handler.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (q quietConnections) WithAttrs(as []slog.Attr) slog.Handler {
	return quietConnections{q.Handler.WithAttrs(as)}
}

// WithGroup implements slog.Handler.
func (q quietConnections) WithGroup(name string) slog.Handler {
	return quietConnections{q.Handler.WithGroup(name)}
}

// perConnection says whether r is one of the go-sdk's per-connection
// lines that names no session.
func perConnection(r slog.Record) bool {
	switch r.Message {
	case "server connecting":
		return true
	case "server session connected", "server session disconnected":
		anonymous := true
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "session_id" {
				anonymous = a.Value.String() == ""
				return false
			}
			return true
		})
		return anonymous
	}
	return false
}

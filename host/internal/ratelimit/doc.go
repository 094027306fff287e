// Package ratelimit protects BesluitBron itself from its clients: the
// limits on how often a client may call the MCP addresses, and the
// transport checks the MCP specification asks of a streamable HTTP server
// (Origin validation against an allow list, with CORS for the allowed
// browser origins). The limits on the source platforms are another matter
// (package sched and host/internal/limits).
//
//	l, err := ratelimit.New(&ratelimit.Options{
//		Process: ratelimit.Limit{RPS: 500, Burst: 1000},
//		Address: ratelimit.Limit{RPS: 200, Burst: 400},
//		Session: ratelimit.Limit{RPS: 20, Burst: 60},
//		IP:      ratelimit.Limit{RPS: 10, Burst: 30},
//		Addresses: []string{"/mcp/unified/v1", "/mcp/obv/v1"},
//	})
//	origins, err := ratelimit.NewOrigins(cfg.Server.AllowedOrigins)
//	h := ratelimit.NewGuard(mcpHandler, ratelimit.GuardOptions{Limiter: l, Origins: origins})
//
// # The layers
//
// Every request passes three token buckets ([golang.org/x/time/rate]):
//
//   - the process bucket, because a flood hurts the whole service;
//   - the bucket of its MCP address (/mcp/unified/v1, /mcp/<id>/v1), so
//     pressure on one address does not displace the clients of another;
//   - the bucket of its session, when it carries an Mcp-Session-Id the
//     server issued; otherwise (initialize, a client without sessions, an
//     id the server never issued or has forgotten) the bucket of its client
//     address, so that one client cannot take all the room before it has a
//     session, nor dodge its bucket by inventing session ids.
//
// The buckets are checked before any is consumed, under one lock, so a
// refused request takes no token from any layer and creates no bucket. A
// refusal names the refusing layer with the longest wait and that wait:
// the 429's Retry-After, in whole seconds rounded up (at least 1). A
// client that waits that long finds its own bucket refilled; on the
// process and address layers, which it shares, others may of course have
// taken the room meanwhile.
//
// # Bounded memory
//
// The process and address buckets are fixed at construction; paths that
// are not MCP addresses get no address bucket. Session buckets exist only
// for ids the server itself issued, on the address that issued them (the
// [Guard] learns them from the Mcp-Session-Id response header, and forgets
// one on DELETE or when the server answers 404 for it); they are
// forgotten after SessionIdle
// without a request, the MCP handler's own session timeout. Client-address
// buckets are dropped once unused for their refill time (burst/rate), when
// they are full again and dropping them changes no answer. Both tables are
// also capped ([Options.MaxSessions], [Options.MaxIPs]); past the cap the
// least recently used entry goes. A flood of distinct addresses therefore
// holds at most MaxIPs buckets, and invented session ids hold none.
// IPv6 clients share a bucket per /64 ([IPKey]).
//
// # Client identity
//
// The client address is the connection's peer; X-Forwarded-For or
// Forwarded are believed only from trusted proxies ([ClientIP]).
//
// A [Limiter] decides at an explicit instant ([Limiter.AllowAt]), so tests
// are step tables over fixed times; the [Guard] reads its clock from
// [GuardOptions.Now].
package ratelimit

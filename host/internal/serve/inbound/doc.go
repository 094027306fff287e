// Package inbound protects BesluitBron itself from its clients: the
// limits on how often a client may call the MCP addresses, and the
// transport checks the MCP specification asks of a streamable HTTP server
// (Origin validation against an allow list, with CORS for the allowed
// browser origins). The limits on the source platforms are another matter
// (package sched and host/internal/upstream/quota).
//
//	l, err := inbound.New(&inbound.Options{
//		Process:    inbound.Limit{RPS: 500, Burst: 1000},
//		Connector:  inbound.Limit{RPS: 200, Burst: 400},
//		Session:    inbound.Limit{RPS: 20, Burst: 60},
//		IP:         inbound.Limit{RPS: 10, Burst: 30},
//		Connectors: ids, // the loaded connectors
//	})
//	origins, err := inbound.NewOrigins(cfg.Server.AllowedOrigins)
//	h := inbound.NewGuard(mcpHandler, inbound.GuardOptions{
//		Limits: l, Origins: origins, Route: route, MaxBodyBytes: 1 << 20,
//	})
//
// # The layers
//
// Every request passes four layers of token buckets
// ([golang.org/x/time/rate]):
//
//   - the process bucket, because a flood hurts the whole service;
//   - the bucket of each connector its messages reach, on whichever address
//     they arrive, so that pressure on one connector does not displace the
//     clients of another: on an address serving several connectors
//     (/mcp/unified/v1, /sse) a tools/call counts against the connector of
//     its tool and a resources/read against the connector of its resource,
//     everything else (initialize, tools/list, ping, notifications, the
//     host's own tools) against one bucket of its own, [NoConnector]; on
//     /mcp/<id>/v1 every message counts against <id> ([GuardOptions.Route]
//     says which);
//   - the bucket of its session, when it carries a session id the server
//     issued (the Mcp-Session-Id header, or the ?sessionid= of an HTTP+SSE
//     client's POST); otherwise (initialize, a client without sessions, an
//     id the server never issued or has forgotten) the bucket of its client
//     address, so that one client cannot take all the room before it has a
//     session, nor dodge its bucket by inventing session ids;
//   - the client bucket of its address ([Options.Client]), for every
//     request, its sessions' included: the process and connector buckets
//     are shared, and without it one address with many sessions could
//     spend them for everyone (issue 27: its flood refused a fifth of
//     other clients' initialize). The host sets it, unless configured, to
//     half the smaller shared limit ([DefaultClient]); a request past it
//     is refused before any shared bucket is charged.
//
// Each JSON-RPC message costs a token: a batch of n messages takes n from
// the process bucket and from its session's (or address's), and from each
// connector's bucket as many as it sends there (without a
// [GuardOptions.Route] too: then only the connector layer is skipped). A
// batch of more messages than a bucket holds now is refused whole with
// 429 and the Retry-After after which it fits, taking nothing; one larger
// than a bucket's burst is refused outright (413), since no wait would
// admit it. (The MCP handler also caps a batch's messages, server.max_batch,
// and refuses batches under protocol versions without them.)
//
// The buckets are checked before any is consumed, under one lock, so a
// refused request takes no token from any layer and creates no bucket. A
// refusal names the refusing bucket with the longest wait ("connector
// <id>") and that wait: the 429's Retry-After, in whole seconds rounded up
// (at least 1). A client that waits that long finds its own bucket
// refilled; on the process and connector layers, which it shares, others
// may of course have taken the room meanwhile.
//
// # MCP 2026-07-28
//
// A request of MCP 2026-07-28 or later ([Modern]) names its method and
// its tool or resource in its Mcp-Method and Mcp-Name headers, and the
// Guard routes it by them without reading its body (headers.go); the MCP
// handler refuses a request whose headers and body disagree. Such a
// request has no session: an Mcp-Session-Id it carries is ignored, and it
// counts as a request before a session does, against its client
// address's bucket, or the authenticated client's own. Anonymous clients
// of that version behind one address (a NAT, a proxy not in
// server.trusted_proxies) therefore share one bucket.
//
// # Authenticated clients
//
// Under server.auth "keys" or "oauth" the Guard learns who a request comes
// from ([GuardOptions.Principal]). An authenticated client's requests
// count against a session-limit bucket and a client-limit bucket of its
// own, whatever session (or none) they carry, instead of its sessions'
// and its address's ([Request.Principal]): its limits hold across every
// session it opens, a reconnect does not refill them, and they do not
// fall on the others behind the same address. The process and connector
// buckets are shared as before.
//
// # Bounded memory
//
// The process and connector buckets are fixed at construction; messages
// routed to no known connector get no connector bucket. Session buckets
// exist only for ids the server itself issued, on the address that issued
// them (the [Guard] learns them from the Mcp-Session-Id response header,
// or from the handler accepting an HTTP+SSE client's POST, and forgets one
// on DELETE or when the server answers 404 for it); they are forgotten
// after SessionIdle
// without a request, the MCP handler's own session timeout. Client-address
// buckets are dropped once unused for their refill time (burst/rate), when
// they are full again and dropping them changes no answer. Both tables are
// also capped ([Options.MaxSessions], [Options.MaxIPs]); past the cap the
// least recently used entry goes. A flood of distinct addresses therefore
// holds at most MaxIPs buckets, and invented session ids hold none.
// IPv6 clients share a bucket per /64 ([IPKey]).
//
// # Connections and monitoring
//
// [Conns] caps a listener's connections in all and per address, shares
// them among the addresses when full (a newcomer under its share takes a
// place of the address furthest over its share) and keeps a reserve for
// the monitoring paths ([ReserveOnly]). [Monitor] guards the monitoring
// paths a public address serves (/metrics, /status/cluster.json): the
// pages' Host rule and a cap on concurrent renders.
//
// # Client identity
//
// The client address is the connection's peer; X-Forwarded-For or
// Forwarded are believed only from trusted proxies ([ClientIP]).
//
// A [Limits] decides at an explicit instant ([Limits.AllowAt]), so tests
// are step tables over fixed times; the [Guard] reads its clock from
// [GuardOptions.Now].
package inbound

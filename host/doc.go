// Package host is the BesluitBron server: it loads the configured
// connectors, gives each platform its policy (cache, quotas, fetch gate,
// fair admission), and serves their tools over MCP on streamable HTTP,
// HTTP+SSE and stdio, with its own features beside them: besluitbron_search,
// besluitbron_cite, besluitbron_check_quote, besluitbron_status, the search
// page and the Laadstatus.
//
//	ln, err := host.Listen(cfg.Server.Addr) // a busy address fails before any connector loads
//	h, err := host.Open(ctx, &host.Options{Config: cfg, Version: "1.0.0"}) // loads in the background
//	defer h.Close(ctx)
//	err = h.Serve(ctx, ln) // health checks at once, everything once loaded; until ctx is done
//
// New loads before it returns (check-config, stdio and tests use it);
// Open returns at once, so that /healthz answers and /readyz counts the
// connectors while a first start compiles them.
//
// # How New builds it (host.go, internal/platforms)
//
// The core, built by package platforms, per platform and in this order: the runtime that runs the
// connector (runtime/wasmrt or runtime/nativert) and its manifest; the
// quotas, from every manifest together (upstream/quota: the services of
// all connectors that name one upstream host share one limiter), shared
// through Redis when a cluster is configured (upstream/cluster decorates
// each quota); the platform's cache (upstream/cache, with the cluster's
// full-text tier behind it); the fetch gate over both (upstream/fetch);
// and fair admission to its instances (runtime/admission); what the
// unified address exposes of them (platforms.Exposure). Then the invoke
// path over them (serve/invoke), the host's own features (features.go:
// the Laadstatus job and its quota report, the host tools, the pages) and
// the MCP edge over all of it. The offline commands (`besluitbron cache
// stats|clear`, check-config's summary) are admin.go, answered by
// package platforms.
//
// # How a call flows
//
//  1. serve/auth (server.auth "keys" or "oauth"): a request without a
//     valid API key or access token is answered 401 before anything
//     else runs; an admitted one carries its named client or OAuth
//     subject, whom the limits, the scheduler and the logs count across
//     its sessions. Then serve/inbound: the Origin check and the client
//     limits (process, connector, session, address; an authenticated
//     client's own) answer before anything else runs.
//  2. serve/invoke, the one invoke path under every edge: the tool's
//     arguments are checked against its schema, with errors in words
//     (serve/mcpserver, the MCP edge, has decoded the request and asked
//     upstream/callinfo.ChargedTo who the call is charged to); a kept
//     result (serve/memo) whose
//     upstream answers are all still cached answers at once; otherwise
//     runtime/admission admits the call to a connector instance by the
//     scheduler's weights.
//  3. The connector (WebAssembly or native) translates the arguments into
//     fetches. Each fetch goes through upstream/fetch: the allowed hosts and
//     the dial guard; the cache (a hit answers); the quota, where
//     sched decides who is served next and the call may wait; the platform;
//     then the answer is cached and the quota learns from its 429s and
//     RateLimit headers. Every layer adds to the call's record
//     (upstream/callinfo): cache outcome, time queued and upstream, notes.
//  4. serve/invoke makes the connector's result and the record an
//     invoke.Answer (serve/cite gives each search result its cite); only
//     the MCP edge turns it into an MCP result (_meta: cache, queued_ms,
//     upstream_ms). The host's own features
//     (besluitbron_search, the pages, the Laadstatus) take the same path
//     through Engine.Invoke and read the Answer itself.
//
// A Host is safe for concurrent use.
package host

// Package mcpserver is BesluitBron's MCP face: it registers every
// connector's tools, resource templates and prompts on go-sdk servers and
// serves them over streamable HTTP and stdio.
//
// Addresses: /mcp/unified/v1 serves every connector's tools (and the
// host's own, such as the cross-platform search); /mcp/<id>/v1 serves one
// connector's. Tool names carry the connector id as prefix ("obv_search")
// on every address, unless the admin sets connectors.<id>.tool_prefix (and
// resource URIs may be rebased with connectors.<id>.resource_base); the
// host's own code calls tools by "<id>_<tool>" whatever clients see.
//
// Besides text, results may carry images, audio and embedded resources
// (connector.Content, checked before they are sent); a connector's log
// lines reach the calling client as notifications/message at the level it
// chose, and its progress reports as progress notifications when the client
// gave a token; prompts may be conversations, and prompt arguments with
// declared values complete (completion/complete).
//
// A tool call takes the invoke path ([invoke.Engine]: argument checks
// against the tool's JSON Schema with errors in words, kept results,
// admission, the connector on its fetch gate) and this package is its MCP
// edge: it turns the answer into an MCP result with _meta
// besluitbron/cache, besluitbron/queued_ms and besluitbron/upstream_ms,
// and a tool-level error into a tool error (isError) naming the platform,
// no longer than [invoke.MaxErrorText]; the server keeps serving. The
// host's own tools answer an [invoke.Answer] and pass the same edge. The
// host's features (the search page, the cross-platform search, the
// Laadstatus checks) call the engine directly; only this package, the
// event store and the host's face speak the go-sdk's MCP types.
//
// Clients of MCP 2026-07-28 (no sessions, server/discover, per-request
// _meta) are served on the same addresses as the older ones, by a
// stateless go-sdk handler over the same servers, chosen by the request's
// MCP-Protocol-Version header (stateless.go). A connector's question to
// such a client comes back in the call's result, input_required, and the
// call runs again with the answer (mrtr.go); they follow changing
// resources with subscriptions/listen (listen.go); lists and resource
// reads carry ttlMs and cacheScope for every client (cacheable.go).
//
// On the HTTP addresses, a POST whose body is not JSON gets a JSON-RPC
// -32700 Parse error and one that is not a JSON-RPC message a -32600
// Invalid Request, as JSON-RPC error objects with HTTP 400 (jsonrpc.go).
//
// Under hostile load (http.go, live.go, cancel.go): the live sessions are
// capped in all and per client address (429; IPv6 per /64); when the total
// is full a newcomer under its share (the total over the addresses holding
// sessions) takes the place of the least recently active idle session of
// an address over its share, and is refused (503) only when there is none
// (besluitbron_sessions_evicted_total); the open event streams (streamable GET streams and
// HTTP+SSE streams) per session and per client address (429), each
// refusal with Retry-After and a JSON-RPC error naming the configuration
// key, answered before a body is read; sessions idle for
// [HTTPOptions.SessionTimeout] are closed; the counts are metrics
// (besluitbron_sessions_open, besluitbron_streams_open,
// besluitbron_sessions_refused_total{reason},
// besluitbron_streams_refused_total{reason}). A call whose POST's
// connection closes before the answer is cancelled, every element of a
// batch alike, so it leaves the platform's queue unsent. Batches are
// refused under protocol versions without them and capped at
// [HTTPOptions.MaxBatch] messages (jsonrpc.go). A resource URI with a
// control character is refused as invalid params before the go-sdk sees
// it (rpcbounds.go).
//
// Who a call is charged to comes from what the edge knows of it
// (tools.go, callerOf): the named client or OAuth subject that
// serve/auth admitted (the go-sdk hands it on in RequestExtra.TokenInfo;
// an HTTP+SSE client's is its stream's), else the session, the address or
// the local client; callinfo.ChargedTo decides, and callinfo.Label gives
// the logs and metrics a bounded name.
//
// A [Server] is safe for concurrent use.
package mcpserver

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
// A tool call validates its arguments against the tool's JSON Schema (the
// host's own tools too). Arguments that do not fit get a tool error that
// names each argument, says the rule in words ("argument "page" must be at
// least 1 (got 0)"), shows a refused value cut to 200 characters with its
// length, and lists the tool's arguments when one is unknown or missing
// (argerrors.go); no tool error's text exceeds [MaxErrorText]. It runs the
// connector with the connector's fetch gate as its host, and returns the
// result with _meta besluitbron/cache, besluitbron/queued_ms and
// besluitbron/upstream_ms. Anything that goes wrong in the connector or
// upstream is a tool error (isError) naming the platform; the server keeps
// serving.
//
// The host's own features (the search page, the cross-platform search, the
// Laadstatus checks) call connector tools through [Server.Invoke], the same
// path without the MCP edge: it returns the connector's own result, the
// call's summary (with the host's notes) and a tool error as a Go error
// whose text is the one a client would read ([Answer]). A client's call is
// that path plus the conversion to an MCP result (run, tools.go).
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
// A [Server] is safe for concurrent use.
package mcpserver

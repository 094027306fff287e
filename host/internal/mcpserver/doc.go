// Package mcpserver is BesluitBron's MCP face: it registers every
// connector's tools, resource templates and prompts on go-sdk servers and
// serves them over streamable HTTP and stdio.
//
// Addresses: /mcp/unified/v1 serves every connector's tools (and the
// host's own, such as the cross-platform search); /mcp/<id>/v1 serves one
// connector's. Tool names carry the connector id as prefix ("obv_search")
// on every address.
//
// A tool call validates its arguments against the tool's JSON Schema
// (a tool error naming the argument if they do not fit), runs the
// connector with the connector's fetch gate as its host, and returns the
// result with _meta besluitbron/cache, besluitbron/queued_ms and
// besluitbron/upstream_ms. Anything that goes wrong in the connector or
// upstream is a tool error (isError) naming the platform; the server keeps
// serving.
//
// A [Server] is safe for concurrent use.
package mcpserver

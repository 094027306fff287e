// Package invoke owns what a tool call is to the host's own features
// (the search page, besluitbron_search, besluitbron_status, the
// Laadstatus checks): an [Answer] in the connector's terms, the
// [Invoker] that runs a connector tool by name, and the [HostTool] the
// host offers beside the connectors' tools.
//
// It exists so that no feature speaks MCP: the MCP server (mcpserver) is
// one edge that turns an Answer into a CallToolResult, and the features
// are built before it without binding to it later. Only mcpserver imports
// the go-sdk's result types (an architecture rule in the host package).
package invoke

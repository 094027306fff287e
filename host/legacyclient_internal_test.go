package host

import "github.com/modelcontextprotocol/go-sdk/mcp"

// legacyClient pins a go-sdk client to MCP 2025-11-25, as the external
// tests' legacyClient does (legacyclient_test.go): the benchmarks here
// measure the session clients they measured before 2026-07-28 was served.
var legacyClient = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}

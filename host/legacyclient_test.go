package host_test

import "github.com/modelcontextprotocol/go-sdk/mcp"

// legacyClient pins a go-sdk client to MCP 2025-11-25, the newest
// protocol version with sessions: the go-sdk's client asks for
// 2026-07-28 unless told, and the host now serves that version, without
// sessions (mcp2026_test.go). The tests of sessions, resumable streams,
// elicitation and per-session fairness are tests of the older clients,
// which keep all of it.
var legacyClient = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}

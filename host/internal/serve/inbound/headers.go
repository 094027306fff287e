package inbound

import (
	"encoding/base64"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Requests of MCP 2026-07-28 and later say what they are in their
// headers (basic/transports/streamable-http.mdx, "Standard Request
// Headers"): Mcp-Method mirrors the message's method, Mcp-Name its
// params.name (tools/call, prompts/get) or params.uri (resources/read).
// The specification mirrors them "so that intermediaries ... can route and
// inspect requests without parsing the body", and the Guard is such an
// intermediary: it routes a modern request to its connector's bucket by
// these headers and never reads its body.
//
// Trusting a header costs nothing: the MCP handler compares both headers
// with the body before it acts on the message and refuses a mismatch (400,
// HeaderMismatch -32020, the section "Server Validation"), so a client
// that names one connector in its headers and calls another's tool in its
// body has paid a token for the first and gets no call. The headers are
// believed only on a request whose MCP-Protocol-Version names a version
// that defines them, as that section's note for intermediaries advises;
// an older request's Mcp-Method is ignored and its body read as before.

// Header names of the modern request metadata.
const (
	ProtocolVersionHeader = "Mcp-Protocol-Version"
	MethodHeader          = "Mcp-Method"
	NameHeader            = "Mcp-Name"
)

// FirstModernVersion is the first MCP protocol version with the standard
// request headers and without sessions.
const FirstModernVersion = "2026-07-28"

// Modern reports whether r is spoken in MCP 2026-07-28 or later: its
// MCP-Protocol-Version header names such a version.
func Modern(r *http.Request) bool {
	return r.Header.Get(ProtocolVersionHeader) >= FirstModernVersion
}

// headerMessage is the message a modern request's headers describe; ok is
// false for an older request, a modern one without Mcp-Method, or an
// Mcp-Name that is not a well-formed header value, whose bodies are read
// instead (the MCP handler then refuses what the headers lack).
func headerMessage(r *http.Request) (m Message, ok bool) {
	if !Modern(r) {
		return Message{}, false
	}
	m.Method = r.Header.Get(MethodHeader)
	if m.Method == "" {
		return Message{}, false
	}
	switch m.Method {
	case "tools/call", "resources/read":
		name, ok := decodeHeaderValue(r.Header.Get(NameHeader))
		if !ok {
			return Message{}, false
		}
		if m.Method == "tools/call" {
			m.Tool = name
		} else {
			m.URI = name
		}
	}
	return m, true
}

// DecodeHeaderValue is decodeHeaderValue, for the MCP layer's own checks
// of a header against its body (the tasks/ methods' Mcp-Name).
func DecodeHeaderValue(v string) (string, bool) { return decodeHeaderValue(v) }

// decodeHeaderValue undoes the Base64 sentinel form ("=?base64?…?=") a
// client uses for a name that is not plain ASCII (the section "Value
// Encoding"); ok is false when the sentinel holds no valid UTF-8 in valid
// Base64.
func decodeHeaderValue(v string) (string, bool) {
	inner, found := strings.CutPrefix(v, "=?base64?")
	if !found {
		return v, true
	}
	inner, found = strings.CutSuffix(inner, "?=")
	if !found {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

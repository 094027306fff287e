// Package auth says who a client of the MCP addresses is, when the admin
// asks (server.auth): "none" (the default) lets every request through
// anonymous, as before; "keys" admits only the named clients of
// [clients.<name>], each by its API key (Authorization: Bearer <key>),
// compared in constant time on its sha256, the only form the
// configuration stores; "oauth" makes BesluitBron an OAuth 2.1 resource
// server that admits JWT access tokens of one issuer ([OAuth]: signature
// against the issuer's JWKS, fetched and cached, refreshed for an unknown
// kid; iss, aud, exp and nbf against the host's clock) and serves its
// protected-resource metadata (RFC 9728, [OAuth.MetadataHandler]).
//
// It owns the 401: a request without a valid credential is answered
// before anything else runs (no session is created, no limit charged, no
// connector called), with WWW-Authenticate: Bearer (and, under OAuth, the
// resource_metadata address the MCP authorization specification asks
// for) and a JSON-RPC error naming what was wrong. An admitted request
// carries its [Principal] in its context ([FromContext]); the go-sdk's
// own bearer-token middleware ([Authenticator.SDK]) then binds each MCP
// session to it, so that a session started by one client is refused to
// another, and hands it to the tool handlers in RequestExtra.TokenInfo
// ([FromTokenInfo]), where the MCP edge asks callinfo.ChargedTo who the
// call is charged to: the client, across all its sessions.
//
// What it guards is the caller's choice: the host puts the MCP addresses
// (/mcp/..., /sse) behind it, and leaves the pages (which run as the
// shared public session), /healthz, /readyz, /metrics and the metadata
// document itself outside.
//
// An [Authenticator] is safe for concurrent use.
package auth

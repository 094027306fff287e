// Package callinfo carries what one tool call learns on its way through the
// host: whose session it is, how long it queued at a platform's limit, how
// long the platform took, and what the cache did. The MCP layer creates an
// [Info] per call and reads it into the result's _meta; the fetch path
// fills it in.
//
// An *Info is safe for concurrent use (a connector may fetch in parallel).
package callinfo

// Package callinfo carries what one tool call learns on its way through the
// host: whose session it is, how long it queued at a platform's limit, how
// long the platform took, what the cache did, and the MCP client the call
// came from (which a connector's granted client features ask). The MCP
// layer creates an [Info] per call and reads it into the result's _meta;
// the fetch path fills it in.
//
// An *Info is safe for concurrent use (a connector may fetch in parallel).
package callinfo

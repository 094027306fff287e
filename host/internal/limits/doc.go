// Package limits connects a connector's declared services to the fair
// scheduler (package sched): one [Limiter] per limited service, which the
// fetch gate consults before every upstream request and informs of every
// answer (a 429's Retry-After pauses the service; RateLimit-* headers
// correct the local bucket downward).
//
// The session a call counts against is the MCP session; the search page and
// maintenance share sched.PublicSession, whose usage is not counted.
//
// A Limiter is safe for concurrent use.
package limits

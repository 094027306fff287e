// Package limits connects a connector's declared services to the fair
// scheduler (package sched): one [Limiter] per limited service, which the
// fetch gate consults before every upstream request and informs of every
// answer (a 429's Retry-After pauses the service; RateLimit-* headers
// correct the local bucket downward).
//
// The session a call counts against is the MCP session; the search page and
// maintenance share sched.PublicSession, whose usage is not counted.
//
// Each limiter's bucket keeps one unit of headroom below the declared
// limit ([Headroom]: 59 units per 59 s for OpenBesluitvorming's 60 per
// minute), against network jitter. Fairness does not see it: the scheduler
// gets the declared capacity as sched.Options.PlatformUnits, so a session's
// weight is 60/(60+used), exactly 1/2 of a new session's after 60 units and
// 1/3 after 120, as the requirement has it, and a call costing more than
// the bucket is charged the platform's whole quota of 60.
//
// A Limiter is safe for concurrent use.
package limits

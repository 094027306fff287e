// Package schedlua is package sched's scheduling policy for state shared
// in Redis: the Lua script that several BesluitBron replicas run against
// one quota's keys (sched.lua), and the Go side of its contract, the
// arguments it takes and the reply it gives. It lives next to sched
// because it is the same policy written a second time, in the one language
// Redis runs atomically; docs/RATIONALE.md ("Why is the scheduling policy
// written twice, and where does each copy live?") says why there are two
// copies and why the cluster does not plug into sched instead.
//
// The package is pure, as sched is: it embeds the script and converts
// values, and talks to no server. host/internal/upstream/cluster runs [Script] on
// Redis with its own keys and clients.
//
// # One policy, two copies, one test
//
// The script ports sched's queue.go and fair.go decision by decision:
// start-time fair queueing weighted by K/(K+used), the
// longest-waiting-first guard against starvation, the token bucket kept
// as the instant it is empty, oversized calls served on a full bucket and
// charged min(cost, K). The values the scripts share with sched are not
// copied into the Lua text: the public session's name and the planning
// depth ([PublicSession], [MaxPlan]) and the departure script's cap on a
// replica's headroom ([HeadroomCap]) are sched's constants, put in place
// when the package loads, and constants_test.go checks that the Lua files
// spell out none of them; the limit, the declared capacity K, the forget
// delay and every refill time (computed here exactly, in rational
// arithmetic, as sched does) arrive as arguments of each run ([Args],
// [Limit]).
//
// The differential test (diff_test.go) drives sched.Scheduler and the
// script on miniredis with the same random calls and requires the same
// grants at the same instants in the same order; fastpath_test.go
// requires the script's fast path to decide and write exactly what its
// general path does; shares_test.go runs schedtest's fairness scenarios
// across three replicas of the script.
//
// # What the script adds to the policy
//
// State in Redis brings what one process does not need: replicas' leases
// (the waiting calls of a replica whose lease lapsed leave), grants handed
// to the replica that queued the call (a hash and a PUBLISH), and the
// fence that holds shared grants after an outage until every replica has
// handed in what is left of its local share. Those parts are the
// cluster's protocol; host/internal/upstream/cluster's doc says how it uses them.
//
// # The departure bucket
//
// A second, small script (depart.lua, [DepartScript]) counts a granted
// request again when it is about to be written: a token bucket at the
// platform's rate and its declared capacity less the widest headroom any
// live replica reports, which says when the request may leave, holds it
// during a pause, and lowers the scheduler's bucket to its own.
package schedlua

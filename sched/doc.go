// Package sched shares one rate-limited platform between MCP sessions. It
// owns the decision of when each call to a limited upstream service may go:
// the host creates one [Scheduler] per quota (a limited upstream host, or a
// named quota, whichever connectors reach it) and asks it before
// every call.
//
//	s := sched.New(sched.Limit{Units: 60, Per: time.Minute}, nil) // OpenBesluitvorming
//	g, err := s.Wait(ctx, sched.Request{Session: sessionID, Cost: 1})
//	// err == nil: send the call now; it has been charged.
//	// *sched.RetryError: no room before ctx's deadline; tell the client when.
//
// The package is pure Go: no network, no files, no global state. Every
// decision is a function of an explicit instant (the methods ending in At);
// only the blocking edge, [Scheduler.Wait], reads a [Clock], which tests
// replace.
//
// # The model
//
// A platform's limit is a token bucket of capacity C units that refills
// evenly, C per window W ([Limit]); OpenBesluitvorming's own bucket is
// C = 60, W = 1 minute, and a search asking for n results costs
// max(1, ceil(n/24)). The scheduler keeps a copy of that bucket. A call is
// granted, and charged, only when the copy holds its cost (a full bucket,
// for an oversized call: below), so the platform, whose bucket is never
// emptier than the copy, accepts it. The copy may keep a safety margin
// below the platform's declared capacity K ([Options.PlatformUnits]): the
// host runs OpenBesluitvorming's K = 60 on a copy of C = 59 refilling at
// the same rate (see host/internal/upstream/quota). Without one, K = C.
//
// The copy keeps the instant at which it is empty rather than a token
// count. Costs are converted to refill times exactly (rational arithmetic)
// and kept in whole nanoseconds, rounded against the scheduler: a charge up,
// a refund or a correction down. For every limit where a unit refills in a
// whole number of nanoseconds (60/min, 120/min, 10/30 s, 10/s) there is no
// rounding at all; otherwise each grant costs at most 1 ns of extra refill.
//
// Calls that cannot be granted wait in their session's queue, in the order
// they were asked ([Request.Front] puts a retried call first). Whenever the
// bucket allows, the scheduler picks the next session by the rules below and
// grants the head of its queue. The chosen call reserves the bucket: the
// refill accumulates for it, and a cheaper call of another session does not
// jump ahead. No refill is ever lost while calls wait (the bucket cannot be
// full while the chosen call needs at most C), so the platform's rate is
// used in full.
//
// # What fair means
//
// A session's weight is K / (K + used), where used is the units granted to
// it and not yet forgotten and K is the platform's declared capacity, not
// the copy's: at OpenBesluitvorming, with a copy of 59 and K = 60, a
// session that used 60 units has weight exactly 60/120 = 1/2 and gets half
// of what a new session gets; after 120 units, 60/180 = 1/3 (weights on
// the copy's 59 would give 59/119 and 59/179). [PublicSession], shared by
// the search page and BesluitBron's own maintenance, is never charged
// usage: its weight stays 1.
// A session's usage is forgotten [Options.Forget] (30 minutes) after its
// last call.
//
// Sessions that wait share the bucket in proportion to their weights, by
// start-time fair queueing (Goyal, Vin and Cheng, 1996). Virtual time V
// advances with the start tag of each call granted. A session that starts
// waiting gets start tag S = max(V, F) where F is the finish tag of its last
// grant; its head call has finish tag S + cost/weight, with the weight
// computed when the call became the head. The waiting session with the
// smallest start tag goes next (ties: smaller finish tag, then the one
// waiting longer). A newcomer therefore starts at V, level with the front,
// while a session that has been served keeps its place behind it. When
// nothing waits, V and all tags restart at zero: a returning session is
// told apart only by its usage.
//
// Start-time fair queueing does not need to know the server's rate, which
// suits a bucket that pauses on 429s and is corrected by platform headers.
// Its bound: over any interval in which sessions i and j both wait, the
// units they get, divided by their weights, differ by at most one call of
// each (c_i/w_i + c_j/w_j). The usage-dependent weights make the shares
// follow the fluid model dU_i/dt ∝ K/(K+U_i). schedtest.FairShares solves that
// model in closed form; the simulations stay within 0.02 of it.
//
// # No starvation
//
// Weights alone would let a session that used a lot wait for many minutes.
// Every waiting session therefore has a deadline: the instant its current
// wait began (its arrival in an empty queue, or its last grant) plus W.
// Before granting the fair choice, the scheduler plans ahead, assuming no
// new arrivals: that call first, then the head of every other waiting
// session, longest waiting first. If that plan makes any session miss its
// deadline, the session that has waited longest goes instead. For the calls
// waiting at one moment, longest waiting first (earliest deadline first)
// meets every deadline that any order meets (Jackson's rule), and a session
// that arrives later has a later deadline; so the bounds are:
//
//   - If the waiting sessions' head calls fit in one window together
//     (the sum of their charges, min(cost, K), is at most C), every session
//     gets a call within W of starting to wait, however much it used.
//   - Otherwise (more sessions wait than a window can serve), sessions are
//     served in the order they started waiting, and each gets a call within
//     W plus the refill of all the waiting head calls' charges.
//
// C and W are the copy's. Pauses and downward corrections stop the refill
// and extend these bounds by as long. The check costs O(log n) per grant
// for n waiting sessions (below, "At scale").
//
// # Oversized calls
//
// A call costing more than C would never fit. As the requirement puts it,
// such a call is processed and then uses up the entire quota: the
// scheduler serves it when the copy is full and charges it the platform's
// whole quota, min(cost, K). Without a margin (K = C) the bucket empties,
// to 0 and no lower: for the bucket and for the bounds above the call is
// one costing C, and nobody waits for the part of its cost beyond the
// quota. With the host's margin the copy goes to C − K = −1 as the
// platform's bucket goes to 0, so that the margin survives: charging only
// the copy's 59 would let a search costing 60, which OpenBesluitvorming
// accepts, leave a unit uncounted, and the next call on a full copy meet
// a platform bucket of 59. For fairness the call costs what it costs: the
// session is charged its whole cost as usage, so its weight falls
// accordingly, its finish tag advances by cost/weight, and [Stats] counts
// the whole cost. OpenBesluitvorming itself refuses calls costing more
// than 60 (a search with limit ≥ 1441): the host should clamp them rather
// than rely on this.
//
// # Waiting, deadlines and cancellation
//
// [Scheduler.Wait] blocks until the call is granted. If ctx has a deadline,
// or [Request.OnQueued] is set, the scheduler plans the queue (as above, up
// to 2048 grants ahead) whenever it changes, and tells the waiting call its
// expected position and grant time. A call whose expected grant falls after
// its deadline leaves the queue at once and Wait returns a [*RetryError]
// with the expected delay, at admission or as soon as a newcomer overtakes
// it. A cancelled wait leaves the queue at once, costs nothing, and the
// calls behind it move up in the same instant. If the grant and the
// cancellation race, the grant is refunded: in full when no grant followed
// it, otherwise only as far as leaves the bucket no fuller than the
// platform's, which never saw the refunded call (its refill may have been
// wasted while it was full). Planning is skipped while no
// waiting call has a deadline or an OnQueued callback; its cost otherwise
// is in "At scale".
//
// # At scale
//
// Picking the next session used to scan every waiting session twice, once
// for the smallest start tag and once to simulate the deadline plan, and
// planning for watched calls copied the whole queue and simulated up to
// 2048 grants with that pick: O(n) per grant and O(Q·n) per change. Now,
// with the same decisions:
//
//   - The fair choice is the top of a heap of the waiting sessions by
//     (start tag, finish tag, order of waiting): O(1), O(log n) to keep
//     (fair.go; [FairQueue] orders by the same heap).
//   - The deadline check needs no simulation. Served back to back, the
//     i-th call of a plan goes at max(x0, E0 + charges before it +
//     its need), where x0 is the first instant a grant may go and E0 the
//     instant the bucket is empty, at most W before x0: no call needs more
//     than it is charged, nor more than W, so the bucket's cap applies only
//     before the first. Every session meets its deadline iff x0 and E0
//     plus a prefix sum stay below bounds of its own, which a segment tree
//     over the order of waiting keeps as minima of runs: O(log n), in whole
//     nanoseconds, exactly what the simulation decided. (A window so long
//     that n charges would not fit in 2^60 ns falls back to the scan.)
//   - Planning reads the part of the plan that is certain off that tree:
//     when two waiting sessions miss their deadlines even if everyone is
//     served in order of waiting, every pick before the first of them is
//     the session that has waited longest, at a prefix sum. An overloaded
//     queue — the only way for thousands of sessions to wait — is such a
//     plan nearly to its end, or to the 2048th grant, and a change costs
//     the sessions swept plus the watched calls told. Past the certain part,
//     only the rest of the queue is copied and dry-run, from the state
//     the certain part leaves.
//
// Measured with the benchmarks in bench_test.go on 2 shared CPUs (the
// fastest of five interleaved runs), before → after: a grant at 10,000
// waiting sessions 49 µs → 1.5 µs (at 10, 0.23 → 0.33 µs); an arrival
// with a deadline at 10,000 130 ms → 18 µs, at 1,000 2.9 ms → 38 µs (at
// 10, 4.4 → 8 µs: a small queue pays for the structures). A queue in
// which every waiting call is watched still costs O(watched) per change,
// each watched call being told its position: 0.24 ms an arrival at 10,000
// such calls, for which the scheduler before could not even be set up in
// half an hour. The test-only reference (reference_test.go) is the
// scanning core as it was; a differential test requires identical grants,
// next instants, virtual time and plans from both on random workloads.
//
// # The fair queue alone, headroom and weights across quotas
//
// The start-time fair queueing rules above (the tags, virtual time and the
// order of the waiting sessions by them) are written once, in fair.go; the
// Scheduler adds the bucket and the deadline guard. [FairQueue] is those
// rules with nothing added, for whatever frees its places one at a time:
// the host's admission to a connector's instances waits in one, weighted
// by the schedulers' own weights, so that instances follow the shares the
// platform gives and no second copy of the rules can drift from this one.
// Its owner says when virtual time restarts ([FairQueue.Restart]): a place
// popped may still be held, unlike a grant, which is spent at once.
//
// Two computations that sit beside the scheduler live here too, for the
// same reason. [Headroom] is the local bucket a host runs below a
// platform's limit (capacity lowered, rate kept, at most [HeadroomCap] of
// the capacity; [HeadroomFloor] the least kept), which
// host/internal/upstream/quota sizes from the measured path and
// sched/schedlua's departure script caps with the same constant.
// [MinWeight] combines a session's weights at several quotas, the
// smallest, for what is shared before the quotas.
//
// # Platform feedback
//
// [Scheduler.PauseUntil] stops all grants until an instant (a 429 with
// Retry-After). [Scheduler.Observe] and [Scheduler.ObserveHeaders] read
// RateLimit-Remaining and RateLimit-Reset ([RateLimitBounds] is the one
// reading of them, which the cluster shares); they only lower the local
// bucket, and only when the headers prove it holds more than the
// platform's.
//
// # Where the state lives
//
// A Scheduler keeps everything in its own memory: the bucket, the
// sessions' queues, their tags and their usage. One process, one
// Scheduler per quota. That is the whole story while BesluitBron runs as
// one process.
//
// Replicas behind a load balancer (host/internal/upstream/cluster, [cluster]
// redis_url) do not use a Scheduler to decide: one quota's bucket, queues,
// tags and usage then live in Redis, shared by every replica, and the
// decisions are made there by a Lua port of this package's policy,
// package sched/schedlua, whose differential test requires the same grants
// as a Scheduler on the same calls. Each replica still keeps a Scheduler
// per quota, for the conservative local share it falls back to while
// Redis is unreachable ([Scheduler.LowerAt]) and to read RateLimit
// headers ([RateLimitBounds]). Sharing only the bucket would not do: a
// fair order needs every waiting session in one place, so the whole
// policy, not the bucket alone, moves to Redis. docs/RATIONALE.md says
// why it is written twice rather than once behind an interface.
//
// # Zero value and concurrency
//
// A Scheduler must be created with [New]; its zero value is not usable. All
// its methods are safe for concurrent use by multiple goroutines. OnQueued
// callbacks run on the waiting goroutine, never under the scheduler's lock.
// The time-explicit methods treat an instant earlier than one already seen
// as that one: time in a Scheduler never runs backwards.
package sched

// Package admission shares a connector's instances between sessions when
// there are more calls than instances. A WebAssembly instance is held for
// the whole tool call, including the time the call waits at the platform's
// limit; if instances were handed out first come, first served (or round
// robin), the instances, not the fair scheduler, would decide who is
// served: a flood would hold them all and a newcomer's call could not even
// reach the scheduler.
//
// Two things keep the scheduler in charge. First, the host sizes the
// connector's pool elastically (connectors.<id>.max_instances, far above
// the warm pool_size), so that in ordinary load every waiting call has its
// instance and the scheduler alone orders them. Second, when even that
// bound is reached, the next free instance goes by the scheduler's own
// weights and rules: the waiting calls wait in a sched.FairQueue, the
// start-time fair queue package sched's scheduler is built on, not in a
// queue of this package's. Each grant to a session advances its tag by
// 1/weight (weight = C/(C+used), the smallest over the connector's quotas,
// sched.MinWeight, which the host passes as the [Weight]); the waiting
// session with the smallest start tag goes next (ties: the smaller finish
// tag, then the session waiting longest). Every grant passes through the
// queue, also one that finds an instance free, because it moves the
// session's tag. Virtual time restarts only when the connector is idle,
// nothing waiting and nothing held: an instance is held for the call, and
// a session holding them must stay behind a newcomer until it lets go.
// Calls of one session enter in arrival order. Sessions that keep calls
// waiting therefore get instances in proportion to their weights, the
// shares the scheduler gives them at the platform. There is no cap per
// session: a lone session may use every instance, as the seed asks ("if
// there is only one session, it is allocated the entire space").
//
// A call that must not hold a goroutine while it waits (an MCP task:
// thousands may wait) is queued with AcquireFunc, and its Ticket tells
// its place in that fair order (sched.FairQueue.Order, numbered when
// asked), so that its status can name it.
//
// An Admission is safe for concurrent use.
package admission

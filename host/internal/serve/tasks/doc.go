// Package tasks keeps the tool calls that wait as MCP tasks: the tasks
// extension (io.modelcontextprotocol/tasks), in which a server answers a
// tools/call with a task handle instead of its result, and the client
// polls tasks/get until the task is completed, failed or cancelled.
//
// BesluitBron's calls can wait minutes in a platform's fair queue
// (OpenBesluitvorming allows 60 units a minute). A call held open holds a
// connection; a task waits with none. The MCP edge (serve/mcpserver) lets
// a call that must wait at a platform's limit, from a client that declared
// the extension ([Declared]), become a task; this package is what it keeps
// of it:
//
//   - a bounded [Store]: at most MaxTasks tasks and MaxBytes bytes in all,
//     and MaxPerClient and MaxBytesPerClient per client (the name the call
//     is charged to, callinfo.ChargedTo); a task that does not fit is
//     refused with an [*FullError] naming the bound, and its call stays an
//     ordinary call;
//   - the statuses of the extension (working, input_required, completed,
//     failed, cancelled), terminal ones never left;
//   - a status message that says where the call waits: its place in the
//     fair queue at a platform's limit and when it is expected to start
//     there, or, still waiting for an instance of its connector, its
//     place in that queue and where it puts it at the limit;
//   - a poll interval from the limit's refill: the time the limit takes to
//     refill one unit, times a quarter of the places ahead, between
//     [MinPoll] and [MaxPoll];
//   - cancellation that ends the call's context at once (the fair queue
//     lets a cancelled call go in the same instant, and a cancelled call is
//     never sent to the platform);
//   - a finished task kept for Keep after it finished (its ttlMs counts
//     from its creation, as the extension has it), then forgotten; a task
//     still working MaxLife past the start its queue expects for it is
//     cancelled.
//
// The store has no timers and reads time only from Options.Now: it
// expires what is due whenever it is used, so tests drive it in virtual
// time. Task ids carry 128 random bits (crypto/rand): the extension asks
// for ids a third party cannot guess, and each request on a task is also
// checked against the client that created it, so another client's id
// reads as unknown.
//
// With Options.Shared set (the cluster's Redis), every change to a task is
// written through to it, and a task this replica does not hold is read
// from it: tasks/get answers on any replica, while the call itself runs on
// the replica that created the task. A shared store that is also a
// [Forwarder] carries a cancel to that replica, named in the record.
//
// A Store is safe for concurrent use.
package tasks

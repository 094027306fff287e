// Package clientcall is the host's side of the client features a connector
// may use during a call (elicitation, sampling, roots; see
// connector.Client): the [Gate] both runtimes put between a connector's
// request and the MCP client of the call, and the call deadline that stops
// while the call waits on a person ([WithDeadline]).
//
// The gate decides, in this order: a feature the admin did not grant to
// the connector (connectors.<id>.grant) is refused with an error naming
// the key to add; a call with no MCP client (the search page, the
// Laadstatus) has no one to ask; a client that did not declare the
// capability is not asked. Otherwise the request goes to the client, and
// the wait for the answer is bounded by [DefaultMaxWait] (a person may
// take minutes, not hours: the call holds an instance of the connector
// meanwhile). The call's own deadline (call_timeout) is stopped during that
// wait, so a connector that asks is not killed for the time its user took
// to answer, and resumes with the time it had left.
//
// The runtimes know nothing of MCP: the gate finds the call's client
// through a function the host gives it (the host reads it from the call's
// record), or, failing that, through the connector.Host of the call.
//
// A Gate is safe for concurrent use.
package clientcall

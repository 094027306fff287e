// Package nativert runs a connector as a native process under
// hashicorp/go-plugin: the host's second runtime, beside the WebAssembly
// one in wasmrt, for connectors that need what a sandbox cannot give
// cheaply (heavy PDF extraction, a vendor library, a debugger).
//
// A [Connector] is a connector.Connector like any other; the MCP layer and
// the scheduler cannot tell it from a WebAssembly module or an in-process
// fake. The same connector source builds both ways: its main package calls
// native.Main (sdk/native), which serves the connector over go-plugin's gRPC when the host
// starts it, and does nothing in the WebAssembly build.
//
//	c, err := nativert.Load(ctx, nativert.Options{
//		ID:     "<id>",
//		Path:   "bin/plugins/<id>",
//		SHA256: "982256b0…", // the binary's sha256, checked at every start
//	})
//	res, err := c.Call(ctx, connector.CallRequest{Tool: "search", Arguments: args}, gate)
//
// # Same rules as WebAssembly
//
// A native process could open sockets of its own; the sdk gives it no
// reason to. Its connector.Host is a client of the host's Host service
// (native.Plugin): every fetch travels back over go-plugin's GRPCBroker
// and goes through the host's fetch gate (allowed hosts, private networks,
// cache, the platform's scheduler), under the calling tool call's context,
// so its session, accounting and cancellation apply. The process starts
// with an empty environment apart from GOMEMLIMIT (from memory_limit_mb) and
// TMPDIR: no credentials or proxies leak in. On Linux it dies with the host.
//
// The handshake carries go-plugin's magic cookie and connector.ABIVersion
// as protocol version, so a binary built against another ABI is refused at
// load with a connector.ABIError naming both versions. The binary's sha256
// is pinned: the host checks it against plugins.toml at load, and
// go-plugin's SecureConfig checks it again before every start, so a binary
// replaced on disk is not run at the next restart.
//
// # Crashes and restarts
//
// One process serves a connector at a time, with up to PoolSize calls in
// flight on one multiplexed connection. When a call fails and the process
// no longer answers a health check (it exited, was killed, or froze), the
// process counts as lost: every call it had in flight fails with an error
// naming the connector (the MCP layer reports it as a tool error), other
// connectors' processes are untouched, and the next call starts a new
// process. Consecutive losses and failed starts back off: 100ms, doubling
// up to 30s; a call the new process serves resets the count. A call whose
// deadline ends before the backoff does fails at once with a
// [RestartError] instead of waiting to time out. A connector's own error
// (a tool that panicked) leaves the process running.
//
// # Client features
//
// The process's requests to the call's MCP client (elicitation, sampling,
// roots; the broker's Client* methods) go through the same gate as a
// WebAssembly connector's (package clientcall): the admin's grant, the
// call's client, a bounded wait during which the call's deadline stops.
// The deadline is therefore kept here and not sent to the process: one in
// the process could not stop while a person answers. The process still
// ends its call when the host cancels it.
//
// # Costs
//
// See connectortest's benchmarks: a call crosses two gRPC hops per fetch
// (call, fetch callback) and JSON on both, against WebAssembly's memory
// copies; start-up is an exec and a handshake instead of a compile.
//
// # Concurrency
//
// A Connector is safe for concurrent use. Close ends the process and fails
// the calls in flight.
package nativert

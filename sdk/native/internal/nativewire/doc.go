// Package nativewire is the wire protocol between the BesluitBron host and
// a connector running as a native process under hashicorp/go-plugin: two
// hand-written gRPC services whose messages are JSON, a [Server] the
// connector process runs and a [Client] the host dials.
//
// The sdk/native package exposes it only through native.Plugin (the go-plugin
// plugin both sides register); neither connectors nor the host see these
// types, so the protocol can change with [connector.ABIVersion] without
// touching an API.
//
// # The protocol (ABI version 1)
//
// The connector process serves, on go-plugin's gRPC server:
//
//	besluitbron.connector.v1.Connector/Open  OpenArgs  -> OpenReply
//	besluitbron.connector.v1.Connector/Call  CallArgs  -> connector.CallResult
//
// The host serves, on a connection the process dials through go-plugin's
// GRPCBroker (the service id travels in OpenArgs.HostService):
//
//	besluitbron.connector.v1.Host/Fetch      FetchArgs -> connector.FetchReply
//	besluitbron.connector.v1.Host/Log        LogArgs   -> {}
//	besluitbron.connector.v1.Host/Progress   ProgressArgs -> {}
//	besluitbron.connector.v1.Host/TextPage   TextPageArgs -> connector.TextReply
//	besluitbron.connector.v1.Host/TextPut    TextPutArgs  -> connector.TextReply
//	besluitbron.connector.v1.Host/ClientElicit  ClientElicitArgs -> connector.ClientReply
//	besluitbron.connector.v1.Host/ClientSample  ClientSampleArgs -> connector.ClientReply
//	besluitbron.connector.v1.Host/ClientRoots   ClientRootsArgs  -> connector.ClientReply
//
// The Client* methods reach the MCP client of the call when the call's
// host is a connector.Client (the host's runtime puts its grant check
// there) and answer connector.ErrNoClient otherwise; a process asking a
// host without them gets Unimplemented and reports the same. The call
// carries no deadline to the process: the host keeps it, because it stops
// while the call waits for a person, and cancels the call when it ends.
//
// Progress reaches the call's host only when that host has a Progress
// method (MCP progress notifications); the process ignores a host that
// answers Unimplemented.
//
// Open is the first call on a fresh process: it checks the ABI version a
// second time (go-plugin's handshake already carries it as the protocol
// version), makes the process dial the host's service, and returns the
// manifest. Each Call carries a call id chosen by the host; the process
// quotes it on every Fetch and Log so the host answers them with that
// call's own [connector.Host] and context (session, accounting,
// cancellation). A fetch quoting an id that is not in flight is refused.
//
// # Errors
//
// A connector failure (Describe or Call returning an error) travels as
// gRPC code Aborted and comes back as a plain error carrying the
// connector's message. Every other failure keeps its gRPC status: Canceled
// and DeadlineExceeded when the caller's context ended, Unavailable when
// the process went away. A fetch the host refused or could not complete
// is not a gRPC error but a [connector.FetchError] inside the reply, exactly
// as on the WebAssembly ABI.
//
// # Why gRPC with a JSON codec
//
// go-plugin offers net/rpc and gRPC. net/rpc has no context: a client that
// cancels, a call deadline, or a dying host could not stop the connector's
// work or its pending fetches. gRPC propagates cancellation both ways
// (host → Call → the connector's fetches through the broker), multiplexes
// concurrent calls on one connection, and is go-plugin's recommended
// protocol. Protobuf code generation would add a build step and generated
// files for five messages that already exist as JSON-tagged Go types in
// sdk/connector; a JSON codec registered under the content subtype
// [CodecName] reuses those types unchanged, keeps the messages identical to
// the WebAssembly ABI's (so the two runtimes cannot drift apart in
// encoding), and leaves go-plugin's own protobuf services (health, broker,
// controller) on the same server untouched, because gRPC picks the codec
// per call from the content subtype.
//
// # Concurrency
//
// A [Client] and a [Server] are safe for concurrent use; calls on one
// process run concurrently on one multiplexed connection.
package nativewire

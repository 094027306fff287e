// Package native serves a connector as a native process, for runtime =
// "process" in plugins.toml: the host starts the binary through
// hashicorp/go-plugin and talks gRPC to it, and the connector's fetches,
// kept texts and log lines still travel back through the host's gate,
// cache and scheduler.
//
// It is a module of its own beside the sdk module so that a connector
// built only for WebAssembly pulls in nothing but the standard library:
// go-plugin and gRPC are this module's requirements, not the sdk's. The
// host imports it for the host side of the same protocol ([Plugin]'s
// GRPCClient, [Handshake]).
//
// A connector that runs both ways has one main package:
//
//	func init() { sdk.Export(yourconnector.Plugin()) }
//
//	func main() { native.Main() }
package native

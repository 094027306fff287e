// Package wasmrt runs connectors compiled to WebAssembly on wazero and
// presents each as a [connector.Connector].
//
// A module is compiled once (with wazero's on-disk compilation cache, so a
// restart does not recompile) and instantiated into a pool: one instance
// serves one call at a time, because a Go guest is not reentrant. Load
// makes the first instance (it answers the ABI version and the manifest);
// the others are made when calls need them. An instance that returned any
// error (trap, exit, deadline, bad output) is closed, never reused: after
// a trap a Go guest can look healthy and answer wrongly.
//
// A warm compilation cache spares only the code generation: wazero still
// decodes and validates every function body, and the loop budget's
// rewrite, _initialize and describe still run. So a successful load also
// writes a record beside the compilation cache (record.go: the manifest,
// the ABI version, the rewritten module's sha256), named by the module's sha256,
// its limits and the host executable. A later start with a record answers
// the manifest from it, rewrites the module's own bytes (refusing a record
// that names other code: the pin holds for what runs), and makes the first
// instance from them in the background,
// which calls wait for (Ready); if that fails, the calls fail with its
// error and the record is removed. A module that fails to load never has a
// record, so its error is reported at start, every start.
//
// A guest gets no filesystem, environment, arguments or sockets, and a
// fake clock (a millisecond a reading; a sleep waits for real, within the
// call's deadline, and advances it by the time asked). Its only way out is
// the host module "besluitbron" (ABI in package sdk's documentation), whose
// fetch goes to the [connector.Host] passed to Call, and whose client_*
// calls go through the connector's client features gate (package
// clientcall: the admin's grant, the call's MCP client, a bounded wait
// during which the call's deadline stops). Modules of ABI version 2 (the
// sdk's now) get their call, fetches and kept texts in package wasmabi's
// encoding, and the host does the JSON work version 1's guest did
// (compacting arguments and structured content, valid UTF-8 strings);
// modules of version 1 are still served, in JSON. On Linux and macOS an
// instance's linear memory is address space reserved up to its limit,
// outside the Go heap, that grows in place (memory_unix.go). Each call runs under a deadline, so a
// spinning guest is stopped rather than freezing the host, and under a
// memory limit per connector. A module built with the sdk is stopped by
// the loop budget package wasmbudget instruments it with (a decrement per
// loop iteration, an exit to Go per 65 536); any other module by wazero's
// WithCloseOnContextDone, which exits to Go at every loop and made a Go
// connector four times slower.
//
// A [Connector] is safe for concurrent use.
package wasmrt

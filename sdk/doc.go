// Package sdk is what a connector author imports: the [Plugin] type that
// holds a connector's manifest and tool functions, helpers for decoding
// arguments and upstream responses, and the glue that exports a Plugin as a
// WebAssembly module.
//
// A connector only translates: tool arguments become upstream requests,
// upstream responses become normalised results. Caching, limits, retries
// and access control are the host's; a connector declares what it needs
// (services and their limits, the upstream host or named quota each limit
// belongs to, cache classes) in its manifest and names them on every
// [connector.FetchRequest]. Services of different connectors that name one
// host share its quota (see [connector.Service]). Each service also says
// where its limit comes from (connector.Service.LimitFrom: published by
// the platform, measured, BesluitBron's polite choice, or unknown), which
// the Laadstatus shows in those words.
//
// This package is a Go module of its own and depends on the standard
// library alone, so a connector's go.mod requires it and nothing else.
//
// JSON in and out of a connector goes through the sdk's own codec, which
// is faster than encoding/json in WebAssembly and gives the same values,
// bytes and errors: [Unmarshal], [DecodeArgs], [DecodeJSON] and
// [DecodeLenient] decode with it, [Result] encodes with it. The codec
// itself is the internal package codec (sdk/internal/codec), so that this
// package holds only what an author calls.
//
// A connector is a plain Go package with a function returning its *Plugin,
// tested natively with `go test` (package sdktest gives it a fake host),
// and a main package that exports it:
//
//	package main
//
//	import (
//		"github.com/besluitbron/besluitbron/plugins/example"
//		"github.com/besluitbron/besluitbron/sdk"
//	)
//
//	func init() { sdk.Export(example.Plugin()) }
//
//	func main() { sdk.Main() }
//
// built, from the connector's module, with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o example.wasm ./cmd
//
// To run the same connector as a native process (runtime = "process" in
// plugins.toml), its main calls native.Main from the module
// github.com/besluitbron/besluitbron/sdk/native instead of [Main]: that
// module holds the hashicorp/go-plugin and gRPC glue, so a connector built
// only for WebAssembly does not pull them in. The native build's fetches
// and log lines still go through the host.
//
// # The ABI (version 2)
//
// The module is a WASI preview 1 reactor. The host instantiates it without
// running a start function, calls `_initialize` once (Go's runtime and
// package init, where [Export] runs), then calls the exports below, one
// call at a time per instance. The guest pulls its input and pushes its
// output through host functions, so the guest needs no exported
// allocator.
//
// Version 2 encodes the payloads of the hot path with package wasmabi
// (length-prefixed fields; a body as raw bytes): the call's request and
// result, fetch requests and replies, text_page's request and reply,
// text_put's text and refusal. The manifest and the client features'
// requests and replies stay JSON, as every payload was in version 1. The host serves modules of both versions: a module built with
// an sdk of version 1 keeps working. A host of version 1 refuses a module
// of version 2 at load, naming both versions.
//
// Guest exports:
//
//	besluitbron_abi_version() -> i32    the ABI version, [wasmabi.Version]
//	besluitbron_describe()    -> i32    writes the Manifest JSON as output; 0 = ok
//	besluitbron_call()        -> i32    reads a CallRequest (and whether the host
//	                                    keeps texts) from input, writes a
//	                                    CallResult as output; nonzero = the output
//	                                    is an error message (text)
//
// Host functions, module "besluitbron" (pointers are offsets in the guest's
// memory):
//
//	input_size() -> i32                 size of the current call's input
//	input_read(ptr)                     copies the input to ptr
//	output_write(ptr, len)              sets the current call's output
//	fetch(ptr, len) -> i32              performs the FetchRequest at ptr;
//	                                    returns the size of the FetchReply
//	fetch_read(ptr)                     copies the last reply (a FetchReply's or a
//	                                    TextReply's) to ptr
//	text_page(ptr, len) -> i32          asks for a page of a kept text (a
//	                                    TextRequest); returns the size of the
//	                                    TextReply
//	text_put(ptr, len) -> i32           keeps an extracted text (an
//	                                    ExtractedText); returns 0, or the size
//	                                    of a TextReply carrying the refusal
//	                                    (text_page and text_put came after
//	                                    version 1's first release: a host
//	                                    without them cannot instantiate a
//	                                    module built with this sdk, and names
//	                                    the missing import)
//	log(level, ptr, len)                logs a message at a log/slog level
//	progress(done, total f64, ptr, len) reports progress with a message
//	                                    (connector.Progresser); ignored when
//	                                    the client asked for none
//	client_elicit(ptr, len) -> i32      asks the MCP client of the call to elicit
//	                                    (ElicitRequest JSON); returns the size of
//	                                    a ClientReply, read with fetch_read
//	client_sample(ptr, len) -> i32      the same for sampling (SampleRequest)
//	client_roots() -> i32               the same for roots/list
//	                                    (the client_* calls came after text_put;
//	                                    a module imports them only when it calls
//	                                    Elicit, Sample or Roots, and the host
//	                                    answers them only for the features the
//	                                    admin granted: see client.go)
//	interrupt_check() -> i32            never called by the guest's own code:
//	                                    the host rewrites the module's loops to
//	                                    call it when their budget is spent; it
//	                                    answers a new budget or stops a call
//	                                    past its deadline. Importing it (the sdk
//	                                    does) lets the host stop a runaway call
//	                                    without wazero's costly per-loop exit;
//	                                    a module without it still works, slower
//
// The host grants nothing else: no filesystem, no sockets, WASI's clocks
// are a fake clock (each reading advances it a millisecond; a sleep, which
// does wait, bounded by the call's deadline, advances it by the time
// asked), and the environment holds only GOMEMLIMIT (three
// quarters of the instance's memory limit), which Go's runtime reads. A
// Go guest built with this package ends every call by yielding, so that a
// garbage collection cycle begun during the call finishes (in a reactor
// its mark workers run only then), and with a full collection after a call
// that moved a megabyte or more. Full texts go through [PagedText] (and a
// find in one through [FindText]), which the text_page and text_put calls
// serve. A module that reports another ABI version is refused at load with
// an error naming the connector and both versions.
package sdk

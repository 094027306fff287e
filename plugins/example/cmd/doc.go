// Command example is the example connector's WebAssembly module. From
// plugins/example (its own module, which requires only the sdk):
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o example.wasm ./cmd
//
// Built natively it only says how to build it (sdk.Main): serving a
// connector as a native process needs the sdk/native module, which a
// WebAssembly-only connector does not pull in. The host's native-runtime
// tests serve this connector natively from
// host/internal/runtime/nativert/testdata/guests/example.
package main

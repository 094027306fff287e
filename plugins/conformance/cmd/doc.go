// Command conformance is the MCP conformance fixture connector's
// WebAssembly module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/conformance.wasm ./plugins/conformance/cmd
package main

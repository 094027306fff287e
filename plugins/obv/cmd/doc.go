// Command obv is the OpenBesluitvorming connector's WebAssembly module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/obv.wasm ./plugins/obv/cmd
//
// Built natively (`go build -o bin/plugins/obv ./plugins/obv/cmd`), the same
// package is a go-plugin process for runtime = "process"; see native.Main (sdk/native).
package main

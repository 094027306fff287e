// Command opentk is the OpenTK connector's WebAssembly module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/opentk.wasm ./plugins/opentk/cmd
//
// Built natively (`go build -o bin/plugins/opentk ./plugins/opentk/cmd`), the same
// package is a go-plugin process for runtime = "process"; see native.Main (sdk/native).
package main

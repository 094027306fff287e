// Command example is the example connector's WebAssembly module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/example.wasm ./plugins/example/cmd
//
// Built natively (`go build -o bin/plugins/example ./plugins/example/cmd`), the same
// package is a go-plugin process for runtime = "process"; see sdk.Main.
package main

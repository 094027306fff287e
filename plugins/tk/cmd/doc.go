// Command tk is the Tweede Kamer connector's WebAssembly module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/tk.wasm ./plugins/tk/cmd
//
// Built natively (`go build -o bin/plugins/tk ./plugins/tk/cmd`), the same
// package is a go-plugin process for runtime = "process"; see native.Main (sdk/native).
package main

// Command ori is the Open Raadsinformatie Classic connector's WebAssembly
// module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/ori.wasm ./plugins/ori/cmd
//
// Built natively (`go build -o bin/plugins/ori ./plugins/ori/cmd`), the same
// package is a go-plugin process for runtime = "process"; see native.Main (sdk/native).
package main

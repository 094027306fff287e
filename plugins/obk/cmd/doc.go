// Command obk is the Officiële Bekendmakingen connector's WebAssembly module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/obk.wasm ./plugins/obk/cmd
//
// Built natively (`go build -o bin/plugins/obk ./plugins/obk/cmd`), the same
// package is a go-plugin process for runtime = "process"; see native.Main (sdk/native).
package main

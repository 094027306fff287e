// Command rechtspraak is the Rechtspraak open data connector's WebAssembly
// module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/rechtspraak.wasm ./plugins/rechtspraak/cmd
//
// Built natively (`go build -o bin/plugins/rechtspraak ./plugins/rechtspraak/cmd`), the same
// package is a go-plugin process for runtime = "process"; see native.Main (sdk/native).
package main

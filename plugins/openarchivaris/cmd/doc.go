// Command openarchivaris is the Open Archivaris connector's WebAssembly
// module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/openarchivaris.wasm ./plugins/openarchivaris/cmd
//
// Built natively (`go build -o bin/plugins/openarchivaris ./plugins/openarchivaris/cmd`), the same
// package is a go-plugin process for runtime = "process"; see native.Main (sdk/native).
package main

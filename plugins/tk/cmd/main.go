// Command tk is the Tweede Kamer connector's WebAssembly module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/tk.wasm ./plugins/tk/cmd
package main

import (
	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk"
)

func init() { sdk.Export(tk.Plugin()) }

func main() {}

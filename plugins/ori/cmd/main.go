// Command ori is the Open Raadsinformatie Classic connector's WebAssembly
// module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/ori.wasm ./plugins/ori/cmd
package main

import (
	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/sdk"
)

func init() { sdk.Export(ori.Plugin()) }

func main() {}

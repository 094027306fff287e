// Command openarchivaris is the Open Archivaris connector's WebAssembly
// module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/openarchivaris.wasm ./plugins/openarchivaris/cmd
package main

import (
	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/sdk"
)

func init() { sdk.Export(openarchivaris.Plugin()) }

func main() {}

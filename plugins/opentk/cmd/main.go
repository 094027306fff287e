// Command opentk is the OpenTK connector's WebAssembly module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/opentk.wasm ./plugins/opentk/cmd
package main

import (
	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/sdk"
)

func init() { sdk.Export(opentk.Plugin()) }

func main() {}

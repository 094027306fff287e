// Command example is the example connector's WebAssembly module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/example.wasm ./plugins/example/cmd
package main

import (
	"github.com/besluitbron/besluitbron/plugins/example"
	"github.com/besluitbron/besluitbron/sdk"
)

// init, not main: a reactor module runs package initialisation once and
// never calls main.
func init() { sdk.Export(example.Plugin()) }

func main() {}

// Command rechtspraak is the Rechtspraak open data connector's WebAssembly
// module.
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o bin/plugins/rechtspraak.wasm ./plugins/rechtspraak/cmd
package main

import (
	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/sdk"
)

func init() { sdk.Export(rechtspraak.Plugin()) }

func main() {}

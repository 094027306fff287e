// Command example serves plugins/example as a native process, for the
// native runtime's tests: the example itself targets WebAssembly only and
// requires nothing but the sdk module, so its own main cannot serve over
// go-plugin.
package main

import (
	"github.com/besluitbron/besluitbron/plugins/example"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/native"
)

func init() { sdk.Export(example.Plugin()) }

func main() { native.Main() }

// Command noserve is a connector main package that forgot native.Main: it
// builds natively but exits at once.
package main

import (
	"github.com/besluitbron/besluitbron/plugins/example"
	"github.com/besluitbron/besluitbron/sdk"
)

func init() { sdk.Export(example.Plugin()) }

func main() {}

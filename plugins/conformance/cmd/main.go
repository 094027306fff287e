package main

import (
	"github.com/besluitbron/besluitbron/plugins/conformance"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/native"
)

// init, not main, exports the connector: a reactor module runs package
// initialisation once and never calls main. Natively, main serves it.
func init() { sdk.Export(conformance.Plugin()) }

func main() { native.Main() }

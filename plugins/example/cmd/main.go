package main

import (
	"github.com/besluitbron/besluitbron/plugins/example"
	"github.com/besluitbron/besluitbron/sdk"
)

// init, not main, exports the connector: a reactor module runs package
// initialisation once and never calls main.
func init() { sdk.Export(example.Plugin()) }

func main() { sdk.Main() }

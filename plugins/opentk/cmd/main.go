package main

import (
	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/sdk"
)

func init() { sdk.Export(opentk.Plugin()) }

func main() { sdk.Main() }

package main

import (
	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/sdk"
)

func init() { sdk.Export(obk.Plugin()) }

func main() { sdk.Main() }

package main

import (
	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/sdk"
)

func init() { sdk.Export(obv.Plugin()) }

func main() { sdk.Main() }

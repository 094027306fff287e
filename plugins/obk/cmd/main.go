package main

import (
	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/native"
)

func init() { sdk.Export(obk.Plugin()) }

func main() { native.Main() }

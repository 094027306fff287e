package main

import (
	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/native"
)

func init() { sdk.Export(opentk.Plugin()) }

func main() { native.Main() }

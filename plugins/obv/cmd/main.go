package main

import (
	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/native"
)

func init() { sdk.Export(obv.Plugin()) }

func main() { native.Main() }

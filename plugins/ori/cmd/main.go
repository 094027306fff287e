package main

import (
	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/sdk"
)

func init() { sdk.Export(ori.Plugin()) }

func main() { sdk.Main() }

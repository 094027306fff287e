package main

import (
	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/sdk"
)

func init() { sdk.Export(openarchivaris.Plugin()) }

func main() { sdk.Main() }

package main

import (
	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/sdk"
)

func init() { sdk.Export(rechtspraak.Plugin()) }

func main() { sdk.Main() }

package main

import (
	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/native"
)

func init() { sdk.Export(rechtspraak.Plugin()) }

func main() { native.Main() }

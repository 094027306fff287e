package main

import (
	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk"
)

func init() { sdk.Export(tk.Plugin()) }

func main() { sdk.Main() }

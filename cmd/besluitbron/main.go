// Command besluitbron is the BesluitBron MCP server.
//
//	besluitbron serve [--config plugins.toml] [--addr 127.0.0.1:8080]
//	besluitbron stdio [--config plugins.toml]
//	besluitbron check-config [--config plugins.toml]
//	besluitbron version
package main

import (
	"os"
)

// version is set at build time: -ldflags "-X main.version=1.2.3".
var version = "dev"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

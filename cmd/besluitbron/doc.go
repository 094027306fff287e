// Command besluitbron is the BesluitBron MCP server.
//
//	besluitbron serve [--config plugins.toml] [--addr 127.0.0.1:8080]
//	besluitbron stdio [--config plugins.toml]
//	besluitbron check-config [--config plugins.toml]
//	besluitbron cache stats [--json] [--config plugins.toml]
//	besluitbron cache clear <connector> [--config plugins.toml]
//	besluitbron version
package main

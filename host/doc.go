// Package host is the BesluitBron server: it loads the configured
// connectors (WebAssembly modules, compiled once and pooled), gives each a
// fetch gate (allowed hosts, limits, cache) and serves their tools over MCP,
// on streamable HTTP and on stdio.
//
//	cfg, err := host.LoadConfig("plugins.toml", nil)
//	h, err := host.New(ctx, &host.Options{Config: cfg, Version: "1.0.0"})
//	defer h.Close(ctx)
//	err = h.ListenAndServe(ctx) // until ctx is done, then a graceful shutdown
//
// Everything else lives under host/internal: the runtime (wasmrt), the
// fetch path (fetch), configuration (config) and the MCP wiring
// (mcpserver). A Host is safe for concurrent use.
package host

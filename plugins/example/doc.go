// Package example is the smallest complete connector: copy this folder to
// start a new one. It asks OpenBesluitvorming how many documents and
// organisations it holds (GET /api/stats), which shows every part a
// connector has:
//
//   - a manifest declaring the platform, its allowed hosts, the service
//     requests count against with its limit, the cache classes, and the
//     tools with their JSON Schema and cost note (manifest.go);
//   - tool functions that turn arguments into upstream requests and
//     upstream responses into normalised results, naming the service,
//     cost and cache class on every fetch (example.go);
//   - a main package that exports the plugin as a WebAssembly module
//     (cmd/main.go);
//   - tests that run the plugin natively against recorded responses with
//     sdk/sdktest (example_test.go).
//
// Build and enable it:
//
//	make build            # also builds bin/plugins/example.wasm
//	# plugins.toml:
//	[connectors.example]
//	module = "bin/plugins/example.wasm"
package example

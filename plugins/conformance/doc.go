// Package conformance is the fixture connector of the official MCP
// conformance suite (@modelcontextprotocol/conformance): the tools,
// resources and prompts its server scenarios ask for by fixed names
// (test_simple_text, test://static-text, test_simple_prompt, …), served
// through the real host and WebAssembly runtime.
//
// It is enabled only in conformance.toml, with tool_prefix = "" and
// resource_base = "test://" so clients see the names the suite expects;
// scripts/conformance.sh runs the suite against it. It reaches no
// platform. docs/conformance.md lists the scenarios and why some cannot
// apply.
package conformance

// Package example is the connector to copy: a small but complete
// connector for OpenBesluitvorming (https://openbesluitvorming.nl), the
// council information of Dutch municipalities, provinces and water
// boards. plugins/obv is the full connector for the same platform; this
// one keeps what every connector has.
//
// The parts:
//
//   - manifest.go: what the host reads before any call. The platform (id,
//     title, description and description_nl, base URL, allowed hosts);
//     the service requests count against, with the platform's limit and
//     the host it belongs to; the cache classes and how long each keeps
//     an answer; the tools with their JSON Schema and cost note; and what
//     the host does with them on its own: search_filter (the organisation
//     choice on the search page), search_profile (how besluitbron_search
//     and the search page map query, organisation, dates, limit and
//     offset onto the search tool), type_labels (the record types the
//     results carry, in Dutch and English, as people see them on the
//     page) and freshness (what the Laadstatus calls to learn how current
//     the data is).
//   - example.go: the tools, one function each. Arguments are decoded and
//     checked (an error names the argument), URLs built on BaseURL, every
//     fetch names its service, cost and cache class, and answers become
//     the sdk's normalised sdk.SearchResult, sdk.Document (read through
//     sdk.PagedText, so page 2 costs no request, and a find in it through
//     sdk.FindText, which reads the same kept text) and sdk.ListResult, or a
//     type of the tool's own (Stats).
//   - example_test.go and testdata/: the tools run natively against
//     recorded answers with sdk/sdktest, which records every request.
//   - cmd/main.go: exports the plugin as a WebAssembly module.
//   - go.mod: the connector is a module of its own, requiring only the
//     sdk module (which needs nothing but the standard library).
//
// To start a connector of your own:
//
//  1. Copy this folder to plugins/<id> or a repository of your own;
//     rename the package and the module path in go.mod (outside this
//     repository, drop its replace line and require a released sdk).
//  2. Set ID, BaseURL, the allowed hosts, the services with the
//     platform's real limits and costs, and the cache classes; replace
//     the tools, their schemas and cost notes; keep search_filter,
//     search_profile and freshness only where the platform supports them,
//     and label every type your results carry in type_labels.
//  3. Record the platform's answers in testdata/ and rewrite the tests:
//     exact URLs, costs and classes, normalised results, the errors for
//     bad arguments and broken answers.
//  4. Point cmd/main.go at your package (its two functions are below),
//     build the module and enable it in plugins.toml.
//
// cmd/main.go, and the build from the connector's folder (in this
// repository, make build builds every plugins/<id>/cmd to
// bin/plugins/<id>.wasm):
//
//	func init() { sdk.Export(yourpkg.Plugin()) }
//	func main() { sdk.Main() }
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o <id>.wasm ./cmd
//
// plugins.toml, with the path to that file:
//
//	[connectors.<id>]
//	module = "bin/plugins/<id>.wasm"
//
// To run it as a native process (runtime = "process") instead, main calls
// native.Main from the module github.com/besluitbron/besluitbron/sdk/native.
//
// Beyond the template, plugins/obv shows what a real platform asks for:
// optional fields that fail soft with a note (see also sdk.DecodeLenient),
// meetings and motions rendered as text, a status tool, resources and
// prompts.
package example

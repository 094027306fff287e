// Package connectortest is the contract suite of BesluitBron's connectors:
// every connector's recorded cases run in-process, as WebAssembly (wasmrt)
// and as a native go-plugin process (nativert), and every runtime must give
// the same normalised [Outcome], equal to the outcome recorded in the case.
// It is wazero's compiler-against-interpreter idea applied to our two
// runtimes: the same connector source, built two ways, may not behave two
// ways.
//
// A case is a txtar file under testdata/<connector>/: a prose header, the
// tool call, the recorded upstream answers (files from the repository's
// testdata/<platform>/, served through sdk/sdktest's fake host), and the
// expected outcome (see [Case] for the format). Every tool a connector
// declares needs at least one case. A case may grant the connector client
// features and script the client's answers to its elicitations; every
// runtime reaches the client through the host's own gate
// (host/internal/runtime/clientcall), so what is not granted is refused in
// the real host's words in all three.
//
//	func TestContract(t *testing.T) {
//		for _, id := range connectortest.Connectors() {
//			t.Run(id, func(t *testing.T) {
//				connectortest.Run(t, id, &connectortest.Options{Update: *update})
//			})
//		}
//	}
//
// go test ./host/internal/testsupport/connectortest -update rewrites the want sections
// from the in-process runtime; review the diff.
//
// The package also holds the benchmarks of the runtimes against each
// other (bench_test.go): per-call overhead and start-up.
//
// Everything but this file is a test file: the suite imports all seven
// connectors, and no code the server is built from may (host's
// TestHostImportsNoConnector).
//
// # Concurrency
//
// [Run] opens each runtime's connector once per connector and runs the
// cases one after another; connectors may run in parallel subtests. The
// builds behind WASM and Process are shared and safe for concurrent use.
package connectortest

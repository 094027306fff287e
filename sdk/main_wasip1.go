//go:build wasip1

package sdk

// Main does nothing in the WebAssembly build: the module is a reactor
// whose main is never called. It exists so that a connector's main
// package, `func main() { sdk.Main() }`, also builds (and vets) natively.
func Main() {}

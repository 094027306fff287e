//go:build wasip1

package native

// Main does nothing in the WebAssembly build: the module is a reactor
// whose main is never called. It exists so that a connector's main
// package, `func main() { native.Main() }`, builds both ways; natively Main
// serves the connector as a go-plugin process.
func Main() {}

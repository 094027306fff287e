//go:build !wasip1

package sdk

import (
	"fmt"
	"io"
	"os"
)

// Main is the main function of a connector built for WebAssembly only.
// In the WebAssembly build it does nothing (the module is a reactor whose
// main is never called). Built natively, it says how to build the module
// and how to serve the connector as a native process instead, and exits
// with status 1: serving natively needs go-plugin and gRPC, which live in
// the module github.com/besluitbron/besluitbron/sdk/native so that this
// one depends on the standard library alone.
func Main() { os.Exit(mainByHand(Exported(), os.Stderr)) }

func mainByHand(p *Plugin, w io.Writer) int {
	if p == nil {
		fmt.Fprintln(w, "sdk: no connector exported; call sdk.Export in an init function of the main package")
		return 2
	}
	m := p.Manifest
	fmt.Fprintf(w, "This is the BesluitBron connector %q (%s, version %s), built natively.\n", m.ID, m.Title, m.Version)
	fmt.Fprintf(w, "It is meant to be a WebAssembly module; build it with\n\n")
	fmt.Fprintf(w, "\tGOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o %s.wasm ./cmd\n\n", m.ID)
	fmt.Fprintf(w, "and list it in plugins.toml as [connectors.%s] module = \"%s.wasm\".\n", m.ID, m.ID)
	fmt.Fprintf(w, "To run it as a native process (runtime = \"process\"), call native.Main()\n")
	fmt.Fprintf(w, "from github.com/besluitbron/besluitbron/sdk/native in its main package instead.\n")
	return 1
}

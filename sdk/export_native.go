//go:build !wasip1

package sdk

// Export makes p the connector of a WebAssembly module. In a native build it
// only records p, so that a connector's main package builds and vets on any
// OS.
func Export(p *Plugin) { exported = p }

var exported *Plugin

// Exported returns the plugin recorded by [Export], or nil.
func Exported() *Plugin { return exported }

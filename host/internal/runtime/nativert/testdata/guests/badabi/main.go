// Command badabi is a native connector that announces the next ABI
// version in go-plugin's handshake; the host must refuse it by name.
package main

import (
	"github.com/hashicorp/go-plugin"

	"github.com/besluitbron/besluitbron/plugins/example"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/native"
)

func main() {
	hs := native.Handshake()
	hs.ProtocolVersion = connector.ABIVersion + 1
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: hs,
		Plugins:         plugin.PluginSet{native.PluginName: &native.Plugin{Impl: example.Plugin()}},
		GRPCServer:      plugin.DefaultGRPCServer,
	})
}

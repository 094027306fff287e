//go:build !wasip1

package native

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/native/internal/nativewire"
)

// PluginName is the name a native connector process serves its
// connector under in go-plugin's plugin set.
const PluginName = "connector"

// The magic cookie is go-plugin's guard against a human starting a plugin
// binary by hand; it is not a secret.
const (
	nativeCookieKey   = "BESLUITBRON_CONNECTOR"
	nativeCookieValue = "4f1c2a77-native-connector-abi"
)

// Handshake returns the go-plugin handshake a host and a native
// connector process must agree on: the magic cookie, and
// connector.ABIVersion as the protocol version, so a process built with
// another ABI is refused before any call.
func Handshake() plugin.HandshakeConfig {
	return plugin.HandshakeConfig{
		ProtocolVersion:  connector.ABIVersion,
		MagicCookieKey:   nativeCookieKey,
		MagicCookieValue: nativeCookieValue,
	}
}

// Plugin is the go-plugin plugin a host and a native connector
// process both register under [PluginName], in go-plugin's style of
// one type with a server and a client side. In the process, GRPCServer
// serves Impl; in the host, GRPCClient returns a connector.Connector whose
// calls run in the process and whose fetches come back to the host's
// connector.Host. The messages are the sdk/connector types as JSON, over
// gRPC (see the package documentation of sdk/native/internal/nativewire for the
// protocol and why).
//
// The connector.Connector from GRPCClient does not own the process: its
// Close does nothing; the host kills the process through go-plugin.
type Plugin struct {
	plugin.NetRPCUnsupportedPlugin
	// Impl is the connector the process serves; the host leaves it nil.
	Impl connector.Connector
}

// nativeOpenTimeout bounds the first exchange with a fresh process (the
// broker dial and the manifest).
const nativeOpenTimeout = 15 * time.Second

// GRPCServer registers Impl's service on the process's gRPC server.
func (p *Plugin) GRPCServer(b *plugin.GRPCBroker, s *grpc.Server) error {
	if p.Impl == nil {
		return errors.New("sdk/native: Plugin.Impl is nil; nothing to serve")
	}
	nativewire.NewServer(p.Impl, func(id uint32) (*grpc.ClientConn, error) { return b.Dial(id) }).Register(s)
	return nil
}

// GRPCClient opens a session with the process on c and returns it as a
// connector.Connector (its manifest already read). It starts serving the
// host side of fetch and log through b.
func (p *Plugin) GRPCClient(ctx context.Context, b *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	ctx, cancel := context.WithTimeout(ctx, nativeOpenTimeout)
	defer cancel()
	return nativewire.Open(ctx, c, func(register func(*grpc.Server)) uint32 {
		id := b.NextId()
		go b.AcceptAndServe(id, func(opts []grpc.ServerOption) *grpc.Server {
			s := grpc.NewServer(append(opts, nativewire.ServerOptions()...)...)
			register(s)
			return s
		})
		return id
	})
}

// Main serves the connector recorded by [sdk.Export] as a native process, when
// the BesluitBron host started this binary (runtime = "process" in
// plugins.toml). Started by hand, it prints what the binary is and how to
// configure it, and exits with status 1. Main returns only by exiting.
//
// A connector's main package is the same for both builds:
//
//	func init() { sdk.Export(yourconnector.Plugin()) }
//
//	func main() { native.Main() }
//
// In the WebAssembly build main is never called (the module is a
// reactor) and this package compiles to an empty Main, so neither
// go-plugin nor gRPC is linked into the module.
func Main() {
	os.Exit(runMain(sdk.Exported(), os.Getenv, os.Stderr, os.Executable, serveNative))
}

// runMain is Main with its surroundings as arguments, so it is tested.
func runMain(p *sdk.Plugin, getenv func(string) string, stderr io.Writer, exe func() (string, error), serve func(*sdk.Plugin)) int {
	if p == nil {
		fmt.Fprintln(stderr, "sdk/native: no connector exported; call sdk.Export in an init function of the main package")
		return 2
	}
	if getenv(nativeCookieKey) != nativeCookieValue {
		usage(stderr, p, exe)
		return 1
	}
	serve(p)
	return 0
}

func usage(w io.Writer, p *sdk.Plugin, exe func() (string, error)) {
	m := p.Manifest
	path, err := exe()
	name := m.ID
	if err == nil {
		name = filepath.Base(path)
	}
	fmt.Fprintf(w, "%s is the BesluitBron connector %q (%s, version %s), built to run as a native process.\n", name, m.ID, m.Title, m.Version)
	fmt.Fprintf(w, "The BesluitBron host starts it; it does nothing when run by hand.\n\n")
	fmt.Fprintf(w, "To use it, configure it in plugins.toml:\n\n")
	fmt.Fprintf(w, "\t[connectors.%s]\n\truntime = \"process\"\n", m.ID)
	if err != nil {
		fmt.Fprintf(w, "\tmodule = \"<path of this binary>\"\n")
		return
	}
	fmt.Fprintf(w, "\tmodule = %q\n", path)
	if sum, err := fileSHA256(path); err == nil {
		fmt.Fprintf(w, "\tsha256 = %q\n", sum)
	}
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// serveNative serves p over go-plugin until the host ends the process.
func serveNative(p *sdk.Plugin) {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake(),
		Plugins:         plugin.PluginSet{PluginName: &Plugin{Impl: p}},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, nativewire.ServerOptions()...)...)
		},
	})
}

var _ plugin.GRPCPlugin = (*Plugin)(nil)

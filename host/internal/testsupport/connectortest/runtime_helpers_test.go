package connectortest

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/besluitbron/besluitbron/host/internal/runtime/clientcall"
	"github.com/besluitbron/besluitbron/host/internal/runtime/nativert"
	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmrt"
	"github.com/besluitbron/besluitbron/host/internal/testsupport/nativerttest"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/plugins/example"
	"github.com/besluitbron/besluitbron/plugins/obk"
	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/plugins/openarchivaris"
	"github.com/besluitbron/besluitbron/plugins/opentk"
	"github.com/besluitbron/besluitbron/plugins/ori"
	"github.com/besluitbron/besluitbron/plugins/rechtspraak"
	"github.com/besluitbron/besluitbron/plugins/tk"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// plugins are the connectors in this repository: their Go constructor for
// the in-process runtime; their main package is ./plugins/<id>/cmd.
var plugins = map[string]func() *sdk.Plugin{
	"example":        example.Plugin,
	"obk":            obk.Plugin,
	"obv":            obv.Plugin,
	"openarchivaris": openarchivaris.Plugin,
	"opentk":         opentk.Plugin,
	"ori":            ori.Plugin,
	"rechtspraak":    rechtspraak.Plugin,
	"tk":             tk.Plugin,
}

// Connectors lists the ids of the repository's connectors, sorted.
func Connectors() []string {
	ids := make([]string, 0, len(plugins))
	for id := range plugins {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Runtime is one way of running a connector. Open builds what it needs
// from source and returns the connector, closed when the test ends, with
// grant as the admin's connectors.<id>.grant. Every runtime puts the
// host's own gate (clientcall) between the connector and the call's
// client, so that a feature is refused, or reaches the client, in the same
// words in all of them.
type Runtime struct {
	Name string
	Open func(tb testing.TB, id string, grant ...string) connector.Connector
}

// Runtimes returns the three runtimes: in-process (the reference),
// WebAssembly, and native process.
func Runtimes() []Runtime { return []Runtime{InProcess(), WASM(), Process()} }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func pkg(id string) string { return "./plugins/" + id + "/cmd" }

// nativePkg is the main package of id's native build. The example targets
// WebAssembly only (its module requires nothing but the sdk), so the
// native runtime's tests serve it from a main package of their own.
func nativePkg(id string) string {
	if id == "example" {
		return "./host/internal/runtime/nativert/testdata/guests/example"
	}
	return pkg(id)
}

func constructor(tb testing.TB, id string) func() *sdk.Plugin {
	tb.Helper()
	p, ok := plugins[id]
	if !ok {
		tb.Fatalf("connectortest: no connector %q (have %v)", id, Connectors())
	}
	return p
}

var (
	ccOnce sync.Once
	cc     wazero.CompilationCache
)

// compilationCache keeps compiled modules across test runs in the
// temporary directory (wazero keys entries by its version and the module's
// hash), so that a second run does not compile the connectors again.
func compilationCache() wazero.CompilationCache {
	ccOnce.Do(func() {
		c, err := wazero.NewCompilationCacheWithDir(filepath.Join(os.TempDir(), "besluitbron-connectortest-wazero"))
		if err != nil {
			c = wazero.NewCompilationCache()
		}
		cc = c
	})
	return cc
}

// InProcess runs the connector's Go code in the test process, behind the
// gate the other runtimes keep in the host.
func InProcess() Runtime {
	return Runtime{Name: "inprocess", Open: func(tb testing.TB, id string, grant ...string) connector.Connector {
		return gated{Connector: constructor(tb, id)(), gate: clientcall.New(clientcall.Options{ID: id, Grant: grant})}
	}}
}

// gated is an in-process connector whose calls reach their client through
// the host's gate, as a WebAssembly or native connector's do.
type gated struct {
	connector.Connector
	gate *clientcall.Gate
}

func (g gated) Call(ctx context.Context, req connector.CallRequest, h connector.Host) (connector.CallResult, error) {
	return g.Connector.Call(ctx, req, g.gate.Host(h))
}

// WASM runs the connector's WebAssembly build under wasmrt.
func WASM() Runtime {
	return Runtime{Name: "wasm", Open: func(tb testing.TB, id string, grant ...string) connector.Connector {
		tb.Helper()
		constructor(tb, id)
		c, err := wasmrt.Load(context.Background(), wasmrt.Options{ID: id, Wasm: wasmbuild.Bytes(tb, pkg(id)), Logger: quiet(), CompilationCache: compilationCache(), Grant: grant})
		if err != nil {
			tb.Fatalf("connectortest: %v", err)
		}
		tb.Cleanup(func() { c.Close(context.Background()) })
		return c
	}}
}

// Process runs the connector's native build as a go-plugin process under
// nativert.
func Process() Runtime {
	return Runtime{Name: "process", Open: func(tb testing.TB, id string, grant ...string) connector.Connector {
		tb.Helper()
		constructor(tb, id)
		bin := nativerttest.Build(tb, nativePkg(id))
		c, err := nativert.Load(context.Background(), nativert.Options{ID: id, Path: bin, SHA256: nativerttest.SHA256(tb, bin), Logger: quiet(), Grant: grant})
		if err != nil {
			tb.Fatalf("connectortest: %v", err)
		}
		tb.Cleanup(func() { c.Close(context.Background()) })
		return c
	}}
}

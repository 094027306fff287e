package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/host/internal/nativert"
	"github.com/besluitbron/besluitbron/host/internal/wasmrt"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// runtimeLoader starts a connector whose module file (bytes b, hex sha256
// sum, already checked against the config's pin) is at path.
type runtimeLoader func(h *Host, ctx context.Context, id string, cc config.Connector, path string, b []byte, sum string) (connector.Connector, error)

// runtimes maps connectors.<id>.runtime to its loader. Every loader
// returns a plain connector.Connector: nothing after loadRuntime knows,
// or may ask, which runtime runs a connector.
var runtimes = map[string]runtimeLoader{
	"wasm":    (*Host).loadWasm,
	"process": (*Host).loadProcess,
}

// buildHint says how to produce a missing module.
var buildHint = map[string]string{"wasm": "make build", "process": "make native"}

// loadRuntime loads the connector configured as id from path with the
// runtime cc names, after checking the file against cc's sha256 pin. It
// returns the connector and the file's hex sha256.
func (h *Host) loadRuntime(ctx context.Context, id string, cc config.Connector, path string) (connector.Connector, string, error) {
	load, ok := runtimes[cc.Runtime]
	if !ok { // config validation allows only the keys above
		return nil, "", fmt.Errorf("connectors.%s.runtime %q: want \"wasm\" or \"process\"", id, cc.Runtime)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("connectors.%s.module: %w (run `%s` first?)", id, err, buildHint[cc.Runtime])
	}
	s := sha256.Sum256(b)
	sum := hex.EncodeToString(s[:])
	if cc.SHA256 != "" && cc.SHA256 != sum {
		return nil, "", fmt.Errorf("connectors.%s.sha256: module %s has sha256 %s, config pins %s", id, path, sum, cc.SHA256)
	}
	conn, err := load(h, ctx, id, cc, path, b, sum)
	if err != nil {
		return nil, "", err
	}
	return conn, sum, nil
}

func (h *Host) loadWasm(ctx context.Context, id string, cc config.Connector, _ string, b []byte, _ string) (connector.Connector, error) {
	return wasmrt.Load(ctx, wasmrt.Options{
		ID:               id,
		Wasm:             b,
		PoolSize:         cc.PoolSize,
		MaxInstances:     cc.MaxInstances,
		MemoryLimitMB:    cc.MemoryLimitMB,
		CallTimeout:      cc.CallTimeout,
		CompilationCache: h.ccache,
		Logger:           h.log,
	})
}

// loadProcess starts the native binary. The sum checked here is pinned
// for every later restart too: a binary replaced on disk is refused
// rather than run, even when the config pins no sha256.
func (h *Host) loadProcess(ctx context.Context, id string, cc config.Connector, path string, _ []byte, sum string) (connector.Connector, error) {
	return nativert.Load(ctx, nativert.Options{
		ID:            id,
		Path:          path,
		SHA256:        sum,
		PoolSize:      cc.MaxInstances, // a process serves its calls concurrently: it bounds calls, not processes
		MemoryLimitMB: cc.MemoryLimitMB,
		CallTimeout:   cc.CallTimeout,
		Logger:        h.log,
	})
}

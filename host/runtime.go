package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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

// buildTarget says which make target builds every module of a runtime,
// and the file name a module of that runtime has under bin/plugins/.
var buildTarget = map[string]struct{ all, suffix string }{
	"wasm":    {"make build", ".wasm"},
	"process": {"make native", ""},
}

// missingModule explains a module file that cannot be read: the path as
// configured and as resolved (relative paths resolve against the config
// file's folder, not the working directory), and the remedy that would
// produce that very file. `make` is suggested only when the resolved path
// is a repository's bin/plugins/<name> for a connector that repository
// has (plugins/<name>), with the folder to run it in; a file found
// relative to the working directory instead is named, since that is the
// usual mistake.
func missingModule(id string, cc config.Connector, cfgDir, path string, err error) error {
	key := "connectors." + id + ".module"
	where := path
	if cc.Module != path {
		where = fmt.Sprintf("%s (%q resolved against the config file's folder %s)", path, cc.Module, cfgDir)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: cannot read %s: %w", key, where, err)
	}
	msg := fmt.Sprintf("%s: no file at %s", key, where)
	bt := buildTarget[cc.Runtime]
	name := filepath.Base(path)
	if bt.suffix != "" {
		name = strings.TrimSuffix(name, bt.suffix)
	}
	binDir := filepath.Dir(path)
	root := filepath.Dir(filepath.Dir(binDir))
	if filepath.Base(binDir) == "plugins" && filepath.Base(filepath.Dir(binDir)) == "bin" && filepath.Base(path) == name+bt.suffix &&
		isFile(filepath.Join(root, "Makefile")) && isDir(filepath.Join(root, "plugins", name, "cmd")) {
		target := "bin/plugins/" + name + bt.suffix
		run := fmt.Sprintf("`make %s` (or `%s` for every connector)", target, bt.all)
		if wd, _ := os.Getwd(); wd != root {
			run = fmt.Sprintf("`make -C %s %s` (or `%s` there for every connector)", root, target, bt.all)
		}
		return fmt.Errorf("%s: build it with %s", msg, run)
	}
	if !filepath.IsAbs(cc.Module) {
		if abs, aerr := filepath.Abs(cc.Module); aerr == nil && abs != path && isFile(abs) {
			return fmt.Errorf("%s; a file %s exists relative to the working directory, but relative paths resolve against the config file's folder: write module = %q", msg, abs, abs)
		}
		return fmt.Errorf("%s: check the path (relative paths resolve against the config file's folder, not the working directory)", msg)
	}
	return fmt.Errorf("%s: check the path", msg)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

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
		return nil, "", missingModule(id, cc, h.cfg.Dir, path, err)
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

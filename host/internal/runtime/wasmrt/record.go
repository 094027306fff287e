package wasmrt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// A load record is what a successful load learned about a module: its ABI
// version, its manifest, whether it runs with the loop budget, and the
// sha256 of the rewritten module, which is kept beside it under that
// sha256 (so executables that rewrite alike share it). It lives in
// Options.CacheDir (the compilation cache's directory), under a name that
// hashes everything a load's outcome depends on: the module's bytes, the
// memory limit (the guest's GOMEMLIMIT, and whether _initialize fits), the
// largest output describe may write, and the host executable itself
// (wazero's validation, the host module's functions, the rewriter, the ABI
// versions accepted). A record is only ever written after a load that
// succeeded, so a module that fails to load never has one and fails at
// start, every start.
//
// With a record, Load answers the manifest from it and makes the first
// instance in the background (warm); the work it skips at start is the
// part that a warm compilation cache does not: wazero's decoding and
// validation of every function body, the rewrite, instantiating,
// _initialize and describe.

// recordVersion names the record's format and meaning; a change makes
// every record unreadable, and the next start loads in full.
const recordVersion = "besluitbron-wasmrt-record-1"

type loadRecord struct {
	Version      string          `json:"version"`
	ID           string          `json:"id"`
	ABI          uint32          `json:"abi"`
	Instrumented bool            `json:"instrumented"`
	WasmSHA256   string          `json:"wasm_sha256,omitempty"` // of the rewritten module, when Instrumented
	Manifest     json.RawMessage `json:"manifest"`
}

// recordPath returns the record's path for a module of hex sha256 sum,
// or "" when no record can be kept (no cache directory, or an executable
// that cannot be identified).
func (c *Connector) recordPath(sum string) string {
	exe := executableID()
	if c.opts.CacheDir == "" || exe == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%d\x00%d\x00%d", recordVersion, exe, sum, c.opts.MemoryLimitMB, c.opts.MaxOutputBytes, checkBudget)
	return filepath.Join(c.opts.CacheDir, recordDir, hex.EncodeToString(h.Sum(nil))+".json")
}

const recordDir = "besluitbron-wasmrt"

// rewrittenPath is where the rewritten module of hex sha256 sum is kept.
func rewrittenPath(recPath, sum string) string {
	return filepath.Join(filepath.Dir(recPath), sum+".wasm")
}

var executableID = sync.OnceValue(func() string {
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(p)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%d\x00%d", p, st.Size(), st.ModTime().UnixNano())
})

// readRecord returns the record at path, nil when there is none or it
// is unreadable (then the load is done in full and the record rewritten).
// A record read is touched, so that pruning keeps it.
func readRecord(path, id string) *loadRecord {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var r loadRecord
	if json.Unmarshal(b, &r) != nil || r.Version != recordVersion || r.ID != id || len(r.Manifest) == 0 {
		return nil
	}
	now := time.Now()
	os.Chtimes(path, now, now)
	return &r
}

// readRewritten returns the rewritten module kept at path, nil unless its
// sha256 is the record's.
func readRewritten(path, sum string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	s := sha256.Sum256(b)
	if hex.EncodeToString(s[:]) != sum {
		return nil
	}
	return b
}

// writeFile writes b to path through a temporary file and a rename, so a
// reader sees the whole file or none.
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// saveRecord keeps what a full load learned: the rewritten module first,
// then the record naming it. manifest is describe's output.
func (c *Connector) saveRecord(recPath string, rewritten, manifest []byte) {
	var m bytes.Buffer
	if err := json.Compact(&m, manifest); err != nil {
		return // Load has decoded it: cannot happen
	}
	r := loadRecord{Version: recordVersion, ID: c.id, ABI: c.abi, Instrumented: c.Instrumented, Manifest: m.Bytes()}
	if c.Instrumented {
		r.WasmSHA256 = sha256hex(rewritten)
		if err := writeFile(rewrittenPath(recPath, r.WasmSHA256), rewritten); err != nil {
			c.opts.Logger.Warn("connector: cannot keep the rewritten module; the next start loads it in full", "connector", c.id, "error", err)
			return
		}
	}
	// Not json.Marshal, which would HTML-escape the manifest and make it
	// differ from describe's output.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(r)
	if err == nil {
		err = writeFile(recPath, b.Bytes())
	}
	if err != nil {
		c.opts.Logger.Warn("connector: cannot keep the load record; the next start loads it in full", "connector", c.id, "error", err)
	}
	pruneRecords(filepath.Dir(recPath), time.Now())
}

// pruneRecords removes the records no start has read for recordMaxAge
// (every rebuild of the host, every `go run`, writes new ones), then the
// rewritten modules no remaining record names, once they are older than
// an hour (a load may be writing its record after its module). A record
// pruned too early costs a full load, never a wrong one.
func pruneRecords(dir string, now time.Time) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	named := map[string]bool{}
	var modules []os.DirEntry
	for _, e := range ents {
		switch filepath.Ext(e.Name()) {
		case ".wasm":
			modules = append(modules, e)
		case ".json":
			p := filepath.Join(dir, e.Name())
			if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > recordMaxAge {
				os.Remove(p)
				continue
			}
			var r loadRecord
			if b, err := os.ReadFile(p); err == nil && json.Unmarshal(b, &r) == nil {
				named[r.WasmSHA256+".wasm"] = true
			}
		}
	}
	for _, e := range modules {
		if info, err := e.Info(); err == nil && !named[e.Name()] && now.Sub(info.ModTime()) > time.Hour {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

const recordMaxAge = 30 * 24 * time.Hour

// sameManifest reports whether describe's output is the recorded manifest.
func sameManifest(out, recorded []byte) bool {
	var m bytes.Buffer
	return json.Compact(&m, out) == nil && bytes.Equal(m.Bytes(), recorded)
}

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

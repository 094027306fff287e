package wasmrt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmbudget"
)

// A load record is what a successful load learned about a module: its ABI
// version, its manifest, whether it runs with the loop budget, and the
// sha256 of the rewritten module it then runs. It lives in
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
// validation of every function body, instantiating, _initialize and
// describe.
//
// A record is not trusted to say what runs. The code a connector runs is
// always made from the module's bytes, the bytes the caller checked
// against the config's sha256 pin: Load rewrites them itself (a few
// milliseconds) and refuses to start when the record names another
// rewrite, so an edited record and a planted module beside it cannot make
// a pinned connector run other code (ErrRecordAltered). The recorded
// manifest is checked against what that code answers in the background;
// when they differ, the connector's calls fail and the record is removed.
// (Earlier records kept the rewritten module beside them and ran it when
// its sha256 was the recorded one: a record edited to name a planted
// module ran that module.)

// recordVersion names the record's format and meaning; a change makes
// every record unreadable, and the next start loads in full.
const recordVersion = "besluitbron-wasmrt-record-2"

// ErrRecordAltered is the refusal of a load record that names other code
// than the module's own: someone changed the record.
var ErrRecordAltered = errors.New("load record altered")

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

// recordedModule returns the code a connector loaded from record r runs:
// the module's bytes, or their rewrite with the loop budget when r says
// the module runs instrumented, made here from the module's bytes. A
// record that names another rewrite than the module's is refused.
func (c *Connector) recordedModule(r *loadRecord, recPath string) ([]byte, error) {
	if !r.Instrumented {
		return c.opts.Wasm, nil
	}
	got := "none (the module does not import the interrupt check)"
	rewritten, _, err := wasmbudget.Instrument(c.opts.Wasm, checkBudget)
	if err == nil {
		if got = sha256hex(rewritten); got == r.WasmSHA256 {
			return rewritten, nil
		}
	}
	return nil, fmt.Errorf("loading connector %q: %w: the record %s says the module of sha256 %s runs as a rewrite of sha256 %s, but its rewrite is %s; the record names other code, so nothing is run: remove the record (or the folder %s) and start again",
		c.id, ErrRecordAltered, recPath, c.sha256, r.WasmSHA256, got, filepath.Dir(recPath))
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

// saveRecord keeps what a full load learned. manifest is describe's
// output; rewritten (nil when the module runs uninstrumented) is only
// hashed: Load makes it again from the module's bytes.
func (c *Connector) saveRecord(recPath string, rewritten, manifest []byte) {
	var m bytes.Buffer
	if err := json.Compact(&m, manifest); err != nil {
		return // Load has decoded it: cannot happen
	}
	r := loadRecord{Version: recordVersion, ID: c.id, ABI: c.abi, Instrumented: c.Instrumented, Manifest: m.Bytes()}
	if c.Instrumented {
		r.WasmSHA256 = sha256hex(rewritten)
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
// (every rebuild of the host, every `go run`, writes new ones), and the
// rewritten modules earlier records kept beside them (no record names one
// now). A record pruned too early costs a full load, never a wrong one.
func pruneRecords(dir string, now time.Time) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			continue
		}
		switch filepath.Ext(e.Name()) {
		case ".wasm":
			os.Remove(filepath.Join(dir, e.Name()))
		case ".json":
			if now.Sub(info.ModTime()) > recordMaxAge {
				os.Remove(filepath.Join(dir, e.Name()))
			}
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

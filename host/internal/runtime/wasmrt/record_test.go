package wasmrt

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmbudget"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

var (
	recCacheOnce sync.Once
	recCache     wazero.CompilationCache
)

// recordOptions loads guest with the shared compilation cache of the
// package's other tests (var/wazero-proof) and records in dir.
func recordOptions(t *testing.T, guest, dir string) Options {
	t.Helper()
	recCacheOnce.Do(func() {
		d := filepath.Join(wasmbuild.Root(), "var", "wazero-proof")
		os.MkdirAll(d, 0o755)
		recCache, _ = wazero.NewCompilationCacheWithDir(d)
	})
	if recCache == nil {
		t.Fatal("no compilation cache")
	}
	return Options{ID: guest, CompilationCache: recCache, CacheDir: dir, Wasm: wasmbuild.Bytes(t, "./host/internal/runtime/wasmrt/testdata/guests/"+guest)}
}

func mustLoad(t *testing.T, o Options) *Connector {
	t.Helper()
	c, err := Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func recordFiles(t *testing.T, dir string) (rec, wasm []string) {
	t.Helper()
	rec, _ = filepath.Glob(filepath.Join(dir, "besluitbron-wasmrt", "*.json"))
	wasm, _ = filepath.Glob(filepath.Join(dir, "besluitbron-wasmrt", "*.wasm"))
	return rec, wasm
}

// TestLoadFromRecord: a second load of the same module answers the same
// manifest from the record, runs with the loop budget (a runaway call is
// stopped at its deadline) and serves calls once its first instance is
// made in the background.
func TestLoadFromRecord(t *testing.T) {
	dir := t.TempDir()
	o := recordOptions(t, "hostile", dir)
	o.CallTimeout = 500 * time.Millisecond
	full := mustLoad(t, o)
	if full.loadedFromRecord {
		t.Fatal("first load came from a record")
	}
	if rec, wasm := recordFiles(t, dir); len(rec) != 1 || len(wasm) != 0 {
		t.Fatalf("after a full load: records %v, rewritten modules %v; want one record and no module (Load rewrites the module's own bytes)", rec, wasm)
	}
	fast := mustLoad(t, o)
	if !fast.loadedFromRecord {
		t.Fatal("second load did not come from the record")
	}
	if st := fast.PoolStats(); st.Instances != 1 {
		t.Errorf("pool after a load from a record: %+v, want the first instance counted", st)
	}
	if !fast.Instrumented {
		t.Error("loaded from the record uninstrumented")
	}
	// The calls below have a 500 ms deadline; the background load (slow
	// under -race on a busy machine) is waited for first, so the verdict
	// does not depend on how fast it is.
	if err := fast.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	m1, _ := full.Describe(context.Background())
	m2, _ := fast.Describe(context.Background())
	if !reflect.DeepEqual(m1, m2) {
		t.Errorf("manifest from the record differs:\n%+v\n%+v", m1, m2)
	}
	// echo first, on the instance the background load made: a call after
	// the loop would make a new instance within its 500 ms deadline,
	// which a busy machine does not always manage.
	res, err := fast.Call(context.Background(), connector.CallRequest{Tool: "echo", Arguments: json.RawMessage(`{"x":1}`)}, nil)
	if err != nil || res.Text != `{"echo":{"x":1}}` {
		t.Fatalf("echo: %+v %v", res, err)
	}
	if _, err := fast.Call(context.Background(), connector.CallRequest{Tool: "loop", Arguments: json.RawMessage(`{}`)}, nil); err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Errorf("endless loop on a connector loaded from a record: %v, want a deadline error", err)
	}
	// Another memory limit is another record.
	o.MemoryLimitMB = 200
	if c := mustLoad(t, o); c.loadedFromRecord {
		t.Error("a load with another memory limit came from the record")
	}
	// A connector loaded from a record closes at once, its background
	// load finishing first.
	o.MemoryLimitMB = 0
	c, err := Load(context.Background(), o)
	if err != nil || !c.loadedFromRecord {
		t.Fatal(err, c.loadedFromRecord)
	}
	if err := c.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(context.Background(), connector.CallRequest{Tool: "echo"}, nil); err == nil {
		t.Error("call after Close succeeded")
	}
}

// TestRecordThatLies: when the module answers another manifest than its
// record (a record written by hand), calls fail with that error and the
// record is removed, so the next start loads in full.
func TestRecordThatLies(t *testing.T) {
	dir := t.TempDir()
	o := recordOptions(t, "hostile", dir)
	o.Logger = slog.New(slog.DiscardHandler)
	mustLoad(t, o)
	rec, _ := recordFiles(t, dir)
	b, _ := os.ReadFile(rec[0])
	var r loadRecord
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	var m connector.Manifest
	json.Unmarshal(r.Manifest, &m)
	m.Version = "9.9.9"
	r.Manifest, _ = json.Marshal(m)
	b, _ = json.Marshal(r)
	os.WriteFile(rec[0], b, 0o644)
	c := mustLoad(t, o)
	if !c.loadedFromRecord {
		t.Fatal("not loaded from the record")
	}
	_, err := c.Call(context.Background(), connector.CallRequest{Tool: "echo", Arguments: json.RawMessage(`{}`)}, nil)
	if err == nil || !strings.Contains(err.Error(), "another ABI version or manifest") || !strings.Contains(err.Error(), `"hostile"`) {
		t.Fatalf("call on a connector whose record lies: %v", err)
	}
	if st := c.PoolStats(); st.Instances != 0 {
		t.Errorf("pool after a failed background load: %+v", st)
	}
	if rec, wasm := recordFiles(t, dir); len(rec) != 0 || len(wasm) != 0 {
		t.Errorf("the lying record stays: %v %v", rec, wasm)
	}
	if c := mustLoad(t, o); c.loadedFromRecord {
		t.Error("loaded from a removed record")
	}
}

// TestBadModuleHasNoRecord: a module that fails to load leaves no record,
// so it fails at start every time.
func TestBadModuleHasNoRecord(t *testing.T) {
	dir := t.TempDir()
	o := recordOptions(t, "badabi", dir)
	for range 2 {
		if _, err := Load(context.Background(), o); err == nil || !strings.Contains(err.Error(), "99") {
			t.Fatalf("got %v, want the ABI error at load", err)
		}
	}
	if rec, wasm := recordFiles(t, dir); len(rec)+len(wasm) != 0 {
		t.Errorf("a failed load left %v %v", rec, wasm)
	}
	o = recordOptions(t, "hostile", dir)
	o.ID = "obv"
	for range 2 {
		if _, err := Load(context.Background(), o); err == nil || !strings.Contains(err.Error(), `declares id "hostile"`) {
			t.Fatalf("got %v, want the id error at load", err)
		}
	}
}

// TestRecordUninstrumented: a module without the interrupt check is
// recorded as such, and loads from its record on wazero's checks.
func TestRecordUninstrumented(t *testing.T) {
	dir := t.TempDir()
	o := recordOptions(t, "rawout", dir)
	mustLoad(t, o)
	if rec, wasm := recordFiles(t, dir); len(rec) != 1 || len(wasm) != 0 {
		t.Fatalf("records %v, rewritten modules %v; want one record and no module", rec, wasm)
	}
	c := mustLoad(t, o)
	if !c.loadedFromRecord || c.Instrumented {
		t.Fatalf("from record %v, instrumented %v", c.loadedFromRecord, c.Instrumented)
	}
	res, err := c.Call(context.Background(), connector.CallRequest{Tool: "any", Arguments: json.RawMessage(`{"out":"eyJ0ZXh0Ijoib2sifQ==","rc":0}`)}, nil)
	if err != nil || res.Text != "ok" {
		t.Fatalf("call: %+v, %v", res, err)
	}
}

// TestPruneRecords: a full load removes the records no start has read for
// a month and the rewritten modules earlier records kept, and keeps its
// own record.
func TestPruneRecords(t *testing.T) {
	dir := t.TempDir()
	rd := filepath.Join(dir, recordDir)
	os.MkdirAll(rd, 0o755)
	old := time.Now().Add(-recordMaxAge - time.Hour)
	for name, body := range map[string]string{"stale.json": `{"wasm_sha256":"stale"}`, "fresh.json": `{}`, "stale.wasm": "", "kept.wasm": ""} {
		p := filepath.Join(rd, name)
		os.WriteFile(p, []byte(body), 0o644)
		if name == "stale.json" {
			os.Chtimes(p, old, old)
		}
	}
	mustLoad(t, recordOptions(t, "hostile", dir))
	rec, wasm := recordFiles(t, dir)
	var names []string
	for _, p := range append(rec, wasm...) {
		names = append(names, filepath.Base(p))
	}
	got := strings.Join(names, " ")
	if len(rec) != 2 || len(wasm) != 0 || strings.Contains(got, "stale") || !strings.Contains(got, "fresh.json") {
		t.Errorf("after pruning: %s; want the new record and the fresh one", got)
	}
}

// TestPlantedRecordIsRefused: a record edited to name another module (a
// rewrite of the pinned one with other bytes, kept beside it under its own
// sha256, with the manifest that module answers) does not make the
// connector run that module: Load refuses at start, naming the connector
// and the module's sha256, and runs nothing.
func TestPlantedRecordIsRefused(t *testing.T) {
	dir := t.TempDir()
	o := recordOptions(t, "hostile", dir)
	o.Logger = slog.New(slog.DiscardHandler)
	mustLoad(t, o)
	rec, _ := recordFiles(t, dir)
	b, _ := os.ReadFile(rec[0])
	var r loadRecord
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	// The planted module: the pinned module's rewrite, its title changed
	// in its data (same length, still valid), kept under its sha256.
	rewritten, _, err := wasmbudget.Instrument(o.Wasm, checkBudget)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(rewritten, []byte("Hostile")) != 1 {
		t.Fatal("the guest's title is not once in its data")
	}
	planted := bytes.Replace(rewritten, []byte("Hostile"), []byte("Planted"), 1)
	sum := sha256hex(planted)
	os.WriteFile(filepath.Join(dir, recordDir, sum+".wasm"), planted, 0o644)
	var m connector.Manifest
	json.Unmarshal(r.Manifest, &m)
	m.Title = "Planted"
	r.Manifest, _ = json.Marshal(m)
	r.Instrumented, r.WasmSHA256 = true, sum
	b, _ = json.Marshal(r)
	os.WriteFile(rec[0], b, 0o644)

	c, err := Load(context.Background(), o)
	if err == nil {
		defer c.Close(context.Background())
		c.Ready(context.Background())
		got, _ := c.Describe(context.Background())
		t.Fatalf("a planted record was loaded (title %q): want a refusal at start", got.Title)
	}
	for _, want := range []string{`"hostile"`, sha256hex(o.Wasm), sum, rec[0]} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not name %s", err, want)
		}
	}
}

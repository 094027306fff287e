package host_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// TestPinnedConnectorRefusesAPlantedRecord: the admin pins obv's module;
// someone who can write the compilation cache folder plants a modified
// module beside the load record and edits the record to name it (and the
// manifest it answers). The host refuses to start, naming the pin and the
// connector, instead of running the planted module under the pinned
// digest. An honest record loads (the start before the planting).
func TestPinnedConnectorRefusesAPlantedRecord(t *testing.T) {
	if proofRace() {
		t.Skip("compiles obv into a cache of its own, 40-50 s under the detector; the pin check is a start-time digest, raced nowhere")
	}
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	mod, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(mod)
	pin := hex.EncodeToString(s[:])
	dir := t.TempDir() // its own compilation cache: the records below are this test's
	cfgPath := writeConfig(t, "[runtime]\ncompilation_cache_dir = '"+dir+"'\n[cache]\nenabled = false\n[connectors.obv]\nmodule = '"+wasm+"'\nsha256 = '"+pin+"'\n")
	start := func() (*host.Host, error) {
		cfg, err := host.LoadConfig(cfgPath, []string{})
		if err != nil {
			t.Fatal(err)
		}
		return host.New(context.Background(), &host.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	}
	for range 2 { // a full load, then one from the honest record
		h, err := start()
		if err != nil {
			t.Fatal(err)
		}
		if err := h.Ready(context.Background()); err != nil {
			t.Fatal(err)
		}
		h.Close(context.Background())
	}
	recs, _ := filepath.Glob(filepath.Join(dir, "besluitbron-wasmrt", "*.json"))
	if len(recs) != 1 {
		t.Fatalf("records %v, want one", recs)
	}
	// The planted module: obv with its name changed in its data; the
	// record names it as obv's rewrite and carries the manifest it answers.
	from, to := []byte("OpenBesluitvorming"), []byte("PlantedBesluitvorm")
	planted := bytes.ReplaceAll(mod, from, to)
	ps := sha256.Sum256(planted)
	psum := hex.EncodeToString(ps[:])
	os.WriteFile(filepath.Join(dir, "besluitbron-wasmrt", psum+".wasm"), planted, 0o644)
	b, _ := os.ReadFile(recs[0])
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	r["instrumented"], r["wasm_sha256"] = true, psum
	m, _ := json.Marshal(r["manifest"])
	r["manifest"] = json.RawMessage(bytes.ReplaceAll(m, from, to))
	b, _ = json.Marshal(r)
	os.WriteFile(recs[0], b, 0o644)

	h, err := start()
	if err == nil {
		defer h.Close(context.Background())
		rerr := h.Ready(context.Background())
		t.Fatalf("the host started with a planted record (background load: %v): want a refusal naming the pin", rerr)
	}
	for _, want := range []string{"connectors.obv.sha256", pin, `connector "obv"`, psum, recs[0]} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal lacks %q:\n%v", want, err)
		}
	}
}

// TestPinnedConnectorRefusesATamperedManifest: only the manifest in obv's
// load record is edited (its title), the code the record names is the
// module's own. A pinned connector is checked against its module before
// it is served, so the host refuses to start, naming the pin; the edited
// title is never listed. The check removed the record, so the next start
// loads in full and serves the module's own manifest.
func TestPinnedConnectorRefusesATamperedManifest(t *testing.T) {
	if proofRace() {
		t.Skip("compiles obv into a cache of its own, 40-50 s under the detector; the pin check is a start-time digest, raced nowhere")
	}
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	mod, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(mod)
	pin := hex.EncodeToString(s[:])
	dir := t.TempDir()
	cfgPath := writeConfig(t, "[runtime]\ncompilation_cache_dir = '"+dir+"'\n[cache]\nenabled = false\n[connectors.obv]\nmodule = '"+wasm+"'\nsha256 = '"+pin+"'\n")
	start := func() (*host.Host, error) {
		cfg, err := host.LoadConfig(cfgPath, []string{})
		if err != nil {
			t.Fatal(err)
		}
		return host.New(context.Background(), &host.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	}
	h, err := start() // a full load writes the record
	if err != nil {
		t.Fatal(err)
	}
	h.Close(context.Background())
	recs, _ := filepath.Glob(filepath.Join(dir, "besluitbron-wasmrt", "*.json"))
	if len(recs) != 1 {
		t.Fatalf("records %v, want one", recs)
	}
	b, _ := os.ReadFile(recs[0])
	from, to := []byte("OpenBesluitvorming"), []byte("TamperedBesluitvrm")
	if !bytes.Contains(b, from) {
		t.Fatalf("the record carries no %q to tamper with", from)
	}
	os.WriteFile(recs[0], bytes.ReplaceAll(b, from, to), 0o644)

	h, err = start()
	if err == nil {
		defer h.Close(context.Background())
		t.Fatal("the host started with a tampered manifest in a pinned connector's record: want a refusal naming the pin")
	}
	for _, want := range []string{"connectors.obv.sha256", pin, "manifest"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal lacks %q:\n%v", want, err)
		}
	}
	h, err = start()
	if err != nil {
		t.Fatalf("the start after the refusal: %v", err)
	}
	defer h.Close(context.Background())
	if title := host.ManifestTitle(h, "obv"); strings.Contains(title, string(to)) || title == "" {
		t.Errorf("obv's title after the refusal is %q, want the module's own", title)
	}
}

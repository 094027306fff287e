package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func TestZipIsReproducibleAndKeepsModes(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "bin", "plugins"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "bin", "besluitbron.exe"), []byte("MZ"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "bin", "plugins", "tk.wasm"), []byte("\x00asm"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "plugins.toml"), []byte("[server]\n"), 0o644))
	t.Setenv("SOURCE_DATE_EPOCH", "1764936000")
	a, b := filepath.Join(t.TempDir(), "a.zip"), filepath.Join(t.TempDir(), "b.zip")
	for _, out := range []string{a, b} {
		var stderr bytes.Buffer
		if code := run([]string{"zip", "-o", out, "-C", dir, "-prefix", "besluitbron-0.1.0-windows-amd64/"}, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
	ab, _ := os.ReadFile(a)
	bb, _ := os.ReadFile(b)
	if !bytes.Equal(ab, bb) {
		t.Error("two zips of the same files differ")
	}
	zr, err := zip.NewReader(bytes.NewReader(ab), int64(len(ab)))
	must(err)
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Modified.Unix() != 1764936000 {
			t.Errorf("%s: time %v", f.Name, f.Modified)
		}
	}
	want := "besluitbron-0.1.0-windows-amd64/bin/besluitbron.exe besluitbron-0.1.0-windows-amd64/bin/plugins/tk.wasm besluitbron-0.1.0-windows-amd64/plugins.toml"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("entries %s, want %s", got, want)
	}
	if m := zr.File[0].Mode().Perm(); m != 0o755 {
		t.Errorf("the binary's mode %v, want 0755", m)
	}
	rc, _ := zr.File[1].Open()
	body, _ := io.ReadAll(rc)
	if string(body) != "\x00asm" {
		t.Errorf("tk.wasm = %q", body)
	}
}

// TestServerJSONStamp: the release's server.json (version, image tag, the
// bundle with its sha256) still passes the registry's schema.
func TestServerJSONStamp(t *testing.T) {
	bundle := filepath.Join(t.TempDir(), "besluitbron-0.2.0.mcpb")
	if err := os.WriteFile(bundle, []byte("bundle"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "server.json")
	url := "https://github.com/besluitbron/besluitbron/releases/download/v0.2.0/besluitbron-0.2.0.mcpb"
	var stderr bytes.Buffer
	// Stamped twice: a second stamp replaces the bundle's entry.
	for _, in := range []string{"../../server.json", out} {
		if code := run([]string{"server-json", "-in", in, "-out", out, "-version", "0.2.0", "-mcpb", bundle, "-mcpb-url", url}, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
	}
	raw, _ := os.ReadFile(out)
	var s struct {
		Version  string
		Packages []struct {
			RegistryType, Identifier, Version, FileSha256 string
		}
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if s.Version != "0.2.0" || len(s.Packages) != 2 {
		t.Fatalf("version %q, %d packages:\n%s", s.Version, len(s.Packages), raw)
	}
	if p := s.Packages[0]; p.RegistryType != "oci" || p.Identifier != "ghcr.io/besluitbron/besluitbron:0.2.0" {
		t.Errorf("oci package %+v", p)
	}
	if p := s.Packages[1]; p.RegistryType != "mcpb" || p.Identifier != url || p.Version != "0.2.0" {
		t.Errorf("mcpb package %+v", p)
	}
	if sum, _ := fileSHA256(bundle); s.Packages[1].FileSha256 != sum {
		t.Errorf("fileSha256 %s, want %s", s.Packages[1].FileSha256, sum)
	}
	validate(t, "../../packaging/schemas/server.schema.json", raw)
}

func TestManifestStamp(t *testing.T) {
	out := filepath.Join(t.TempDir(), "manifest.json")
	var stderr bytes.Buffer
	if code := run([]string{"manifest", "-in", "../../packaging/mcpb/manifest.json", "-out", out, "-version", "0.2.0-1-g0123456789ab"}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	raw, _ := os.ReadFile(out)
	if !strings.Contains(string(raw), `"version": "0.2.0-1-g0123456789ab"`) || !strings.Contains(string(raw), "${__dirname}/plugins.toml") {
		t.Errorf("stamped manifest:\n%s", raw)
	}
	validate(t, "../../packaging/schemas/mcpb-manifest-v0.3.schema.json", raw)
}

func validate(t *testing.T, schemaFile string, doc []byte) {
	t.Helper()
	raw, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(v); err != nil {
		t.Errorf("%s: %v", schemaFile, err)
	}
}

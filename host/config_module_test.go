package host_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host"
)

// startErr loads the config file at p and starts a host from it, returning
// the first error.
func startErr(t *testing.T, p string) error {
	t.Helper()
	cfg, err := host.LoadConfig(p, []string{})
	if err != nil {
		return err
	}
	h, err := host.New(context.Background(), &host.Options{Config: cfg})
	if err == nil {
		h.Close(context.Background())
	}
	return err
}

func mkfile(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A missing module's error names the path as configured and as resolved
// against the config file's folder, and gives the remedy that would make
// that very file: make only where a repository would build it there.
// Catches the former "(run `make build` first?)" for a config outside the
// repository, where make build produces nothing at that path.
func TestMissingModuleSaysWhereAndWhatToDo(t *testing.T) {
	// A config in a folder of its own: make would not help.
	dir := t.TempDir()
	cfg := filepath.Join(dir, "plugins.toml")
	if err := os.WriteFile(cfg, []byte("[runtime]\ncompilation_cache_dir=''\n[connectors.obv]\nmodule = \"bin/plugins/obv.wasm\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := startErr(t, cfg)
	want := `connectors.obv.module: no file at ` + filepath.Join(dir, "bin/plugins/obv.wasm") + ` ("bin/plugins/obv.wasm" resolved against the config file's folder ` + dir + `): check the path (relative paths resolve against the config file's folder, not the working directory)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("outside a repository:\n got %v\nwant %s", err, want)
	}
	if err != nil && strings.Contains(err.Error(), "make") {
		t.Errorf("suggests make where it would not build the file: %v", err)
	}

	// The same file name exists relative to the working directory: say so.
	wd := t.TempDir()
	t.Chdir(wd)
	mkfile(t, filepath.Join(wd, "bin/plugins/obv.wasm"))
	err = startErr(t, cfg)
	want = "a file " + filepath.Join(wd, "bin/plugins/obv.wasm") + " exists relative to the working directory, but relative paths resolve against the config file's folder: write module = \"" + filepath.Join(wd, "bin/plugins/obv.wasm") + "\""
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("file beside the working directory:\n got %v\nwant %s", err, want)
	}

	// A repository (Makefile, plugins/obv/cmd) whose bin/plugins lacks the
	// module: make builds exactly that file, in that folder.
	repo := t.TempDir()
	mkfile(t, filepath.Join(repo, "Makefile"))
	mkfile(t, filepath.Join(repo, "plugins/obv/cmd/main.go"))
	rcfg := filepath.Join(repo, "plugins.toml")
	if err := os.WriteFile(rcfg, []byte("[runtime]\ncompilation_cache_dir=''\n[connectors.obv]\nmodule = \"bin/plugins/obv.wasm\"\n[connectors.tk]\nmodule = \"bin/plugins/obv\"\nruntime = \"process\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = startErr(t, rcfg)
	for _, want := range []string{
		"connectors.obv.module: no file at " + filepath.Join(repo, "bin/plugins/obv.wasm") + ` ("bin/plugins/obv.wasm" resolved against the config file's folder ` + repo + "): build it with `make -C " + repo + " bin/plugins/obv.wasm` (or `make build` there for every connector)",
		"connectors.tk.module: no file at " + filepath.Join(repo, "bin/plugins/obv") + ` ("bin/plugins/obv" resolved against the config file's folder ` + repo + "): build it with `make -C " + repo + " bin/plugins/obv` (or `make native` there for every connector)",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("in a repository:\n got %v\nwant %s", err, want)
		}
	}
	// Run from the repository itself, the command needs no -C.
	t.Chdir(repo)
	if err := startErr(t, rcfg); err == nil || !strings.Contains(err.Error(), "build it with `make bin/plugins/obv.wasm` (or `make build` for every connector)") {
		t.Errorf("from the repository: %v", err)
	}
}

// A config that serves no connector stops host.New (serve, stdio and
// check-config all go through it) instead of starting with 0 tools.
func TestNoConnectorsRefused(t *testing.T) {
	for body, want := range map[string]string{
		"[runtime]\ncompilation_cache_dir=''\n":                                              "no connectors",
		"[runtime]\ncompilation_cache_dir=''\n[connectors.obv]\nmodule='x'\nenabled=false\n": "every connector is disabled",
	} {
		if err := startErr(t, writeConfig(t, body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}

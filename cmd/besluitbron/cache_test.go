package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCacheCommandErrors(t *testing.T) {
	cfg := writeConfig(t, "[cache]\ndir = 'c'\n[connectors.obv]\nmodule = 'obv.wasm'\n[connectors.tk]\nmodule = 'tk.wasm'\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"cache"}, 2, "usage: besluitbron cache"},
		{[]string{"cache", "purge"}, 2, `unknown command "purge"`},
		{[]string{"cache", "clear", "--config", cfg}, 2, "exactly one connector"},
		{[]string{"cache", "clear", "obv", "tk", "--config", cfg}, 2, "exactly one connector (got 2)"},
		{[]string{"cache", "stats", "obv", "--config", cfg}, 2, `unexpected argument "obv"`},
		{[]string{"cache", "stats", "--colour"}, 2, "colour"},
		{[]string{"cache", "clear", "nope", "--config", cfg}, 1, `no connector "nope" in the config (configured: obv, tk)`},
		{[]string{"cache", "stats", "--config", "/nonexistent.toml"}, 1, "nonexistent.toml"},
	} {
		code, _, errs := runCmd(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: %d %q, want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	if code, out, _ := runCmd("cache", "help"); code != 0 || !strings.Contains(out, "clear <connector>") {
		t.Errorf("help: %d %q", code, out)
	}
}

// With nothing saved, stats says so per platform; clear leaves a request
// for a server and touches only its own platform's folder.
func TestCacheStatsAndClearOnEmptyFolders(t *testing.T) {
	cfg := writeConfig(t, "[cache]\ndir = 'c'\n[connectors.obv]\nmodule = 'obv.wasm'\n[connectors.tk]\nmodule = 'tk.wasm'\n")
	code, out, errs := runCmd("cache", "stats", "--config", cfg)
	if code != 0 || !strings.Contains(out, "obv: nothing saved") || !strings.Contains(out, "tk: nothing saved") {
		t.Errorf("stats: %d %q %q", code, out, errs)
	}
	code, out, errs = runCmd("cache", "clear", "obv", "--config", cfg)
	if code != 0 || !strings.Contains(out, "held nothing saved") {
		t.Errorf("clear: %d %q %q", code, out, errs)
	}
	dir := filepath.Join(filepath.Dir(cfg), "c")
	if _, err := os.Stat(filepath.Join(dir, "obv", "clear-requested")); err != nil {
		t.Errorf("no clear request for obv: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tk")); err == nil {
		t.Error("clear of obv touched tk's folder")
	}
	code, out, _ = runCmd("cache", "stats", "--config", cfg, "--json")
	var reports []struct {
		Connector    string `json:"connector"`
		ClearPending bool   `json:"clear_pending"`
	}
	if err := json.Unmarshal([]byte(out), &reports); code != 0 || err != nil || len(reports) != 2 || !reports[0].ClearPending || reports[1].ClearPending {
		t.Errorf("stats --json: %d %v %s", code, err, out)
	}
}

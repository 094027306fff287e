package main

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

var (
	keyLine  = regexp.MustCompile(`(?m)^  ([A-Za-z0-9_-]{43})$`)
	tomlPart = regexp.MustCompile(`(?m)^\[clients\.alice\]\nkey_sha256 = "([0-9a-f]{64})"\n`)
	envPart  = regexp.MustCompile(`(?m)^  BESLUITBRON_CLIENTS__ALICE__KEY_SHA256=([0-9a-f]{64})$`)
)

// TestNewKey: new-key prints a key and the plugins.toml lines holding its
// sha256, which load with server.auth = "keys" as the client of that key
// (and the environment line says the same); two runs give two keys; a bad
// name or a missing one is refused with exit 2 and says why.
func TestNewKey(t *testing.T) {
	code, out, errs := runCmd("new-key", "alice")
	if code != 0 || errs != "" {
		t.Fatalf("new-key alice: %d %q", code, errs)
	}
	k, toml, env := keyLine.FindStringSubmatch(out), tomlPart.FindStringSubmatch(out), envPart.FindStringSubmatch(out)
	if k == nil || toml == nil || env == nil {
		t.Fatalf("output lacks the key, the lines or the variable:\n%s", out)
	}
	sum := sha256.Sum256([]byte(k[1]))
	if toml[1] != hex.EncodeToString(sum[:]) || env[1] != toml[1] {
		t.Errorf("key_sha256 %s and %s, want sha256(key) %x", toml[1], env[1], sum)
	}
	cfg, err := host.LoadConfig(writeConfig(t, "[server]\nauth = \"keys\"\n"+toml[0]), []string{})
	if err != nil {
		t.Fatalf("the printed lines do not load: %v", err)
	}
	if cfg.Clients["alice"].KeySHA256 != toml[1] {
		t.Errorf("loaded %+v", cfg.Clients)
	}
	_, out2, _ := runCmd("new-key", "alice")
	if k2 := keyLine.FindStringSubmatch(out2); k2 == nil || k2[1] == k[1] {
		t.Errorf("two runs printed the same key %q", k[1])
	}
	for _, args := range [][]string{{"new-key"}, {"new-key", "Alice Smith"}, {"new-key", "a", "b"}} {
		code, out, errs := runCmd(args...)
		if code != 2 || out != "" || !(strings.Contains(errs, "client name") || strings.Contains(errs, "want one client name")) {
			t.Errorf("%q: %d %q %q", args, code, out, errs)
		}
	}
}

// check-config says which server.auth is on and whom it admits.
func TestCheckConfigSaysAuth(t *testing.T) {
	obv := wasmbuild.Path(t, "./plugins/obv/cmd")
	cfg := writeConfig(t, "[runtime]\ncompilation_cache_dir='"+compileDir(t)+"'\n[server]\naddr='127.0.0.1:0'\nauth='keys'\n[clients.alice]\nkey_sha256='"+strings.Repeat("ab", 32)+"'\n[clients.bob]\nkey_sha256='"+strings.Repeat("cd", 32)+"'\n[connectors.obv]\nmodule='"+obv+"'\n")
	code, out, errs := runCmd("check-config", "--config", cfg)
	if code != 0 || !strings.Contains(out, "auth: keys, 2 named clients (alice, bob)") {
		t.Errorf("check-config: %d\n%s\n%s", code, out, errs)
	}
}

// check-config says where traces go when tracing is on, and says nothing
// of tracing when it is off.
func TestCheckConfigSaysTracing(t *testing.T) {
	obv := wasmbuild.Path(t, "./plugins/obv/cmd")
	base := "[runtime]\ncompilation_cache_dir='" + compileDir(t) + "'\n[server]\naddr='127.0.0.1:0'\n[connectors.obv]\nmodule='" + obv + "'\n"
	code, out, errs := runCmd("check-config", "--config", writeConfig(t, base+"[tracing]\nendpoint='http://127.0.0.1:4318'\nsample_ratio=0.25\n"))
	if code != 0 || !strings.Contains(out, "tracing: every tool call's trace to http://127.0.0.1:4318") || !strings.Contains(out, "0.25 of the calls") {
		t.Errorf("check-config with tracing: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = runCmd("check-config", "--config", writeConfig(t, base))
	if code != 0 || strings.Contains(out, "tracing:") {
		t.Errorf("check-config without tracing: %d\n%s\n%s", code, out, errs)
	}
}

package main

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// TestEnvironmentVariantWarned: an admin who sets a variable as the
// product's older documentation spells it (.NET's BesluitBron__…) sees a
// warning naming it, and the spelling that is read, when the server
// starts (here check-config, which starts it as serve does).
func TestEnvironmentVariantWarned(t *testing.T) {
	t.Setenv("BesluitBron__McpRateLimit__SessionRps", "80")
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	cfg := writeConfig(t, "[runtime]\ncompilation_cache_dir='"+compileDir(t)+"'\n[connectors.obv]\nmodule='"+wasm+"'\n")
	code, out, errs := runCmd("check-config", "--config", cfg)
	if code != 0 {
		t.Fatalf("check-config: %d %q %q", code, out, errs)
	}
	for _, want := range []string{"BesluitBron__McpRateLimit__SessionRps is not read", "BESLUITBRON_MCP_RATE_LIMIT__SESSION_RPS"} {
		if !strings.Contains(errs, want) {
			t.Errorf("the start's log lacks %q:\n%s", want, errs)
		}
	}
}

package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// TestLimitCannotBeSwitchedOff: units = 0 under connectors.<id>.limits.<service>
// (from the file or the environment), and a limits table with neither
// units nor per, are refused naming the key and saying how to change a
// limit; they used to remove the platform's limit without a word. per
// alone keeps the declared units.
func TestLimitCannotBeSwitchedOff(t *testing.T) {
	mod := "[connectors.obv]\nmodule = 'x.wasm'\n"
	for _, c := range []struct {
		name, body string
		env        []string
		key        string
	}{
		{"units = 0 with per", mod + "[connectors.obv.limits.api]\nunits = 0\nper = '60s'\n", nil, "connectors.obv.limits.api.units"},
		{"units = 0 alone", mod + "[connectors.obv.limits.api]\nunits = 0\n", nil, "connectors.obv.limits.api.units"},
		{"units = 0.0", mod + "[connectors.obv.limits.api]\nunits = 0.0\nper = '1s'\n", nil, "connectors.obv.limits.api.units"},
		{"an empty table", mod + "[connectors.obv.limits.api]\n", nil, "connectors.obv.limits.api"},
		{"from the environment", mod, []string{"BESLUITBRON_CONNECTORS__OBV__LIMITS__API__UNITS=0", "BESLUITBRON_CONNECTORS__OBV__LIMITS__API__PER=60s"}, "connectors.obv.limits.api.units"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := config.Load(write(t, c.body), c.env)
			if err == nil {
				t.Fatal("accepted: the platform's limit would be switched off")
			}
			for _, want := range []string{c.key, "cannot be switched off", "units = 60", "remove the table"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q:\n%v", want, err)
				}
			}
		})
	}
	cfg, err := config.Load(write(t, mod+"[connectors.obv.limits.api]\nper = '90s'\n"), []string{})
	if err != nil {
		t.Fatal(err)
	}
	units, per := cfg.Connectors["obv"].Limit(connector.Service{Name: "api", Units: 60, Per: connector.Duration(time.Minute)})
	if units != 60 || per != 90*time.Second {
		t.Errorf("per alone: %v per %v, want the declared 60 per 1m30s", units, per)
	}
}

// TestEnvironmentVariantsAreWarned: a variable spelled as .NET spells the
// configuration (BesluitBron__McpRateLimit__SessionRps, which the product's
// older documentation uses) or in any other case than BESLUITBRON_ is not
// read; Load warns about each by name, with the spelling it reads, instead
// of ignoring it without a word.
func TestEnvironmentVariantsAreWarned(t *testing.T) {
	cfg, err := config.Load("", []string{
		"BesluitBron__McpRateLimit__SessionRps=80",
		"besluitbron_server__addr=127.0.0.1:9",
		"BESLUITBRON_SERVER__MAX_BODY_KB=512",
		"BESLUITBRONX=1",
		"HOME=/root",
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.MaxBodyKB != 512 {
		t.Errorf("max_body_kb %d: the right spelling is read", cfg.Server.MaxBodyKB)
	}
	got := strings.Join(cfg.Warnings, "\n")
	for _, want := range []string{
		"BesluitBron__McpRateLimit__SessionRps", "BESLUITBRON_MCP_RATE_LIMIT__SESSION_RPS",
		"besluitbron_server__addr", "BESLUITBRON_SERVER__ADDR",
		"BESLUITBRONX",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
	if len(cfg.Warnings) != 3 || strings.Contains(got, "MAX_BODY_KB") || strings.Contains(got, "HOME") {
		t.Errorf("warnings %q: want one for each of the three variants", cfg.Warnings)
	}
	if cfg.Server.Addr != "127.0.0.1:8080" || cfg.MCPRateLimit.SessionRPS == 80 {
		t.Errorf("a variant was read: addr %s, session_rps %v", cfg.Server.Addr, cfg.MCPRateLimit.SessionRPS)
	}
}

package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plugins.toml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const good = `
[server]
addr = "127.0.0.1:9090"

[connectors.obv]
module = "bin/plugins/obv.wasm"
base_url = "http://127.0.0.1:9999"
private_networks = ["127.0.0.1"]

[connectors.obv.limits.api]
units = 30
`

func TestLoadFileDefaultsAndEnv(t *testing.T) {
	p := write(t, good)
	cfg, err := config.Load(p, []string{
		"BESLUITBRON_CONNECTORS__OBV__LIMITS__API__PER=6s",
		"BESLUITBRON_SERVER__ADDR=0.0.0.0:8081",
		"BESLUITBRON_SERVER__TRUSTED_PROXIES=10.0.0.0/8, 192.168.1.1",
		"OTHER_VAR=ignored",
		// make soak and make test set these; they are not configuration
		// and must not make every config load fail as unknown keys.
		"BESLUITBRON_SOAK=10m",
		"BESLUITBRON_REQUIRE_BROWSER=1",
	})
	if err != nil {
		t.Fatal(err)
	}
	obv := cfg.Connectors["obv"]
	if cfg.Server.Addr != "0.0.0.0:8081" || !obv.Enabled || obv.PoolSize != 8 || obv.CallTimeout != 90*time.Second {
		t.Errorf("cfg = %+v, obv = %+v", cfg.Server, obv)
	}
	if len(cfg.Server.TrustedProxies) != 2 {
		t.Errorf("trusted_proxies = %v", cfg.Server.TrustedProxies)
	}
	units, per := obv.Limit(connector.Service{Name: "api", Units: 60, Per: connector.Duration(time.Minute)})
	if units != 30 || per != 6*time.Second {
		t.Errorf("limit = %v per %v, want 30 per 6s (file units, env per)", units, per)
	}
	if got := cfg.Path(obv.Module); got != filepath.Join(filepath.Dir(p), "bin/plugins/obv.wasm") {
		t.Errorf("module path %q should resolve against the file's directory", got)
	}
}

func TestErrorsNameTheKey(t *testing.T) {
	cases := []struct{ name, file, env, want string }{
		{"unknown top-level key", "colour = 1", "", "colour"},
		{"unknown connector key", "[connectors.obv]\nmodule='x'\npool_sise = 3", "", "connectors.obv"},
		{"bad duration", "[connectors.obv]\nmodule='x'\ncall_timeout = 'soon'", "", "call_timeout"},
		{"bad number", "[server]\nmax_body_kb = 'lots'", "", "max_body_kb"},
		{"bad cidr", "[server]\ntrusted_proxies = ['not-a-net']", "", "server.trusted_proxies[0]"},
		{"bad level", "[log]\nlevel = 'loud'", "", "log.level"},
		{"bad id", "[connectors.OBV]\nmodule='x'", "", "connectors.OBV"},
		{"missing module", "[connectors.obv]\nbase_url='https://x'", "", "connectors.obv.module"},
		{"small cache", "[connectors.obv]\nmodule='x'\ncache_mb=1", "", "connectors.obv.cache_mb"},
		{"max below pool", "[connectors.obv]\nmodule='x'\npool_size=8\nmax_instances=4", "", "connectors.obv.max_instances 4: at least pool_size (8)"},
		{"bad env value", "", "BESLUITBRON_MCP_RATE_LIMIT__SESSION_RPS=fast", "session_rps"},
		{"unknown env key", "", "BESLUITBRON_SERVER__PORT=1", "server"},
		{"syntax", "[server\naddr=", "", "plugins.toml"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var env []string
			if c.env != "" {
				env = []string{c.env}
			} else {
				env = []string{}
			}
			_, err := config.Load(write(t, c.file), env)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error naming %q", err, c.want)
			}
		})
	}
}

func TestCheckAgainstManifest(t *testing.T) {
	cfg, err := config.Load(write(t, "[connectors.obv]\nmodule='x'\n[connectors.obv.limits.search]\nunits=1\nper='1s'\n[connectors.obv.ttl]\nforever='1h'"), []string{})
	if err != nil {
		t.Fatal(err)
	}
	m := connector.Manifest{Services: []connector.Service{{Name: "api"}}, CacheClasses: []connector.CacheClass{{Name: "search"}}}
	err = cfg.Connectors["obv"].Check("obv", m)
	if err == nil || !strings.Contains(err.Error(), "connectors.obv.limits.search") || !strings.Contains(err.Error(), "connectors.obv.ttl.forever") {
		t.Fatalf("got %v", err)
	}
}

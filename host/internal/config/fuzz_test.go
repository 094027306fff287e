package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/config"
)

// FuzzLoad feeds arbitrary config files to Load: none may panic, a refusal
// says what is wrong, and a config Load accepts keeps the invariants the
// host relies on without checking again.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"plugins.toml", "demo.toml", "conformance.toml"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "..", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(good))
	f.Add([]byte("[connectors.x]\nmodule = \"x.wasm\"\ntool_prefix = \"\"\nresource_base = \"test://\"\n[connectors.x.limits.api]\nunits = 5\nper = \"1s\"\n[connectors.x.ttl]\nsearch = \"1m\"\n"))
	f.Add([]byte("[server]\naddr = \"\"\ntrusted_proxies = [\"10.0.0.0/8\", \"x\"]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "f.toml")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(p, []string{})
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("empty error")
			}
			return
		}
		if cfg.Server.Addr == "" || cfg.Server.ShutdownTimeout <= 0 || cfg.Server.MaxBodyKB <= 0 {
			t.Fatalf("accepted server %+v", cfg.Server)
		}
		for id, c := range cfg.Connectors {
			if c.PoolSize < 1 || c.MemoryLimitMB < 1 || c.MaxResponseMB < 1 || c.CacheMB < 32 || c.CallTimeout <= 0 || c.RequestTimeout <= 0 {
				t.Fatalf("accepted connectors.%s %+v", id, c)
			}
			if c.Enabled && c.Module == "" {
				t.Fatalf("accepted connectors.%s without a module", id)
			}
			if c.Runtime != "wasm" && c.Runtime != "process" {
				t.Fatalf("accepted connectors.%s.runtime %q", id, c.Runtime)
			}
			for s, l := range c.Limits {
				if l.Units < 0 || (l.Units > 0 && l.Per <= 0) {
					t.Fatalf("accepted connectors.%s.limits.%s %+v", id, s, l)
				}
			}
		}
	})
}

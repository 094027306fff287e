package config_test

import (
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/config"
)

// A TOML syntax error names the file, line and column and shows the line
// with a caret under the column. Catches the parser's bare "expected
// character =" with no position, which left an admin searching the file.
func TestSyntaxErrorNamesFileLineColumn(t *testing.T) {
	p := write(t, "[server]\nshutdown_timeout = \"5s\"\naddr \"127.0.0.1:8080\"\n")
	_, err := config.Load(p, []string{})
	if err == nil {
		t.Fatal("a syntax error was accepted")
	}
	for _, want := range []string{p + ":3:6: TOML syntax error: expected character =", "  3 | addr \"127.0.0.1:8080\"\n    |      ^"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error\n%v\nlacks %q", err, want)
		}
	}
}

// A value of the wrong kind stops Load with its dotted key, the form the key
// wants and the value given. Catches mapstructure's weak typing, which
// turned `addr = 8080` into "8080" (found only when serve listened) and a
// bare `per = 60` into 60 nanoseconds without a word.
func TestWrongKindNamesKeyAndForm(t *testing.T) {
	const mod = "[connectors.obv]\nmodule = \"obv.wasm\"\n"
	for _, c := range []struct {
		file string
		env  []string
		want string
	}{
		{"[server]\naddr = 8080\n" + mod, nil, `server.addr: want "host:port" in quotes, such as "127.0.0.1:8080"`},
		{"[server]\naddr = 8080\n" + mod, nil, "got the number 8080"},
		{"[server]\naddr = \"8080\"\n" + mod, nil, `server.addr "8080" is a port without a host: want "host:port", such as "127.0.0.1:8080"`},
		{"[server]\naddr = \"127.0.0.1:99999\"\n" + mod, nil, `the port "99999" is not a number from 0 to 65535`},
		{"[server]\nshutdown_timeout = 10\n" + mod, nil, `server.shutdown_timeout: want a duration in quotes, such as "10s" or "1m30s", got the number 10`},
		{mod + "[connectors.obv.limits.api]\nunits = 5\nper = 60\n", nil, `connectors.obv.limits.api.per: want a duration in quotes, such as "60s", got the number 60`},
		{mod + "[connectors.obv.limits.api]\nunits = 5\nper = \"banana\"\n", nil, `connectors.obv.limits.api.per: want a duration in quotes, such as "60s", got "banana"`},
		{mod + "enabled = 1\n", nil, "connectors.obv.enabled: want true or false, got the number 1"},
		{mod + "pool_size = 8.5\n", nil, "connectors.obv.pool_size: want a whole number, got 8.5"},
		{mod + "module_x = 1\n[server]\ntrusted_proxies = \"10.0.0.0/8\"\n", nil, `server.trusted_proxies: want a list of CIDRs in brackets, such as ["10.0.0.0/8"], got the text "10.0.0.0/8"`},
		{"server = 5\n" + mod, []string{"BESLUITBRON_SERVER__MAX_BODY_KB=64"}, "server: want a table"},
		{mod, []string{"BESLUITBRON_SERVER__MAX_BODY_KB=lots"}, `server.max_body_kb: want a whole number, got "lots" (from the environment variable BESLUITBRON_SERVER__MAX_BODY_KB)`},
		{mod, []string{"BESLUITBRON_CONNECTORS__OBV__ENABLED=maybe"}, `connectors.obv.enabled: want true or false, got "maybe" (from the environment variable BESLUITBRON_CONNECTORS__OBV__ENABLED)`},
	} {
		env := c.env
		if env == nil {
			env = []string{}
		}
		_, err := config.Load(write(t, c.file), env)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %v:\n got %v\nwant %q", c.file, c.env, err, c.want)
		}
	}
	// Text from the environment is read as the number, duration or truth
	// value the key wants: that is how every environment value arrives.
	cfg, err := config.Load(write(t, mod), []string{"BESLUITBRON_SERVER__MAX_BODY_KB=64", "BESLUITBRON_SERVER__SHUTDOWN_TIMEOUT=3s", "BESLUITBRON_CONNECTORS__OBV__ENABLED=false"})
	if err != nil || cfg.Server.MaxBodyKB != 64 || cfg.Server.ShutdownTimeout.String() != "3s" || cfg.Connectors["obv"].Enabled {
		t.Errorf("environment text: %v %+v", err, cfg)
	}
}

// Every unknown key is reported at once, each with the closest known key.
// Catches `[connector.obv]` (a missing s) read as nothing, and a message
// that names the key without saying what was meant.
func TestUnknownKeysNameTheClosest(t *testing.T) {
	_, err := config.Load(write(t, "[connector.obv]\nmodule = \"obv.wasm\"\n[connectors.tk]\nmodul = \"tk.wasm\"\n[sever]\naddr = \":1\"\n"),
		[]string{"BESLUITBRON_SERVER__ADR=:2"})
	if err == nil {
		t.Fatal("unknown keys accepted")
	}
	for _, want := range []string{
		"connector: unknown key (did you mean connectors?)",
		"connectors.tk.modul: unknown key (did you mean connectors.tk.module?)",
		"sever: unknown key (did you mean server?)",
		"server.adr: unknown key (did you mean server.addr?) (from the environment variable BESLUITBRON_SERVER__ADR)",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error\n%v\nlacks %q", err, want)
		}
	}
	// One underscore where the path needs two: the variable meant.
	_, err = config.Load(write(t, "[connectors.obv]\nmodule = \"x\"\n"), []string{"BESLUITBRON_SERVER_ADDR=:1"})
	if err == nil || !strings.Contains(err.Error(), "server_addr: unknown key (did you mean BESLUITBRON_SERVER__ADDR? path segments are joined by __) (from the environment variable BESLUITBRON_SERVER_ADDR)") {
		t.Errorf("single underscore: %v", err)
	}
	// Nothing near: the keys that exist there are listed instead.
	_, err = config.Load(write(t, "[log]\nverbosity = 3\n"), []string{})
	if err == nil || !strings.Contains(err.Error(), "log.verbosity: unknown key; known keys under [log]: format, level") {
		t.Errorf("no near key: %v", err)
	}
}

// A config that would serve no connector is refused, saying which case it
// is. Catches a server that started silently with 0 tools.
func TestCheckServable(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"[server]\naddr = \":1\"\n", "config: no connectors: add a [connectors.<id>] table"},
		{"[connectors.obv]\nmodule = \"x\"\nenabled = false\n[connectors.tk]\nmodule = \"y\"\nenabled = false\n", "every connector is disabled (enabled = false under [connectors.obv], [connectors.tk])"},
	} {
		cfg, err := config.Load(write(t, c.file), []string{})
		if err != nil {
			t.Fatal(err)
		}
		if err := cfg.CheckServable(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.file, err, c.want)
		}
	}
	cfg, err := config.Load(write(t, "[connectors.obv]\nmodule = \"x\"\n[connectors.tk]\nmodule = \"y\"\nenabled = false\n"), []string{})
	if err != nil || cfg.CheckServable() != nil || strings.Join(cfg.EnabledIDs(), ",") != "obv" {
		t.Errorf("one enabled: %v %v", err, cfg.EnabledIDs())
	}
}

// server.tools and connectors.<id>.expose: defaults serve everything,
// patterns match as documented, from the file or the environment, and a
// malformed pattern stops the start naming it.
func TestExposeSettings(t *testing.T) {
	cfg, err := config.Load(write(t, "[connectors.obv]\nmodule = \"x\"\n[connectors.tk]\nmodule = \"y\"\nexpose = false\n"), []string{})
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Connectors["obv"].Expose || cfg.Connectors["tk"].Expose {
		t.Errorf("expose: obv %v (want the default true), tk %v", cfg.Connectors["obv"].Expose, cfg.Connectors["tk"].Expose)
	}
	if !cfg.Server.ToolExposed("anything") {
		t.Error("an empty server.tools must serve every tool")
	}
	cfg, err = config.Load(write(t, "[server]\ntools = [\"obv_*\", \"besluitbron_search\"]\n[connectors.obv]\nmodule = \"x\"\n"), []string{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"obv_search": true, "obv_get_document": true, "besluitbron_search": true, "besluitbron_status": false, "tk_search": false, "xobv_search": false} {
		if got := cfg.Server.ToolExposed(name); got != want {
			t.Errorf("ToolExposed(%q) = %v, want %v", name, got, want)
		}
	}
	cfg, err = config.Load(write(t, "[connectors.obv]\nmodule = \"x\"\n"), []string{"BESLUITBRON_SERVER__TOOLS=tk_?earch, obv_*", "BESLUITBRON_CONNECTORS__OBV__EXPOSE=false"})
	if err != nil || len(cfg.Server.Tools) != 2 || !cfg.Server.ToolExposed("tk_search") || cfg.Connectors["obv"].Expose {
		t.Errorf("from the environment: %v %+v", err, cfg)
	}
	for _, bad := range []string{`"["`, `""`, `"obv_[a-"`} {
		_, err := config.Load(write(t, "[server]\ntools = ["+bad+"]\n"), []string{})
		if err == nil || !strings.Contains(err.Error(), "server.tools[0]") {
			t.Errorf("pattern %s: %v", bad, err)
		}
	}
}

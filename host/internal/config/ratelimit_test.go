package config_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/besluitbron/besluitbron/host/internal/config"
)

func TestRateLimitAndOriginKeys(t *testing.T) {
	cfg, err := config.Load(write(t, "[mcp_rate_limit]\nsession_rps = 40\nip_burst = 90\nconnector_rps = 300\n"), []string{
		"BESLUITBRON_MCP_RATE_LIMIT__SESSION_BURST=200",
		"BESLUITBRON_MCP_RATE_LIMIT__CONNECTOR_BURST=700",
		"BESLUITBRON_MCP_RATE_LIMIT__ENABLED=false",
		"BESLUITBRON_SERVER__ALLOWED_ORIGINS=https://chat.example.org, http://localhost:6274",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := config.RateLimit{Enabled: false, ProcessRPS: 500, ProcessBurst: 1000, ConnectorRPS: 300, ConnectorBurst: 700,
		SessionRPS: 40, SessionBurst: 200, IPRPS: 10, IPBurst: 90}
	if diff := cmp.Diff(want, cfg.MCPRateLimit, cmpopts.IgnoreUnexported(config.RateLimit{})); diff != "" {
		t.Errorf("mcp_rate_limit (-want +got):\n%s", diff)
	}
	if d := cfg.MCPRateLimit.Deprecation(); d != "" {
		t.Errorf("deprecation %q without deprecated keys", d)
	}
	if diff := cmp.Diff([]string{"https://chat.example.org", "http://localhost:6274"}, cfg.Server.AllowedOrigins); diff != "" {
		t.Error(diff)
	}
	if cfg.Server.Addr != "127.0.0.1:8080" {
		t.Errorf("default bind %q, want loopback", cfg.Server.Addr)
	}
}

// The connector limit defaults to the old address limit's 200 per second,
// burst 400.
func TestConnectorLimitDefaults(t *testing.T) {
	cfg, err := config.Load("", []string{})
	if err != nil {
		t.Fatal(err)
	}
	if r := cfg.MCPRateLimit; r.ConnectorRPS != 200 || r.ConnectorBurst != 400 || r.AddressRPS != 0 || r.AddressBurst != 0 || r.Deprecation() != "" {
		t.Errorf("defaults %+v", r)
	}
}

// address_rps and address_burst, the keys from when each address had a
// bucket, still load: each stands in for its connector_* twin when that is
// unset, loses to it when set, and either way the start logs one
// deprecation line naming both.
func TestAddressKeysDeprecated(t *testing.T) {
	cases := []struct {
		name, file string
		env        []string
		rps        float64
		burst      int
		want       []string // in the deprecation line
	}{
		{"old keys alone", "[mcp_rate_limit]\naddress_rps = 50\naddress_burst = 70\n", nil, 50, 70,
			[]string{"mcp_rate_limit.address_rps is deprecated: use connector_rps (read as connector_rps for now)", "mcp_rate_limit.address_burst is deprecated: use connector_burst (read as connector_burst for now)", "per connector"}},
		{"from the environment", "", []string{"BESLUITBRON_MCP_RATE_LIMIT__ADDRESS_BURST=90"}, 200, 90,
			[]string{"address_burst is deprecated"}},
		{"new keys win", "[mcp_rate_limit]\naddress_rps = 50\naddress_burst = 70\nconnector_rps = 5\nconnector_burst = 7\n", nil, 5, 7,
			[]string{"(connector_rps is set and wins; address_rps is ignored)", "(connector_burst is set and wins; address_burst is ignored)"}},
		{"one of each", "[mcp_rate_limit]\naddress_rps = 50\nconnector_burst = 7\n", nil, 50, 7,
			[]string{"address_rps is deprecated"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := append([]string{}, c.env...)
			cfg, err := config.Load(write(t, c.file), env)
			if err != nil {
				t.Fatal(err)
			}
			r := cfg.MCPRateLimit
			if r.ConnectorRPS != c.rps || r.ConnectorBurst != c.burst {
				t.Errorf("connector limit %v/%d, want %v/%d", r.ConnectorRPS, r.ConnectorBurst, c.rps, c.burst)
			}
			d := r.Deprecation()
			if strings.Contains(d, "\n") {
				t.Errorf("deprecation spans lines: %q", d)
			}
			for _, w := range c.want {
				if !strings.Contains(d, w) {
					t.Errorf("deprecation %q lacks %q", d, w)
				}
			}
		})
	}
}

func TestRateLimitErrorsNameTheKey(t *testing.T) {
	cases := []struct{ file, want string }{
		{"[mcp_rate_limit]\nip_rps = 0", "mcp_rate_limit.ip_rps: must be a positive number"},
		{"[mcp_rate_limit]\nprocess_rps = nan", "mcp_rate_limit.process_rps: must be a positive number"},
		{"[mcp_rate_limit]\nconnector_rps = inf", "mcp_rate_limit.connector_rps: must be a positive number"},
		{"[mcp_rate_limit]\nconnector_burst = 0", "mcp_rate_limit.connector_burst: must be at least 1"},
		{"[mcp_rate_limit]\naddress_rps = inf", "mcp_rate_limit.address_rps: must be a positive number"},
		{"[mcp_rate_limit]\naddress_burst = 0\nconnector_burst = 3", "mcp_rate_limit.address_burst: must be at least 1"},
		{"[mcp_rate_limit]\nconnector_rps = -1\naddress_rps = 5", "mcp_rate_limit.connector_rps: must be a positive number"},
		{"[mcp_rate_limit]\nsession_burst = 0", "mcp_rate_limit.session_burst: must be at least 1"},
		{"[mcp_rate_limit]\nsesion_rps = 3", "sesion_rps"},
		{"[mcp_rate_limit]\nconector_rps = 3", "conector_rps"},
		{"[server]\nallowed_origins = ['https://ok.example', 'chat.example.org']", `server.allowed_origins[1] "chat.example.org": want an origin scheme://host[:port]`},
		{"[server]\nallowed_origins = ['https://x.example/path']", "server.allowed_origins[0]"},
	}
	for _, c := range cases {
		_, err := config.Load(write(t, c.file), []string{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error containing %q", c.file, err, c.want)
		}
	}
}

package config_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/host/internal/config"
)

func TestRateLimitAndOriginKeys(t *testing.T) {
	cfg, err := config.Load(write(t, "[mcp_rate_limit]\nsession_rps = 40\nip_burst = 90\n"), []string{
		"BESLUITBRON_MCP_RATE_LIMIT__SESSION_BURST=200",
		"BESLUITBRON_MCP_RATE_LIMIT__ENABLED=false",
		"BESLUITBRON_SERVER__ALLOWED_ORIGINS=https://chat.example.org, http://localhost:6274",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := config.RateLimit{Enabled: false, ProcessRPS: 500, ProcessBurst: 1000, AddressRPS: 200, AddressBurst: 400,
		SessionRPS: 40, SessionBurst: 200, IPRPS: 10, IPBurst: 90}
	if diff := cmp.Diff(want, cfg.MCPRateLimit); diff != "" {
		t.Errorf("mcp_rate_limit (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"https://chat.example.org", "http://localhost:6274"}, cfg.Server.AllowedOrigins); diff != "" {
		t.Error(diff)
	}
	if cfg.Server.Addr != "127.0.0.1:8080" {
		t.Errorf("default bind %q, want loopback", cfg.Server.Addr)
	}
}

func TestRateLimitErrorsNameTheKey(t *testing.T) {
	cases := []struct{ file, want string }{
		{"[mcp_rate_limit]\nip_rps = 0", "mcp_rate_limit.ip_rps: must be a positive number"},
		{"[mcp_rate_limit]\nprocess_rps = nan", "mcp_rate_limit.process_rps: must be a positive number"},
		{"[mcp_rate_limit]\naddress_rps = inf", "mcp_rate_limit.address_rps: must be a positive number"},
		{"[mcp_rate_limit]\nsession_burst = 0", "mcp_rate_limit.session_burst: must be at least 1"},
		{"[mcp_rate_limit]\nsesion_rps = 3", "sesion_rps"},
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

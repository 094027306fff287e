package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/config"
)

const aliceHash = "2bd806c97f0e00af1a1fc3328fa763a9269723c8db8fac4f93af71db186d6e90"

// The defaults: no auth, no clients; a file's and the environment's
// clients are read (the environment's names lowercased), and
// server.auth from either.
func TestAuthKeysLoad(t *testing.T) {
	cfg, err := config.Load("", []string{})
	if err != nil {
		t.Fatal(err)
	}
	if m := cfg.Server.AuthMode(); m != config.AuthNone || len(cfg.Clients) != 0 || cfg.Server.OAuth.Leeway != 30*time.Second {
		t.Errorf("defaults: auth %q, clients %v, leeway %v", m, cfg.Clients, cfg.Server.OAuth.Leeway)
	}
	cfg, err = config.Load(write(t, "[server]\nauth = \"keys\"\n[clients.alice]\nkey_sha256 = \""+aliceHash+"\"\n"),
		[]string{"BESLUITBRON_CLIENTS__NEWSROOM_2__KEY_SHA256=" + strings.ToUpper(strings.Repeat("ab", 32))})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Server.AuthMode() != config.AuthKeys || cfg.Clients["alice"].KeySHA256 != aliceHash || cfg.Clients["newsroom_2"].KeySHA256 != strings.Repeat("AB", 32) {
		t.Errorf("loaded: auth %q clients %+v", cfg.Server.Auth, cfg.Clients)
	}
	if got := cfg.ClientNames(); strings.Join(got, ",") != "alice,newsroom_2" {
		t.Errorf("ClientNames = %v", got)
	}
	cfg, err = config.Load("", []string{"BESLUITBRON_SERVER__AUTH=oauth", "BESLUITBRON_SERVER__OAUTH__ISSUER=https://login.example",
		"BESLUITBRON_SERVER__OAUTH__AUDIENCE=https://bb.example/mcp/unified/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.Server.OAuth; cfg.Server.AuthMode() != config.AuthOAuth || o.Issuer != "https://login.example" || o.Audience != "https://bb.example/mcp/unified/v1" {
		t.Errorf("oauth from the environment: %+v", cfg.Server)
	}
}

// Every mistake is refused at load with the key that holds it.
func TestAuthConfigErrors(t *testing.T) {
	for _, c := range []struct {
		name, file string
		env        []string
		want       []string
	}{
		{"unknown mode", "[server]\nauth = \"password\"\n", nil, []string{`server.auth "password": want "none", "keys" or "oauth"`}},
		{"keys without clients", "[server]\nauth = \"keys\"\n", nil, []string{`server.auth = "keys": no [clients.<name>] configured`}},
		{"short hash", "[clients.alice]\nkey_sha256 = \"abcd\"\n", nil, []string{"clients.alice.key_sha256: 4 hexadecimal digits: want 64"}},
		{"not hex", "[clients.alice]\nkey_sha256 = \"" + strings.Repeat("zz", 32) + "\"\n", nil, []string{"clients.alice.key_sha256: not hexadecimal"}},
		{"missing hash", "[clients.alice]\n", nil, []string{"clients.alice.key_sha256: missing"}},
		{"bad name", "[clients.\"Alice Smith\"]\nkey_sha256 = \"" + aliceHash + "\"\n", nil, []string{"clients.Alice Smith: a client's name must be"}},
		{"same key twice", "[clients.alice]\nkey_sha256 = \"" + aliceHash + "\"\n[clients.bob]\nkey_sha256 = \"" + strings.ToUpper(aliceHash) + "\"\n", nil, []string{"clients.bob.key_sha256: the same key as clients.alice"}},
		{"unknown client key", "[clients.alice]\nkey = \"secret\"\n", nil, []string{"clients.alice.key: unknown key"}},
		{"bad env hash", "", []string{"BESLUITBRON_CLIENTS__ALICE__KEY_SHA256=nothex"}, []string{"clients.alice.key_sha256: not hexadecimal"}},
		{"oauth without issuer", "[server]\nauth = \"oauth\"\n[server.oauth]\naudience = \"https://bb.example\"\n", nil, []string{"server.oauth.issuer: missing"}},
		{"oauth without audience", "[server]\nauth = \"oauth\"\n[server.oauth]\nissuer = \"https://login.example\"\n", nil, []string{"server.oauth.audience: missing"}},
		{"oauth over http", "[server]\nauth = \"oauth\"\n[server.oauth]\nissuer = \"http://login.example\"\naudience = \"x\"\n", nil, []string{`server.oauth.issuer "http://login.example": http is allowed only for a loopback host`}},
		{"bad jwks url", "[server.oauth]\njwks_url = \"ftp://keys.example/jwks\"\n", nil, []string{`server.oauth.jwks_url "ftp://keys.example/jwks": scheme "ftp": want https`}},
		{"public url with path", "[server.oauth]\npublic_url = \"https://bb.example/mcp\"\n", nil, []string{"server.oauth.public_url"}},
		{"leeway", "[server.oauth]\nleeway = \"1h\"\n", nil, []string{"server.oauth.leeway 1h0m0s: want between 0s and 10m"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := ""
			if c.file != "" {
				path = write(t, c.file)
			}
			env := c.env
			if env == nil {
				env = []string{}
			}
			_, err := config.Load(path, env)
			if err == nil {
				t.Fatalf("loaded; want an error naming %q", c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
		})
	}
	// A loopback issuer over http is allowed (a local or test issuer).
	if _, err := config.Load(write(t, "[server]\nauth = \"oauth\"\n[server.oauth]\nissuer = \"http://127.0.0.1:9000\"\naudience = \"x\"\n"), []string{}); err != nil {
		t.Errorf("a loopback issuer: %v", err)
	}
}

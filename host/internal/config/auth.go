package config

import (
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"
)

// clientName is what a [clients.<name>] may be called: it is a log field
// and a metrics label, and the environment spells it in capitals
// (BESLUITBRON_CLIENTS__<NAME>__KEY_SHA256), which Load lowercases.
var clientName = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// CheckClientName reports whether name may name a [clients.<name>].
func CheckClientName(name string) error {
	if !clientName.MatchString(name) {
		return fmt.Errorf("client name %q: use 1 to 32 lower-case letters, digits, dashes or underscores, starting with a letter", name)
	}
	return nil
}

// ClientNames lists the configured [clients.<name>], sorted.
func (c *Config) ClientNames() []string {
	names := make([]string, 0, len(c.Clients))
	for n := range c.Clients {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// AuthMode is server.auth in lower case ("none" when unset).
func (s Server) AuthMode() string {
	if m := strings.ToLower(strings.TrimSpace(s.Auth)); m != "" {
		return m
	}
	return AuthNone
}

// validateAuth checks server.auth, [server.oauth] and [clients.<name>].
func (c *Config) validateAuth() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, name := range c.ClientNames() {
		pfx := "clients." + name
		if !clientName.MatchString(name) {
			bad("%s: a client's name must be 1 to 32 lower-case letters, digits, dashes or underscores, starting with a letter", pfx)
		}
		h := c.Clients[name].KeySHA256
		switch b, err := hex.DecodeString(h); {
		case h == "":
			bad("%s.key_sha256: missing: want the sha256 of the client's API key, 64 hexadecimal digits (besluitbron new-key %s prints a key and this line)", pfx, name)
		case err != nil:
			bad("%s.key_sha256: not hexadecimal (%v): want 64 hexadecimal digits, the sha256 of the key, never the key itself", pfx, err)
		case len(b) != 32:
			bad("%s.key_sha256: %d hexadecimal digits: want 64 (a sha256), never the key itself", pfx, len(h))
		}
	}
	seen := map[string]string{}
	for _, name := range c.ClientNames() {
		h := strings.ToLower(c.Clients[name].KeySHA256)
		if other, dup := seen[h]; dup && h != "" {
			bad("clients.%s.key_sha256: the same key as clients.%s: give each client a key of its own", name, other)
		}
		seen[h] = name
	}
	o := c.Server.OAuth
	switch mode := c.Server.AuthMode(); mode {
	case AuthNone:
	case AuthKeys:
		if len(c.Clients) == 0 {
			bad("server.auth = \"keys\": no [clients.<name>] configured, so every client would be refused; add one (besluitbron new-key <name> prints a key and its lines) or set server.auth = \"none\"")
		}
	case AuthOAuth:
		if o.Issuer == "" {
			bad("server.oauth.issuer: missing: server.auth = \"oauth\" needs the authorization server's issuer URL")
		} else if err := checkOAuthURL(o.Issuer); err != nil {
			bad("server.oauth.issuer %q: %v", o.Issuer, err)
		}
		if o.Audience == "" {
			bad("server.oauth.audience: missing: server.auth = \"oauth\" needs the aud its tokens must carry (this server's resource identifier, such as \"https://besluitbron.example/mcp/unified/v1\")")
		}
	default:
		bad("server.auth %q: want \"none\", \"keys\" or \"oauth\"", c.Server.Auth)
	}
	if o.JWKSURL != "" {
		if err := checkOAuthURL(o.JWKSURL); err != nil {
			bad("server.oauth.jwks_url %q: %v", o.JWKSURL, err)
		}
	}
	if o.PublicURL != "" {
		if u, err := url.Parse(o.PublicURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			bad("server.oauth.public_url %q: want the server's scheme and host only, such as \"https://besluitbron.example\"", o.PublicURL)
		}
	}
	if o.Leeway < 0 || o.Leeway > 10*time.Minute {
		bad("server.oauth.leeway %v: want between 0s and 10m", o.Leeway)
	}
	return errs
}

// checkOAuthURL accepts an https URL, or http to a loopback host (a test
// issuer or one on the same machine): keys fetched in the clear from
// elsewhere could be replaced on the way.
func checkOAuthURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("not a URL: %v", err)
	}
	if u.Host == "" {
		return fmt.Errorf("want an absolute URL, such as \"https://login.example\"")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		h := u.Hostname()
		if h == "localhost" {
			return nil
		}
		if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("http is allowed only for a loopback host: use https")
	}
	return fmt.Errorf("scheme %q: want https", u.Scheme)
}

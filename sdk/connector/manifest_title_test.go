package connector

import (
	"strings"
	"testing"
)

// The Dutch page shows TitleNL where a connector gives one, and the one
// title otherwise; an oversized title_nl is refused by name.
func TestTitleIn(t *testing.T) {
	m := Manifest{Title: "Example (statistics)", TitleNL: "Voorbeeld (statistieken)"}
	if got := m.TitleIn("nl"); got != "Voorbeeld (statistieken)" {
		t.Errorf("nl: %q", got)
	}
	if got := m.TitleIn("en"); got != "Example (statistics)" {
		t.Errorf("en: %q", got)
	}
	m.TitleNL = ""
	if got := m.TitleIn("nl"); got != "Example (statistics)" {
		t.Errorf("nl without title_nl: %q", got)
	}
	m.TitleNL = strings.Repeat("x", 201)
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "title_nl") {
		t.Errorf("oversized title_nl: %v", err)
	}
}

// TestAllowedHostForms: allowed_hosts takes a host, host:port or an
// origin, and refuses paths, user info, bad ports and other schemes; a
// service's host must be one of them by name.
func TestAllowedHostForms(t *testing.T) {
	for entry, want := range map[string]string{
		"example.org": "example.org", "Example.org:8443": "example.org", "https://example.org": "example.org",
		"http://example.org:8080/": "example.org", "127.0.0.1:9000": "127.0.0.1",
	} {
		if got, ok := AllowedHostName(entry); !ok || got != want {
			t.Errorf("%q: %q %v, want %q", entry, got, ok, want)
		}
	}
	for _, entry := range []string{"", "example.org/api", "user@example.org", "ftp://example.org", "example.org:0", "example.org:99999", "example.org:08", ":443", "https://", "a b"} {
		if got, ok := AllowedHostName(entry); ok {
			t.Errorf("%q accepted as %q", entry, got)
		}
	}
	m := Manifest{ID: "demo", Version: "1", Title: "Demo", AllowedHosts: []string{"api.example.org:8443"},
		Services: []Service{{Name: "api", Host: "api.example.org"}},
		Tools:    []Tool{{Name: "t", InputSchema: []byte(`{"type":"object"}`), CostNote: "free"}}}
	if err := m.Validate(); err != nil && strings.Contains(err.Error(), "allowed_hosts") {
		t.Errorf("host:port refused: %v", err)
	}
	if err := m.Validate(); err != nil && strings.Contains(err.Error(), "services[0].host") {
		t.Errorf("a service on a host:port entry's host refused: %v", err)
	}
	m.AllowedHosts = []string{"api.example.org/v1"}
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "allowed_hosts[0]") {
		t.Errorf("a path accepted: %v", err)
	}
}

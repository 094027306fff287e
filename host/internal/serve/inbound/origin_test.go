package inbound

import (
	"net/http"
	"testing"
)

func TestNewOriginsNamesTheBadEntry(t *testing.T) {
	if _, err := NewOrigins([]string{"https://ok.example", "nope"}); err == nil || err.Error() != `[1] "nope": want an origin scheme://host[:port] such as https://chat.example.org, or "*"` {
		t.Errorf("NewOrigins: %v", err)
	}
}

func TestOriginsAllowed(t *testing.T) {
	list, err := NewOrigins([]string{"https://chat.example.org", "http://localhost:6274"})
	if err != nil {
		t.Fatal(err)
	}
	any, _ := NewOrigins([]string{"*"})
	cases := []struct {
		name    string
		origins *Origins
		origin  string
		host    string
		want    bool
	}{
		{"no Origin", nil, "", "besluitbron.example", true},
		{"foreign, empty list", nil, "https://evil.example", "127.0.0.1:8080", false},
		{"listed", list, "https://chat.example.org", "besluitbron.example", true},
		{"listed, other spelling", list, "HTTPS://CHAT.example.org:443", "besluitbron.example", true},
		{"listed scheme matters", list, "http://chat.example.org", "besluitbron.example", false},
		{"listed port matters", list, "http://localhost:6275", "127.0.0.1:8080", false},
		{"null", list, "null", "127.0.0.1:8080", false},
		{"wildcard", any, "https://anything.example", "x", true},
		{"own page on localhost", nil, "http://localhost:8080", "localhost:8080", true},
		{"own page on 127.0.0.1", nil, "http://127.0.0.1:8080", "127.0.0.1:8080", true},
		{"own page on [::1], default port", nil, "http://[::1]", "[::1]", true},
		{"other local port", nil, "http://localhost:3000", "localhost:8080", false},
		{"rebinding: same origin on a public name", nil, "http://evil.example:8080", "evil.example:8080", false},
		{"https default port", nil, "https://localhost", "localhost:443", true},
	}
	for _, c := range cases {
		r := &http.Request{Host: c.host, Header: http.Header{}}
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if got := c.origins.Allowed(r); got != c.want {
			t.Errorf("%s: Allowed = %v, want %v", c.name, got, c.want)
		}
	}
}

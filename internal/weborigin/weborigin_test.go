package weborigin

import "testing"

func TestParse(t *testing.T) {
	good := map[string]string{
		"*":                          "*",
		"https://chat.example.org":   "https://chat.example.org",
		"HTTPS://Chat.Example.ORG/":  "https://chat.example.org",
		"https://chat.example:443":   "https://chat.example",
		"http://localhost:6274":      "http://localhost:6274",
		"http://[::1]:80":            "http://[::1]",
		"http://[::1]:8080":          "http://[::1]:8080",
		"chrome-extension://abcdefg": "chrome-extension://abcdefg",
	}
	for in, want := range good {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "null", "chat.example.org", "https://chat.example.org/path", "https://u@chat.example", "https://x?y", "*.example.org", "https://"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

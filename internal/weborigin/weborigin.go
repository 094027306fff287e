package weborigin

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Parse checks one allow-list entry and returns it in the form
// compared against: lower-case scheme and host, default port dropped
// ("HTTPS://Chat.Example:443" → "https://chat.example"). "*" stays "*".
func Parse(s string) (string, error) {
	if s == "*" {
		return s, nil
	}
	n, ok := Normal(s)
	if !ok {
		return "", fmt.Errorf("%q: want an origin scheme://host[:port] such as https://chat.example.org, or \"*\"", s)
	}
	return n, nil
}

// Normal normalises an Origin header value; ok is false for
// anything that is not scheme://host[:port] ("null" included).
func Normal(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host, true
}

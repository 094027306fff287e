package inbound

import (
	"net/http"
	"net/netip"
	"testing"
)

func TestClientIP(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8:ffff::/48")}
	cases := []struct {
		name    string
		remote  string
		trusted []netip.Prefix
		header  map[string][]string
		want    string
	}{
		{"peer", "192.0.2.7:4000", proxies, nil, "192.0.2.7"},
		{"forged XFF from an untrusted peer", "192.0.2.7:4000", proxies,
			map[string][]string{"X-Forwarded-For": {"198.51.100.1"}}, "192.0.2.7"},
		{"forged Forwarded from an untrusted peer", "192.0.2.7:4000", proxies,
			map[string][]string{"Forwarded": {"for=198.51.100.1"}}, "192.0.2.7"},
		{"no trusted proxies at all", "10.1.1.1:4000", nil,
			map[string][]string{"X-Forwarded-For": {"198.51.100.1"}}, "10.1.1.1"},
		{"trusted proxy", "10.1.1.1:4000", proxies,
			map[string][]string{"X-Forwarded-For": {"198.51.100.1"}}, "198.51.100.1"},
		{"client-supplied prefix ignored", "10.1.1.1:4000", proxies,
			map[string][]string{"X-Forwarded-For": {"6.6.6.6, 198.51.100.1"}}, "198.51.100.1"},
		{"chain of trusted proxies", "10.1.1.1:4000", proxies,
			map[string][]string{"X-Forwarded-For": {"198.51.100.1, 10.2.2.2", "10.3.3.3"}}, "198.51.100.1"},
		{"all hops trusted: the leftmost", "10.1.1.1:4000", proxies,
			map[string][]string{"X-Forwarded-For": {"10.9.9.9, 10.2.2.2"}}, "10.9.9.9"},
		{"garbage hop stops at the proxy that passed it", "10.1.1.1:4000", proxies,
			map[string][]string{"X-Forwarded-For": {"198.51.100.1, nonsense"}}, "10.1.1.1"},
		{"hop with port", "10.1.1.1:4000", proxies,
			map[string][]string{"X-Forwarded-For": {"198.51.100.1:5555"}}, "198.51.100.1"},
		{"empty header", "10.1.1.1:4000", proxies,
			map[string][]string{"X-Forwarded-For": {""}}, "10.1.1.1"},
		{"Forwarded", "10.1.1.1:4000", proxies,
			map[string][]string{"Forwarded": {`for=198.51.100.1;proto=https, For="[2001:db8::7]:4711";by=10.1.1.1`}}, "2001:db8::7"},
		{"Forwarded obfuscated", "10.1.1.1:4000", proxies,
			map[string][]string{"Forwarded": {`for=_hidden`}}, "10.1.1.1"},
		{"XFF wins over Forwarded", "10.1.1.1:4000", proxies,
			map[string][]string{"X-Forwarded-For": {"198.51.100.1"}, "Forwarded": {"for=198.51.100.2"}}, "198.51.100.1"},
		{"IPv6 proxy", "[2001:db8:ffff:1::1]:443", proxies,
			map[string][]string{"X-Forwarded-For": {"2001:db8:1::5"}}, "2001:db8:1::5"},
		{"mapped peer", "[::ffff:192.0.2.9]:80", proxies, nil, "192.0.2.9"},
		{"zone dropped", "[fe80::1%eth0]:80", proxies, nil, "fe80::1"},
	}
	for _, c := range cases {
		r := &http.Request{RemoteAddr: c.remote, Header: http.Header(c.header)}
		if got := ClientIP(r, c.trusted); got.String() != c.want {
			t.Errorf("%s: %v, want %s", c.name, got, c.want)
		}
	}
	if got := ClientIP(&http.Request{RemoteAddr: "@"}, proxies); got.IsValid() {
		t.Errorf("unix socket peer: %v, want the zero Addr", got)
	}
}

func TestParseHopDoesNotAllocateOnPeer(t *testing.T) {
	r := &http.Request{RemoteAddr: "192.0.2.7:4000", Header: http.Header{}}
	if n := testing.AllocsPerRun(100, func() { ClientIP(r, nil) }); n != 0 {
		t.Errorf("%v allocations per ClientIP", n)
	}
}

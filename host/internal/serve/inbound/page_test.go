package inbound

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

func pageLimits(t *testing.T, process, ip Limit) *Limits {
	t.Helper()
	l, err := New(&Options{Process: process, Connector: Limit{RPS: 100, Burst: 100}, Session: Limit{RPS: 100, Burst: 100}, IP: ip, Connectors: []string{"obv"}})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestPageAtChargesEachCall: a page that starts 7 calls takes 7 tokens of
// the client address's bucket, so a burst of 14 admits two such pages and
// refuses the third for the 7 s its tokens take to come back. Catches a
// page charged one token whatever it starts (the amplification of issue
// 20: one request, seven platform calls).
func TestPageAtChargesEachCall(t *testing.T) {
	l := pageLimits(t, Limit{RPS: 1000, Burst: 1000}, Limit{RPS: 1, Burst: 14})
	now := time.Unix(1000, 0)
	ip := netip.MustParseAddr("192.0.2.1")
	for i := range 2 {
		if d := l.PageAt(now, ip, 7); !d.OK {
			t.Fatalf("search %d refused: %+v", i+1, d)
		}
	}
	d := l.PageAt(now, ip, 7)
	if d.OK || d.Layer != IP || d.RetryAfter != 7*time.Second || d.RetryAfterSeconds() != 7 {
		t.Fatalf("third search: %+v, want refused by the ip layer for 7 s", d)
	}
	// Another address has its own bucket.
	if d := l.PageAt(now, netip.MustParseAddr("192.0.2.2"), 7); !d.OK {
		t.Fatalf("another address refused: %+v", d)
	}
	// 7 s later one search fits again, not two.
	later := now.Add(7 * time.Second)
	if d := l.PageAt(later, ip, 7); !d.OK {
		t.Fatalf("after the wait: %+v", d)
	}
	if d := l.PageAt(later, ip, 1); d.OK {
		t.Fatal("a page admitted from an empty bucket")
	}
}

// TestPageAtChargesTheProcess: a page's calls count against the process
// bucket too, so many addresses together cannot exceed it. Catches pages
// charged per address only.
func TestPageAtChargesTheProcess(t *testing.T) {
	l := pageLimits(t, Limit{RPS: 1, Burst: 10}, Limit{RPS: 100, Burst: 100})
	now := time.Unix(1000, 0)
	if d := l.PageAt(now, netip.MustParseAddr("192.0.2.1"), 7); !d.OK {
		t.Fatalf("first: %+v", d)
	}
	d := l.PageAt(now, netip.MustParseAddr("192.0.2.2"), 7)
	if d.OK || d.Layer != Process || d.RetryAfter != 4*time.Second {
		t.Fatalf("second address: %+v, want refused by the process layer for 4 s", d)
	}
	if s := l.Stats(); s.Refused[Process] != 1 {
		t.Fatalf("refusals %v, want one of the process layer counted", s.Refused)
	}
}

// TestPageAtSharesTheMCPBuckets: pages and MCP requests without a session
// from one address draw on one bucket (the limiter the MCP addresses use),
// so an address cannot get twice its limit by using both. Catches the
// pages counted in buckets of their own.
func TestPageAtSharesTheMCPBuckets(t *testing.T) {
	l := pageLimits(t, Limit{RPS: 1000, Burst: 1000}, Limit{RPS: 1, Burst: 7})
	now := time.Unix(1000, 0)
	ip := netip.MustParseAddr("2001:db8::1")
	if d := l.PageAt(now, ip, 7); !d.OK {
		t.Fatalf("page: %+v", d)
	}
	if d := l.AllowAt(now, Request{Address: "/mcp/unified/v1", IP: ip}); d.OK || d.Layer != IP {
		t.Fatalf("initialize after the page emptied the bucket: %+v, want refused by the ip layer", d)
	}
	// The same /64 is the same bucket, for pages too.
	if d := l.PageAt(now, netip.MustParseAddr("2001:db8::2"), 1); d.OK {
		t.Fatal("another address of the same /64 got a bucket of its own")
	}
}

// TestPageAtOversizedAndEmpty: a page starting more calls than the bucket
// holds is charged the whole bucket (admitted on a full one, never refused
// for ever), and a page starting none still costs one token. Catches a
// search over more platforms than ip_burst refused for good, and free
// pages (the status page fetched in a loop).
func TestPageAtOversizedAndEmpty(t *testing.T) {
	l := pageLimits(t, Limit{RPS: 1000, Burst: 1000}, Limit{RPS: 1, Burst: 5})
	now := time.Unix(1000, 0)
	ip := netip.MustParseAddr("192.0.2.9")
	if d := l.PageAt(now, ip, 7); !d.OK {
		t.Fatalf("7 calls on a full bucket of 5: %+v", d)
	}
	d := l.PageAt(now, ip, 7)
	if d.OK || d.Never || d.RetryAfter != 5*time.Second {
		t.Fatalf("again at once: %+v, want a wait of 5 s (a full bucket), not never", d)
	}
	now = now.Add(5 * time.Second)
	for i := range 5 {
		if d := l.PageAt(now, ip, 0); !d.OK {
			t.Fatalf("page %d without calls: %+v", i+1, d)
		}
	}
	if d := l.PageAt(now, ip, 0); d.OK {
		t.Fatal("a sixth page without calls was free")
	}
}

// pageRequest is a request for / that arrived on local with Host host
// from peer.
func pageRequest(local, host, peer string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Host = host
	r.RemoteAddr = peer
	if local != "" {
		ap := netip.MustParseAddrPort(local)
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.TCPAddrFromAddrPort(ap)))
	}
	return r
}

// TestPageHostAllowed: on a loopback address only a loopback Host passes,
// unless a trusted proxy passes the name on or an allowed origin names it;
// on other addresses every Host passes, as on the MCP addresses. Catches
// the pages answering a DNS-rebinding page (Host: evil.example on
// 127.0.0.1), and a proxy on the same machine locked out.
func TestPageHostAllowed(t *testing.T) {
	origins, err := NewOrigins([]string{"https://besluitbron.example.nl", "http://intra.example:8080", "*"})
	if err != nil {
		t.Fatal(err)
	}
	trusted := []netip.Prefix{netip.MustParsePrefix("127.0.0.2/32")}
	for _, c := range []struct {
		local, host, peer string
		want              bool
	}{
		{"127.0.0.1:8080", "127.0.0.1:8080", "127.0.0.1:5000", true},
		{"127.0.0.1:8080", "localhost:8080", "127.0.0.1:5000", true},
		{"127.0.0.1:8080", "LOCALHOST", "127.0.0.1:5000", true},
		{"[::1]:8080", "[::1]:8080", "[::1]:5000", true},
		{"127.0.0.1:8080", "evil.example:8080", "127.0.0.1:5000", false},
		{"127.0.0.1:8080", "evil.example", "127.0.0.1:5000", false},
		{"127.0.0.1:8080", "", "127.0.0.1:5000", false},
		{"[::1]:8080", "evil.example", "[::1]:5000", false},
		// A trusted proxy on the same machine passes the public name on.
		{"127.0.0.1:8080", "evil.example", "127.0.0.2:5000", true},
		// The names of allowed origins ("*" names none).
		{"127.0.0.1:8080", "besluitbron.example.nl", "127.0.0.1:5000", true},
		{"127.0.0.1:8080", "intra.example:8080", "127.0.0.1:5000", true},
		{"127.0.0.1:8080", "intra.example:9090", "127.0.0.1:5000", false},
		// Not on loopback: the server is reachable under its address.
		{"192.0.2.10:8080", "evil.example", "198.51.100.1:5000", true},
		// Not from an http.Server: no local address to judge by.
		{"", "evil.example", "127.0.0.1:5000", true},
	} {
		if got := PageHostAllowed(pageRequest(c.local, c.host, c.peer), origins, trusted); got != c.want {
			t.Errorf("local %s, Host %q, peer %s: %v, want %v", c.local, c.host, c.peer, got, c.want)
		}
	}
	if PageHostAllowed(pageRequest("127.0.0.1:8080", "evil.example", "127.0.0.1:1"), nil, nil) {
		t.Error("no allow list: a foreign Host passed")
	}
}

// TestPageOriginAllowed: no Origin, a listed one and the request's own
// Host pass; another site's does not. Catches a foreign page allowed to
// run searches through its visitors' browsers, and the server's own page
// behind a proxy (Origin https://name, Host name) refused.
func TestPageOriginAllowed(t *testing.T) {
	origins, err := NewOrigins([]string{"https://chat.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		host, origin string
		want         bool
	}{
		{"besluitbron.example.nl", "", true},
		{"besluitbron.example.nl", "https://chat.example.org", true},
		{"besluitbron.example.nl", "https://besluitbron.example.nl", true},
		{"besluitbron.example.nl", "http://besluitbron.example.nl", true},
		{"besluitbron.example.nl:8443", "https://besluitbron.example.nl:8443", true},
		{"127.0.0.1:8080", "http://127.0.0.1:8080", true},
		{"besluitbron.example.nl", "https://evil.example", false},
		{"besluitbron.example.nl", "https://besluitbron.example.nl:444", false},
		{"besluitbron.example.nl", "null", false},
		{"", "https://evil.example", false},
	} {
		r := pageRequest("", c.host, "192.0.2.1:5000")
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if got := PageOriginAllowed(r, origins); got != c.want {
			t.Errorf("Host %q, Origin %q: %v, want %v", c.host, c.origin, got, c.want)
		}
	}
}

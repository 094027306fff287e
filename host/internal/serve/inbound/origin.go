package inbound

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/besluitbron/besluitbron/internal/weborigin"
)

// Origins is the allow list for the Origin header of requests to the MCP
// addresses (the MCP specification asks streamable HTTP servers to
// validate it, against DNS rebinding and pages that call a local server).
//
// A request is admitted when it carries no Origin (clients that are not
// browsers send none), when its Origin is on the list (or the list holds
// "*"), or when its Origin is the server's own address reached as
// localhost: a page this server serves to the local user. Everything else
// is refused. A nil *Origins is the empty list. An Origins is immutable
// and safe for concurrent use.
type Origins struct {
	any bool
	set map[string]bool
}

// NewOrigins parses an allow list. Entries are scheme://host[:port]
// origins or "*"; the error names the first bad entry by index.
func NewOrigins(list []string) (*Origins, error) {
	o := &Origins{set: make(map[string]bool, len(list))}
	for i, s := range list {
		n, err := weborigin.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("[%d] %w", i, err)
		}
		if n == "*" {
			o.any = true
		}
		o.set[n] = true
	}
	return o, nil
}

// Allowed reports whether r's Origin may reach the MCP addresses.
func (o *Origins) Allowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	if o != nil && o.any {
		return true
	}
	n, ok := weborigin.Normal(origin)
	if !ok {
		return false
	}
	if o != nil && o.set[n] {
		return true
	}
	return sameLocalOrigin(n, r.Host)
}

// sameLocalOrigin reports whether origin names this server as reached at
// a loopback Host. A rebinding page cannot send a loopback Host (its Host
// is its own name), so this admits only pages of this very server.
func sameLocalOrigin(origin, reqHost string) bool {
	_, hostport, _ := strings.Cut(origin, "://")
	if !isLoopbackHost(reqHost) {
		return false
	}
	h, p, err := net.SplitHostPort(hostport)
	if err != nil {
		h, p = strings.Trim(hostport, "[]"), ""
	}
	rh, rp, err := net.SplitHostPort(strings.ToLower(reqHost))
	if err != nil {
		rh, rp = strings.Trim(strings.ToLower(reqHost), "[]"), ""
	}
	if p == "" {
		p = defaultPort(origin)
	}
	if rp == "" {
		rp = defaultPort(origin)
	}
	return h == rh && p == rp
}

func defaultPort(origin string) string {
	if strings.HasPrefix(origin, "https://") {
		return "443"
	}
	return "80"
}

func isLoopbackHost(host string) bool {
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.IsLoopback()
}

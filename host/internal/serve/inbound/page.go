package inbound

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/internal/weborigin"
)

// The pages for people (the search page, the document view, the
// Laadstatus) are served beside the MCP addresses. They pass the same
// rules where those apply: the Host rule against DNS rebinding, the Origin
// allow list, and the client limits of the one [Limits] the MCP addresses
// use. These are the page side of those rules; which page passes which is
// the page package's decision.

// PageAt decides a page request from client address ip that starts calls
// tool calls, at time now, and when every layer admits it takes its
// tokens: calls tokens from the process bucket and from the client
// address's bucket (a page has no MCP session), the buckets an MCP request
// without a session takes from. No connector bucket is charged.
//
// Every page request costs at least one token (calls < 1 counts as 1). A
// request costing more than a whole bucket holds (a search over more
// platforms than ip_burst) is charged the whole bucket, so that it waits
// for a full bucket rather than being refused for ever.
func (l *Limits) PageAt(now time.Time, ip netip.Addr, calls int) Decision {
	n := min(max(calls, 1), l.o.Process.Burst, l.o.IP.Burst)
	// A connector name no bucket has: the request passes the process
	// and address layers only (see Options.Connectors).
	return l.AllowAt(now, Request{IP: ip, Uses: []Use{{Connector: pageUse, Messages: n}}})
}

// pageUse names the pages' messages in a [Request]. No connector can have
// this id: a connector id is a name, never empty.
const pageUse = ""

// PageHostAllowed reports whether a page may be served to r for the Host
// it names. It is the MCP addresses' rule against DNS rebinding (the
// go-sdk's, which refuses their requests with 403): a request that arrived
// on a loopback address must name a loopback host (localhost, 127.0.0.1,
// [::1], any port), since a page on another site that had its name
// rebound to 127.0.0.1 sends its own name. On any other local address
// every Host passes, as on the MCP addresses (there the server is
// reachable under its address anyway).
//
// Two more names pass on loopback, which no rebinding page can send: any
// Host a trusted proxy (server.trusted_proxies) passes on, since the proxy
// chose this server for it (nginx's "proxy_set_header Host $host" on the
// same machine); and the host of an entry of server.allowed_origins ("*"
// names no host), the name an admin gave this server's pages.
//
// A request without a local address in its context (not from an
// http.Server) passes, as it does on the MCP addresses.
func PageHostAllowed(r *http.Request, origins *Origins, trusted []netip.Prefix) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !isLoopbackHost(local.String()) {
		return true
	}
	if isLoopbackHost(r.Host) {
		return true
	}
	if peer := parseHop(r.RemoteAddr); peer.IsValid() && isTrusted(peer, trusted) {
		return true
	}
	return origins.namesHost(r.Host)
}

// namesHost reports whether host ("name" or "name:port", as in a Host
// header) is the host of an entry of the list, under either scheme.
func (o *Origins) namesHost(host string) bool {
	if o == nil || host == "" {
		return false
	}
	for _, scheme := range []string{"http://", "https://"} {
		if n, ok := weborigin.Normal(scheme + host); ok && o.set[n] {
			return true
		}
	}
	return false
}

// PageOriginAllowed reports whether r's Origin may reach a page: the MCP
// addresses' rule ([Origins.Allowed]: no Origin, one on the list or "*",
// or this server's own page reached as localhost), and also an Origin
// that is the request's own Host: a page of this server calling back under
// the name it was opened by (behind a proxy, https://besluitbron.example.nl
// asking besluitbron.example.nl). Ask it after [PageHostAllowed]: on
// loopback only a Host that passed that rule can be the same origin, so a
// rebinding page is not admitted as its own.
func PageOriginAllowed(r *http.Request, origins *Origins) bool {
	if origins.Allowed(r) {
		return true
	}
	n, ok := weborigin.Normal(r.Header.Get("Origin"))
	if !ok || r.Host == "" {
		return false
	}
	scheme, _, _ := strings.Cut(n, "://")
	self, ok := weborigin.Normal(scheme + "://" + r.Host)
	return ok && self == n
}

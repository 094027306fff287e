package inbound

import (
	"net/http"
	"net/netip"
	"strings"
)

// ClientIP is the address a request comes from: the connection's peer,
// unless that peer is one of the trusted proxies, in which case the
// forwarding headers are read from the right (the entry the nearest proxy
// added) leftwards, past every trusted proxy, to the first address that
// is not one. X-Forwarded-For is read when present, else Forwarded
// (RFC 7239 for=). With no trusted proxies the headers change nothing, so
// a client cannot forge its way into another bucket.
//
// An unparsable entry stops the walk at the proxy that passed it on. The
// result is invalid (the zero Addr) only when the peer address itself is
// not an IP (a Unix socket, say).
func ClientIP(r *http.Request, trusted []netip.Prefix) netip.Addr {
	addr := parseHop(r.RemoteAddr)
	if !addr.IsValid() || !isTrusted(addr, trusted) {
		return addr
	}
	hops := forwardedHops(r.Header)
	for i := len(hops) - 1; i >= 0 && isTrusted(addr, trusted); i-- {
		a := parseHop(hops[i])
		if !a.IsValid() {
			break
		}
		addr = a
	}
	return addr
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwardedHops lists the forwarded addresses, client first.
func forwardedHops(h http.Header) []string {
	var hops []string
	if xff := h.Values("X-Forwarded-For"); len(xff) > 0 {
		for _, line := range xff {
			for _, s := range strings.Split(line, ",") {
				hops = append(hops, strings.TrimSpace(s))
			}
		}
		return hops
	}
	for _, line := range h.Values("Forwarded") {
		for _, elem := range strings.Split(line, ",") {
			for _, pair := range strings.Split(elem, ";") {
				k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "for") {
					hops = append(hops, strings.Trim(strings.TrimSpace(v), `"`))
				}
			}
		}
	}
	return hops
}

// parseHop reads "1.2.3.4", "1.2.3.4:80", "2001:db8::1", "[2001:db8::1]"
// or "[2001:db8::1]:80"; anything else (RFC 7239's "unknown" or "_hidden")
// is the zero Addr. IPv4-mapped IPv6 comes back as IPv4 and zones are
// dropped, so one client has one spelling.
func parseHop(s string) netip.Addr {
	// Try the form the string looks like first: a failed parse allocates
	// its error, and RemoteAddr is "ip:port" on every request.
	if strings.HasPrefix(s, "[") || strings.Count(s, ":") == 1 {
		if ap, err := netip.ParseAddrPort(s); err == nil {
			return ap.Addr().Unmap().WithZone("")
		}
		s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}

package inbound

import (
	"net/http"
	"net/netip"
	"strconv"
	"sync"
)

// Monitor guards the monitoring paths a public address serves
// (/metrics, /status/cluster.json): the pages' Host rule against DNS
// rebinding ([PageHostAllowed]), and a cap on the requests rendering at
// once, in all and per client address, since a render (every metric
// family) is what a flood of them would cost. A cap on concurrency rather
// than a rate: a monitor scraping every few seconds, or a test polling
// for a figure, never meets it whatever the clock says, while a flood
// gets 503 with Retry-After: 1 for everything past the cap.
type Monitor struct {
	next            http.Handler
	max, maxPerAddr int
	origins         *Origins
	trusted         []netip.Prefix

	mu     sync.Mutex
	active int
	perIP  map[netip.Addr]int
}

// Defaults of a [Monitor]'s caps.
const (
	DefaultMonitorConcurrent        = 8
	DefaultMonitorConcurrentPerAddr = 2
)

// NewMonitor wraps next with the Host rule of origins and trusted and the
// default caps.
func NewMonitor(next http.Handler, origins *Origins, trusted []netip.Prefix) *Monitor {
	return &Monitor{next: next, max: DefaultMonitorConcurrent, maxPerAddr: DefaultMonitorConcurrentPerAddr,
		origins: origins, trusted: trusted, perIP: map[netip.Addr]int{}}
}

// ServeHTTP implements http.Handler.
func (m *Monitor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !PageHostAllowed(r, m.origins, m.trusted) {
		http.Error(w, "BesluitBron: Host "+strconv.Quote(r.Host)+" is not this server's name; monitoring can be given its own address (server.admin_addr)", http.StatusForbidden)
		return
	}
	ip := IPKey(ClientIP(r, m.trusted))
	m.mu.Lock()
	if m.active >= m.max || m.perIP[ip] >= m.maxPerAddr {
		m.mu.Unlock()
		w.Header().Set("Retry-After", "1")
		http.Error(w, "BesluitBron: too many monitoring requests at once; retry after 1 s", http.StatusServiceUnavailable)
		return
	}
	m.active++
	m.perIP[ip]++
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.active--
		if m.perIP[ip]--; m.perIP[ip] <= 0 {
			delete(m.perIP, ip)
		}
		m.mu.Unlock()
	}()
	m.next.ServeHTTP(w, r)
}

var _ http.Handler = (*Monitor)(nil)

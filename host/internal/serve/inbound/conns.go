package inbound

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Conns caps a listener's open connections, in all and per remote
// address (server.max_connections, server.max_connections_per_ip), with
// room kept for monitoring (server.reserved_connections). It only counts
// and, when full, chooses: a connection is counted from its Accept to its
// first Close, and one that finds no room is answered at once with a
// minimal 503 (Retry-After: 1, Connection: close) and closed, before a
// byte of its request is read, so that a flood of slow clients costs the
// server one accept and one short write each.
//
// The remote address is the connection's peer, IPv6 counted per /64 as
// the limits count it ([IPKey]): behind a proxy, the proxy's
// (server.trusted_proxies plays no part here, nothing of the request
// having been read), so that the per-address cap then applies to the
// proxy and all of its clients together.
//
// # Never locked out
//
// A fixed per-address cap lets a few addresses fill the total (20
// addresses × 55 slow bodies filled 1,000 places and locked every new
// client out, /metrics included; issue 27). So when the general places
// (the total less the reserve) are all taken, each address holding
// connections, the newcomer's included, has a share: the general places
// divided by their number, which shrinks as more addresses compete. A
// newcomer under its share takes the place of a connection of the address
// furthest over its share: one kept alive between requests if it has
// one, else its oldest (a slow body, a long stream), which is closed. A
// newcomer at or over its share gets a reserved place if one is free (at
// most [ReservedPerAddress] per address); a request on a reserved place is
// served only for the monitoring paths ([ReserveOnly]: /healthz, /readyz,
// /metrics), answered with Connection: close so that the place is free
// again at once; anything else on it gets the 503. Only then is a
// connection refused.
//
// A Conns is safe for concurrent use; Close closes the listener.
type Conns struct {
	net.Listener
	max, maxPerIP, reserve int

	mu       sync.Mutex
	open     int // general places taken
	reserved int // reserved places taken
	perIP    map[netip.Addr]*ipConns

	refusedTotal, refusedPerIP, refusedReserved, evicted atomic.Uint64
}

// ReservedPerAddress is the most reserved places one address holds at
// once: a monitor needs one, and a flood of addresses can take no more
// than their number.
const ReservedPerAddress = 2

// ipConns are one address's connections.
type ipConns struct {
	general  map[*countedConn]struct{}
	reserved int
}

// LimitConns wraps ln with caps of max open connections in all and
// maxPerIP from one remote address; a cap below 1 is no cap. No places
// are reserved.
func LimitConns(ln net.Listener, max, maxPerIP int) *Conns {
	return LimitConnsReserve(ln, max, maxPerIP, 0)
}

// LimitConnsReserve is [LimitConns] keeping reserve of the max places for
// the monitoring paths (see [Conns]); reserve is cut to max-1.
func LimitConnsReserve(ln net.Listener, max, maxPerIP, reserve int) *Conns {
	if max < 1 || reserve < 0 {
		reserve = 0
	} else if reserve >= max {
		reserve = max - 1
	}
	return &Conns{Listener: ln, max: max, maxPerIP: maxPerIP, reserve: reserve, perIP: map[netip.Addr]*ipConns{}}
}

// refusal is the whole answer to a connection past a cap.
const refusal = "HTTP/1.1 503 Service Unavailable\r\n" +
	"Retry-After: 1\r\n" +
	"Connection: close\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\n" +
	"Content-Length: 21\r\n" +
	"\r\n" +
	"too many connections\n"

// Accept returns the next connection within the caps, refusing the ones
// past them on the way.
func (l *Conns) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		cc := &countedConn{Conn: c, l: l, ip: IPKey(remoteIP(c)), since: time.Now()}
		victim, ok := l.admit(cc)
		if victim != nil {
			victim.evict()
		}
		if !ok {
			// A goroutine, so that the accept loop never waits on a
			// client; the write is one short segment into a fresh
			// socket's empty send buffer and does not block on TCP.
			go refuseConn(c)
			continue
		}
		return cc, nil
	}
}

// admit counts c, on a general or a reserved place, or refuses it; it
// returns the connection whose place c takes, for the caller to close.
func (l *Conns) admit(c *countedConn) (victim *countedConn, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.perIP[c.ip]
	n := 0
	if e != nil {
		n = len(e.general)
	}
	general := l.max - l.reserve
	perIPFull := l.maxPerIP > 0 && n >= l.maxPerIP
	switch {
	case l.max > 0 && l.open >= general:
		if !perIPFull {
			victim = l.victimLocked(c.ip, n, general)
		}
		if victim == nil {
			if l.takeReserveLocked(c, e) {
				return nil, true
			}
			l.refusedTotal.Add(1)
			return nil, false
		}
		victim.released = true
		l.releaseLocked(victim)
		l.evicted.Add(1)
	case perIPFull:
		if l.takeReserveLocked(c, e) {
			return nil, true
		}
		l.refusedPerIP.Add(1)
		return nil, false
	}
	if e == nil {
		e = &ipConns{general: map[*countedConn]struct{}{}}
		l.perIP[c.ip] = e
	}
	e.general[c] = struct{}{}
	l.open++
	return victim, true
}

// victimLocked picks the connection a newcomer from ip (holding n) takes
// the place of when the general places are full: none when ip holds its
// share or more; else one of the address furthest over its share, kept
// alive between requests if it has one, else its oldest.
func (l *Conns) victimLocked(ip netip.Addr, n, general int) *countedConn {
	addrs := 0
	for _, e := range l.perIP {
		if len(e.general) > 0 {
			addrs++
		}
	}
	if n == 0 {
		addrs++
	}
	share := max(1, general/addrs)
	if n >= share {
		return nil
	}
	var worst *ipConns
	for _, e := range l.perIP {
		if len(e.general) > share && (worst == nil || len(e.general) > len(worst.general)) {
			worst = e
		}
	}
	if worst == nil {
		return nil
	}
	var pick *countedConn
	for c := range worst.general {
		switch {
		case pick == nil:
			pick = c
		case c.idle != pick.idle:
			if c.idle {
				pick = c
			}
		case c.since.Before(pick.since):
			pick = c
		}
	}
	return pick
}

// takeReserveLocked puts c on a reserved place if one is free for its
// address.
func (l *Conns) takeReserveLocked(c *countedConn, e *ipConns) bool {
	if l.reserved >= l.reserve || e != nil && e.reserved >= ReservedPerAddress {
		return false
	}
	if e == nil {
		e = &ipConns{general: map[*countedConn]struct{}{}}
		l.perIP[c.ip] = e
	}
	e.reserved++
	l.reserved++
	c.reserve = true
	return true
}

func (l *Conns) releaseLocked(c *countedConn) {
	e := l.perIP[c.ip]
	if c.reserve {
		l.reserved--
		if e != nil {
			e.reserved--
		}
	} else {
		l.open--
		if e != nil {
			delete(e.general, c)
		}
	}
	if e != nil && len(e.general) == 0 && e.reserved == 0 {
		delete(l.perIP, c.ip)
	}
}

func (l *Conns) release(c *countedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !c.released {
		c.released = true
		l.releaseLocked(c)
	}
}

// Open is the number of connections open now, reserved places included.
func (l *Conns) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open + l.reserved
}

// OpenFrom is the number of connections open now from ip (its /64 for
// IPv6), reserved places included.
func (l *Conns) OpenFrom(ip netip.Addr) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.perIP[IPKey(ip)]; e != nil {
		return len(e.general) + e.reserved
	}
	return 0
}

// Refused counts the connections refused so far by the total cap and by
// the per-address cap.
func (l *Conns) Refused() (total, perIP uint64) {
	return l.refusedTotal.Load(), l.refusedPerIP.Load()
}

// RefusedReserved counts the requests refused on a reserved place for
// not being monitoring ([ReserveOnly]).
func (l *Conns) RefusedReserved() uint64 { return l.refusedReserved.Load() }

// Evicted counts the connections closed to make room for a newcomer under
// its share.
func (l *Conns) Evicted() uint64 { return l.evicted.Load() }

// ConnState is the http.Server's ConnState hook: it tells the Conns which
// connections wait, kept alive, between requests (the first chosen when a
// place must be taken back).
func (l *Conns) ConnState(c net.Conn, s http.ConnState) {
	cc, ok := c.(*countedConn)
	if !ok || s != http.StateIdle && s != http.StateActive {
		return
	}
	l.mu.Lock()
	cc.idle = s == http.StateIdle
	l.mu.Unlock()
}

type connKey struct{}

// ConnContext is the http.Server's ConnContext hook: it puts the
// connection in its requests' context, for [ReserveOnly].
func (l *Conns) ConnContext(ctx context.Context, c net.Conn) context.Context {
	if cc, ok := c.(*countedConn); ok {
		return context.WithValue(ctx, connKey{}, cc)
	}
	return ctx
}

// MonitoringPath reports whether path is one of the paths a reserved
// place serves: /healthz, /readyz, /metrics.
func MonitoringPath(path string) bool {
	switch path {
	case "/healthz", "/readyz", "/metrics":
		return true
	}
	return false
}

// ReserveOnly serves, on a reserved place ([Conns]), only the requests
// allowed says (nil: [MonitoringPath]), each with Connection: close so
// that the place is free again at once; any other request there gets the
// connection refusal's 503. Requests on general places pass unchanged.
// The http.Server must have the Conns' ConnContext.
func ReserveOnly(next http.Handler, allowed func(*http.Request) bool) http.Handler {
	if allowed == nil {
		allowed = func(r *http.Request) bool { return MonitoringPath(r.URL.Path) }
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cc, _ := r.Context().Value(connKey{}).(*countedConn)
		if cc == nil || !cc.reserve {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Connection", "close")
		// net/http reads what is left of a small body before it closes;
		// a slow body would hold the reserved place for read_timeout.
		defer http.NewResponseController(w).SetReadDeadline(time.Now())
		if !allowed(r) {
			cc.l.refusedReserved.Add(1)
			w.Header().Set("Retry-After", "1")
			http.Error(w, "too many connections", http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// remoteIP is the connection's peer address; the zero Addr (one shared
// count) for a connection without an IP, such as a Unix socket's.
func remoteIP(c net.Conn) netip.Addr {
	switch a := c.RemoteAddr().(type) {
	case *net.TCPAddr:
		return a.AddrPort().Addr().Unmap()
	case nil:
		return netip.Addr{}
	default:
		if ap, err := netip.ParseAddrPort(a.String()); err == nil {
			return ap.Addr().Unmap()
		}
		return netip.Addr{}
	}
}

// refuseConn answers a connection past a cap and closes it. The write side
// is shut first, so that the client reads the answer and then the end of
// the stream even when its request (unread here) makes the close reset
// the connection.
func refuseConn(c net.Conn) {
	_, _ = io.WriteString(c, refusal)
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_ = c.Close()
}

// countedConn gives its count back at its first Close, or when its place
// is taken for a newcomer (evict).
type countedConn struct {
	net.Conn
	l     *Conns
	ip    netip.Addr // the key: IPv6 per /64
	since time.Time  // accepted
	// Under l.mu:
	idle     bool // kept alive between requests
	reserve  bool // on a reserved place
	released bool
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.l.release(c)
	return err
}

// evict closes a connection whose place was given to a newcomer (its
// count already given back).
func (c *countedConn) evict() { _ = c.Conn.Close() }

// CloseWrite passes on to a TCP connection, which net/http uses to send
// its FIN before it closes (so that a client reads the last answer
// before any reset).
func (c *countedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

var (
	descConnsOpen = prometheus.NewDesc("besluitbron_http_connections_open",
		"HTTP connections open now (within server.max_connections).", nil, nil)
	descConnsRefused = prometheus.NewDesc("besluitbron_http_connections_refused_total",
		"HTTP connections answered 503 and closed, by the cap that refused them (total: server.max_connections, per_ip: server.max_connections_per_ip, both before the request was read; reserved: a request other than /healthz, /readyz or /metrics on a place of server.reserved_connections).", []string{"reason"}, nil)
	descConnsEvicted = prometheus.NewDesc("besluitbron_http_connections_evicted_total",
		"HTTP connections closed to make room for a client under its share when server.max_connections was reached (of the address furthest over its share).", nil, nil)
)

// ConnCollector exports a Conns' open and refused connections.
type ConnCollector struct{ l *Conns }

// NewConnCollector returns a collector over l; register it once.
func NewConnCollector(l *Conns) *ConnCollector { return &ConnCollector{l: l} }

// Describe implements prometheus.Collector.
func (c *ConnCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descConnsOpen
	ch <- descConnsRefused
	ch <- descConnsEvicted
}

// Collect implements prometheus.Collector.
func (c *ConnCollector) Collect(ch chan<- prometheus.Metric) {
	total, perIP := c.l.Refused()
	ch <- prometheus.MustNewConstMetric(descConnsOpen, prometheus.GaugeValue, float64(c.l.Open()))
	ch <- prometheus.MustNewConstMetric(descConnsRefused, prometheus.CounterValue, float64(total), "total")
	ch <- prometheus.MustNewConstMetric(descConnsRefused, prometheus.CounterValue, float64(perIP), "per_ip")
	ch <- prometheus.MustNewConstMetric(descConnsRefused, prometheus.CounterValue, float64(c.l.RefusedReserved()), "reserved")
	ch <- prometheus.MustNewConstMetric(descConnsEvicted, prometheus.CounterValue, float64(c.l.Evicted()))
}

var _ prometheus.Collector = (*ConnCollector)(nil)

// Deadlines fits the http.Server's connection deadlines (ReadTimeout,
// WriteTimeout) to each request, through http.ResponseController, rather
// than a deadline in the handler:
//
//   - Reading: ReadTimeout bounds the whole request, body included, so a
//     client that trickles its body is cut off then. Once the request has
//     been read (at once for a request without a body, at the body's end
//     otherwise) the read deadline is cleared: net/http watches the idle
//     connection for the client going away during the handler, and an
//     expiring read deadline there would cancel the request's context of
//     a slow answer or a stream as if the client had gone.
//   - Writing: an answer that is not a stream keeps the server's
//     WriteTimeout, counted from the end of the request's headers. A
//     streaming answer (Content-Type text/event-stream: the MCP addresses'
//     SSE streams and POST answers, /sse) would be cut off by it, so each
//     of its writes and flushes moves the write deadline to now + write
//     instead: a stream may run for as long as it has something to say,
//     and a client that stops reading it is cut off within write.
//
// now is the clock of the deadlines (time.Now: a connection's deadlines
// are wall-clock time).
func Deadlines(next http.Handler, write time.Duration, now func() time.Time) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		if r.Body == nil || r.Body == http.NoBody {
			_ = rc.SetReadDeadline(time.Time{})
		} else {
			r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
		}
		next.ServeHTTP(&deadlineWriter{ResponseWriter: w, rc: rc, write: write, now: now}, r)
	})
}

// deadlineBody clears the read deadline when the body has been read to its
// end.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// deadlineWriter moves the write deadline before each write of a
// streaming answer.
type deadlineWriter struct {
	http.ResponseWriter
	rc                 *http.ResponseController
	write              time.Duration
	now                func() time.Time
	decided, streaming bool
}

// decide looks at the answer's Content-Type once, when it is committed.
func (d *deadlineWriter) decide() {
	if d.decided {
		return
	}
	d.decided = true
	ct := d.Header().Get("Content-Type")
	d.streaming = strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "text/event-stream")
}

func (d *deadlineWriter) extend() {
	if d.streaming && d.write > 0 {
		_ = d.rc.SetWriteDeadline(d.now().Add(d.write))
	}
}

func (d *deadlineWriter) WriteHeader(code int) {
	if code >= 200 { // a 1xx answer commits nothing
		d.decide()
	}
	d.extend()
	d.ResponseWriter.WriteHeader(code)
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.decide()
	d.extend()
	return d.ResponseWriter.Write(p)
}

// Flush implements http.Flusher, which the MCP handlers look for.
func (d *deadlineWriter) Flush() {
	d.decide()
	d.extend()
	_ = d.rc.Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

var _ http.Flusher = (*deadlineWriter)(nil)

package inbound

import (
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
// address (server.max_connections, server.max_connections_per_ip). It
// only counts: a connection is counted from its Accept to its first
// Close, and one past either cap is answered at once with a minimal 503
// (Retry-After: 1, Connection: close) and closed, before a byte of its
// request is read, so that a flood of slow clients costs the server one
// accept and one short write each, and the clients under the caps (a
// health check, another address) are still served.
//
// The remote address is the connection's peer: behind a proxy, the
// proxy's (server.trusted_proxies plays no part here, nothing of the
// request having been read), so that the per-address cap then applies to
// the proxy and all of its clients together.
//
// A Conns is safe for concurrent use; Close closes the listener.
type Conns struct {
	net.Listener
	max, maxPerIP int

	mu    sync.Mutex
	open  int
	perIP map[netip.Addr]int

	refusedTotal, refusedPerIP atomic.Uint64
}

// LimitConns wraps ln with caps of max open connections in all and
// maxPerIP from one remote address; a cap below 1 is no cap.
func LimitConns(ln net.Listener, max, maxPerIP int) *Conns {
	return &Conns{Listener: ln, max: max, maxPerIP: maxPerIP, perIP: map[netip.Addr]int{}}
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
		ip := remoteIP(c)
		if over := l.admit(ip); over != "" {
			// A goroutine, so that the accept loop never waits on a
			// client; the write is one short segment into a fresh
			// socket's empty send buffer and does not block on TCP.
			go refuseConn(c)
			continue
		}
		return &countedConn{Conn: c, l: l, ip: ip}, nil
	}
}

// admit counts a connection from ip, or says which cap refuses it
// ("total" or "per_ip").
func (l *Conns) admit(ip netip.Addr) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max > 0 && l.open >= l.max {
		l.refusedTotal.Add(1)
		return "total"
	}
	if l.maxPerIP > 0 && l.perIP[ip] >= l.maxPerIP {
		l.refusedPerIP.Add(1)
		return "per_ip"
	}
	l.open++
	l.perIP[ip]++
	return ""
}

func (l *Conns) release(ip netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if n := l.perIP[ip] - 1; n > 0 {
		l.perIP[ip] = n
	} else {
		delete(l.perIP, ip)
	}
}

// Open is the number of connections open now.
func (l *Conns) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// OpenFrom is the number of connections open now from ip.
func (l *Conns) OpenFrom(ip netip.Addr) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.perIP[ip.Unmap()]
}

// Refused counts the connections refused so far by the total cap and by
// the per-address cap.
func (l *Conns) Refused() (total, perIP uint64) {
	return l.refusedTotal.Load(), l.refusedPerIP.Load()
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

// countedConn gives its count back at its first Close.
type countedConn struct {
	net.Conn
	l    *Conns
	ip   netip.Addr
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c.ip) })
	return err
}

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
		"HTTP connections answered 503 and closed before their request was read, by the cap that refused them (total: server.max_connections, per_ip: server.max_connections_per_ip).", []string{"reason"}, nil)
)

// ConnCollector exports a Conns' open and refused connections.
type ConnCollector struct{ l *Conns }

// NewConnCollector returns a collector over l; register it once.
func NewConnCollector(l *Conns) *ConnCollector { return &ConnCollector{l: l} }

// Describe implements prometheus.Collector.
func (c *ConnCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descConnsOpen
	ch <- descConnsRefused
}

// Collect implements prometheus.Collector.
func (c *ConnCollector) Collect(ch chan<- prometheus.Metric) {
	total, perIP := c.l.Refused()
	ch <- prometheus.MustNewConstMetric(descConnsOpen, prometheus.GaugeValue, float64(c.l.Open()))
	ch <- prometheus.MustNewConstMetric(descConnsRefused, prometheus.CounterValue, float64(total), "total")
	ch <- prometheus.MustNewConstMetric(descConnsRefused, prometheus.CounterValue, float64(perIP), "per_ip")
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

package inbound_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/inbound"
)

// fakeConn is an accepted connection from a chosen address; it records
// what is written to it and when it is closed.
type fakeConn struct {
	net.Conn // nil: only the methods below are used
	remote   net.Addr
	mu       sync.Mutex
	written  bytes.Buffer
	closes   int
	closed   chan struct{}
}

func newFakeConn(ip string) *fakeConn {
	return &fakeConn{remote: &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000}, closed: make(chan struct{})}
}

func (c *fakeConn) RemoteAddr() net.Addr { return c.remote }
func (c *fakeConn) LocalAddr() net.Addr  { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080} }
func (c *fakeConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.written.Write(p)
}
func (c *fakeConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closes++
	if c.closes == 1 {
		close(c.closed)
	}
	return nil
}

func (c *fakeConn) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.written.String()
}

// fakeListener hands out the connections sent on its channel.
type fakeListener struct{ conns chan net.Conn }

func newFakeListener() *fakeListener { return &fakeListener{conns: make(chan net.Conn)} }

func (l *fakeListener) Accept() (net.Conn, error) {
	c, ok := <-l.conns
	if !ok {
		return nil, net.ErrClosed
	}
	return c, nil
}
func (l *fakeListener) Close() error   { return nil }
func (l *fakeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080} }

// acceptor runs Accept in a loop and passes on what it returns.
func acceptor(t *testing.T, l net.Listener) <-chan net.Conn {
	t.Helper()
	out := make(chan net.Conn)
	go func() {
		defer close(out)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			out <- c
		}
	}()
	return out
}

const wait = 5 * time.Second // a bound on conditions, never a pause

func admitted(t *testing.T, got <-chan net.Conn) net.Conn {
	t.Helper()
	select {
	case c := <-got:
		return c
	case <-time.After(wait):
		t.Fatal("a connection within the caps was not accepted")
		return nil
	}
}

// refused waits for c to be answered and closed by the listener, and
// checks the answer is the minimal 503.
func refused(t *testing.T, c *fakeConn) {
	t.Helper()
	select {
	case <-c.closed:
	case <-time.After(wait):
		t.Fatal("a connection past a cap was not closed")
	}
	res, err := http.ReadResponse(bufio.NewReader(strings.NewReader(c.output())), nil)
	if err != nil {
		t.Fatalf("refusal %q is not an HTTP answer: %v", c.output(), err)
	}
	if res.StatusCode != 503 || res.Header.Get("Retry-After") != "1" || !res.Close {
		t.Errorf("refusal: %s, Retry-After %q, close %v; want 503, 1, true", res.Status, res.Header.Get("Retry-After"), res.Close)
	}
}

// Catches: no total cap (the third connection accepted), a refusal that
// is not the 503 or leaves the connection open, a refusal counted under
// the wrong reason.
func TestConnsTotalCap(t *testing.T) {
	fl := newFakeListener()
	l := inbound.LimitConns(fl, 2, 0)
	got := acceptor(t, l)
	a, b, c := newFakeConn("10.0.0.1"), newFakeConn("10.0.0.2"), newFakeConn("10.0.0.3")
	fl.conns <- a
	admitted(t, got)
	fl.conns <- b
	admitted(t, got)
	fl.conns <- c
	refused(t, c)
	if l.Open() != 2 {
		t.Errorf("open = %d, want 2", l.Open())
	}
	if total, perIP := l.Refused(); total != 1 || perIP != 0 {
		t.Errorf("refused total %d per_ip %d, want 1 and 0", total, perIP)
	}
	if a.output() != "" || b.output() != "" {
		t.Error("an accepted connection was written to by the listener")
	}
	close(fl.conns)
}

// Catches: no per-address cap, a per-address cap that also refuses other
// addresses, addresses compared with their port (every connection its
// own address).
func TestConnsPerIPCap(t *testing.T) {
	fl := newFakeListener()
	l := inbound.LimitConns(fl, 10, 2)
	got := acceptor(t, l)
	for i := 0; i < 2; i++ {
		fl.conns <- newFakeConn("127.0.0.1")
		admitted(t, got)
	}
	third := newFakeConn("127.0.0.1")
	fl.conns <- third
	refused(t, third)
	// ::ffff:127.0.0.1 is the same address.
	mapped := newFakeConn("::ffff:127.0.0.1")
	fl.conns <- mapped
	refused(t, mapped)
	fl.conns <- newFakeConn("127.0.0.2")
	admitted(t, got)
	if total, perIP := l.Refused(); total != 0 || perIP != 2 {
		t.Errorf("refused total %d per_ip %d, want 0 and 2", total, perIP)
	}
	if n := l.OpenFrom(netip.MustParseAddr("127.0.0.1")); n != 2 {
		t.Errorf("open from 127.0.0.1 = %d, want 2", n)
	}
	close(fl.conns)
}

// Catches: a connection's count never given back (the cap reached for
// good), or given back at every Close (a second Close opening room for
// one more than the cap).
func TestConnsReleaseOnClose(t *testing.T) {
	fl := newFakeListener()
	l := inbound.LimitConns(fl, 2, 1)
	got := acceptor(t, l)
	fl.conns <- newFakeConn("10.0.0.1")
	c1 := admitted(t, got)
	fl.conns <- newFakeConn("10.0.0.2")
	c2 := admitted(t, got)
	c1.Close()
	c1.Close()
	if l.Open() != 1 || l.OpenFrom(netip.MustParseAddr("10.0.0.1")) != 0 {
		t.Fatalf("after closing one twice: open %d, from 10.0.0.1 %d; want 1 and 0", l.Open(), l.OpenFrom(netip.MustParseAddr("10.0.0.1")))
	}
	fl.conns <- newFakeConn("10.0.0.1")
	admitted(t, got)
	over := newFakeConn("10.0.0.3")
	fl.conns <- over
	refused(t, over)
	c2.Close()
	fl.conns <- newFakeConn("10.0.0.3")
	admitted(t, got)
	close(fl.conns)
}

// Catches: the open count racing (run under -race), the cap exceeded
// when connections arrive and close at once, a count left over.
func TestConnsConcurrent(t *testing.T) {
	const max, perIP, n = 20, 5, 2000
	fl := newFakeListener()
	l := inbound.LimitConns(fl, max, perIP)
	got := acceptor(t, l)
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := 0
	over := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for c := range got {
			if o := l.Open(); o > max {
				mu.Lock()
				over++
				mu.Unlock()
			}
			mu.Lock()
			accepted++
			mu.Unlock()
			wg.Add(1)
			go func() { defer wg.Done(); c.Close() }()
		}
	}()
	var sent []*fakeConn
	for i := 0; i < n; i++ {
		c := newFakeConn(netip.AddrFrom4([4]byte{10, 0, 0, byte(i % 7)}).String())
		sent = append(sent, c)
		fl.conns <- c
	}
	close(fl.conns)
	<-done
	wg.Wait()
	for _, c := range sent {
		select {
		case <-c.closed:
		case <-time.After(wait):
			t.Fatal("a connection was neither accepted and closed nor refused")
		}
	}
	total, perIPRefused := l.Refused()
	if uint64(accepted)+total+perIPRefused != n {
		t.Errorf("accepted %d + refused %d + %d != %d", accepted, total, perIPRefused, n)
	}
	if over > 0 {
		t.Errorf("%d times more than %d connections were open", over, max)
	}
	if l.Open() != 0 {
		t.Errorf("open = %d after every connection closed", l.Open())
	}
}

// Over real sockets: a client that has sent its request (unread by the
// server) reads the whole 503. Catches a refusal that never reaches the
// client: closed before it is written, or reset (SO_LINGER 0).
func TestConnsRefusalOverTCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := inbound.LimitConns(ln, 1, 1)
	defer l.Close()
	got := acceptor(t, l)
	first, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	held := admitted(t, got)
	defer held.Close()
	for i := 0; i < 20; i++ {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(wait))
		io.WriteString(c, "POST /mcp/unified/v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"+strings.Repeat("x", 1000))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		if res.StatusCode != 503 || res.Header.Get("Retry-After") != "1" {
			t.Fatalf("connection %d: %s", i, res.Status)
		}
		c.Close()
	}
	if total, _ := l.Refused(); total != 20 {
		t.Errorf("refused %d, want 20", total)
	}
}

// deadlineRecorder is a ResponseWriter that records the deadlines
// http.ResponseController sets on it.
type deadlineRecorder struct {
	*httptest.ResponseRecorder
	reads, writes []time.Time
}

func (d *deadlineRecorder) SetReadDeadline(t time.Time) error {
	d.reads = append(d.reads, t)
	return nil
}
func (d *deadlineRecorder) SetWriteDeadline(t time.Time) error {
	d.writes = append(d.writes, t)
	return nil
}

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// Catches: a stream cut off by the server's WriteTimeout (its deadline
// not moved at each write and flush), or moved from the wrong moment.
func TestDeadlinesStreamMovesWriteDeadline(t *testing.T) {
	clk := &fakeClock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	start := clk.t
	h := inbound.Deadlines(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		clk.t = clk.t.Add(time.Hour)
		io.WriteString(w, "data: 1\n\n")
		w.(http.Flusher).Flush()
	}), time.Minute, clk.now)
	rec := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/sse", nil))
	if len(rec.writes) == 0 {
		t.Fatal("no write deadline set for a stream")
	}
	if first := rec.writes[0]; !first.Equal(start.Add(time.Minute)) {
		t.Errorf("first write deadline %v, want %v", first, start.Add(time.Minute))
	}
	if last := rec.writes[len(rec.writes)-1]; !last.Equal(start.Add(time.Hour + time.Minute)) {
		t.Errorf("write deadline after an hour of stream %v, want %v", last, start.Add(time.Hour+time.Minute))
	}
	if !strings.Contains(rec.Body.String(), "data: 1") || !rec.Flushed {
		t.Errorf("stream not passed on: %q, flushed %v", rec.Body.String(), rec.Flushed)
	}
}

// Catches: a plain answer's write deadline moved (write_timeout no longer
// bounding it).
func TestDeadlinesPlainAnswerKeepsWriteDeadline(t *testing.T) {
	h := inbound.Deadlines(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}")
		w.(http.Flusher).Flush()
	}), time.Minute, time.Now)
	rec := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/x", nil))
	if len(rec.writes) != 0 {
		t.Errorf("write deadline set on a plain answer: %v", rec.writes)
	}
}

// Catches: the read deadline cleared before the body has been read (a
// slow body no longer cut off at read_timeout), or never cleared (the
// handler's context cancelled at read_timeout by net/http's watch of the
// idle connection).
func TestDeadlinesReadClearedOnceRequestRead(t *testing.T) {
	var beforeEOF int
	h := inbound.Deadlines(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := w.(interface{ Unwrap() http.ResponseWriter }).Unwrap().(*deadlineRecorder)
		buf := make([]byte, 3)
		r.Body.Read(buf)
		beforeEOF = len(rec.reads)
		io.ReadAll(r.Body)
	}), time.Minute, time.Now)
	rec := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp/unified/v1", strings.NewReader("abcdef")))
	if beforeEOF != 0 {
		t.Errorf("read deadline changed before the body's end: %v", rec.reads)
	}
	if len(rec.reads) != 1 || !rec.reads[0].IsZero() {
		t.Errorf("read deadlines %v, want one clear at the body's end", rec.reads)
	}

	rec = &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	h = inbound.Deadlines(http.NotFoundHandler(), time.Minute, time.Now)
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if len(rec.reads) != 1 || !rec.reads[0].IsZero() {
		t.Errorf("GET without a body: read deadlines %v, want one clear", rec.reads)
	}
}

// Catches: a ResponseController through the wrapper failing (no Unwrap),
// which the MCP handlers' flushes rely on.
func TestDeadlinesUnwraps(t *testing.T) {
	h := inbound.Deadlines(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := http.NewResponseController(w).SetWriteDeadline(time.Time{}); errors.Is(err, http.ErrNotSupported) {
			t.Error("ResponseController does not reach the connection through the wrapper")
		}
	}), time.Minute, time.Now)
	h.ServeHTTP(&deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}, httptest.NewRequest("GET", "/", nil))
}

// evicted waits for c to be closed by the listener to make room, without
// a word written to it.
func evicted(t *testing.T, c *fakeConn) {
	t.Helper()
	select {
	case <-c.closed:
	case <-time.After(wait):
		t.Fatal("the connection whose place was taken was not closed")
	}
	if c.output() != "" {
		t.Errorf("an evicted connection was written to: %q", c.output())
	}
}

// When the places are full, a newcomer under its share (the places over
// the addresses holding them) takes the place of the oldest connection
// of the address furthest over its share; an address at its share is
// refused. Catches a full listener that refuses every newcomer (issue 27:
// 20 addresses of slow bodies locked new clients out), an eviction from
// an address within its share, and a share that does not shrink as more
// addresses compete.
func TestConnsShareEvicts(t *testing.T) {
	fl := newFakeListener()
	l := inbound.LimitConns(fl, 4, 0)
	got := acceptor(t, l)
	var first []*fakeConn
	for range 4 {
		c := newFakeConn("10.0.0.1")
		first = append(first, c)
		fl.conns <- c
		admitted(t, got)
	}
	fl.conns <- newFakeConn("10.0.0.2") // share 4/2 = 2: takes 10.0.0.1's oldest
	admitted(t, got)
	evicted(t, first[0])
	again := newFakeConn("10.0.0.1") // 3 of a share of 2: refused
	fl.conns <- again
	refused(t, again)
	fl.conns <- newFakeConn("10.0.0.3") // share 4/3 = 1: 10.0.0.1 (3) is furthest over
	admitted(t, got)
	evicted(t, first[1])
	if l.Open() != 4 || l.OpenFrom(netip.MustParseAddr("10.0.0.1")) != 2 || l.Evicted() != 2 {
		t.Errorf("open %d, from 10.0.0.1 %d, evicted %d; want 4, 2, 2", l.Open(), l.OpenFrom(netip.MustParseAddr("10.0.0.1")), l.Evicted())
	}
	if total, perIP := l.Refused(); total != 1 || perIP != 0 {
		t.Errorf("refused total %d per_ip %d, want 1 and 0", total, perIP)
	}
	close(fl.conns)
}

// An address at its share (or its cap) gets a reserved place while one is
// free, at most ReservedPerAddress of them. Catches no reserve (a monitor
// behind the same address as the load locked out) and one address taking
// the whole reserve.
func TestConnsReserve(t *testing.T) {
	fl := newFakeListener()
	l := inbound.LimitConnsReserve(fl, 8, 2, 4)
	got := acceptor(t, l)
	for range 2 {
		fl.conns <- newFakeConn("10.0.0.1")
		admitted(t, got)
	}
	for range inbound.ReservedPerAddress {
		fl.conns <- newFakeConn("10.0.0.1") // at its cap: a reserved place
		admitted(t, got)
	}
	over := newFakeConn("10.0.0.1")
	fl.conns <- over
	refused(t, over)
	fl.conns <- newFakeConn("10.0.0.2")
	admitted(t, got)
	if l.Open() != 5 {
		t.Errorf("open %d, want 5", l.Open())
	}
	close(fl.conns)
}

// IPv6 clients are counted per /64, as the limits count them. Catches one
// subscriber taking the total by walking its block.
func TestConnsPerSlash64(t *testing.T) {
	fl := newFakeListener()
	l := inbound.LimitConns(fl, 10, 2)
	got := acceptor(t, l)
	fl.conns <- newFakeConn("2001:db8::1")
	admitted(t, got)
	fl.conns <- newFakeConn("2001:db8::2")
	admitted(t, got)
	third := newFakeConn("2001:db8::ffff:3")
	fl.conns <- third
	refused(t, third)
	fl.conns <- newFakeConn("2001:db8:0:1::1")
	admitted(t, got)
	if _, perIP := l.Refused(); perIP != 1 {
		t.Errorf("refused per_ip %d, want 1", perIP)
	}
	close(fl.conns)
}

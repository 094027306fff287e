package host_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The probe of issue 27 ("never locked out"): client addresses that hold
// the server's shared room (sessions, connections, the bucket of calls
// that touch no connector) must not lock out a client that comes later.
// Each test reproduces one finding through real HTTP against a Host, from
// many loopback addresses (127.0.0.x).

// TestLockoutSessionsHeldByHundredAddresses: 100 client addresses open
// 20 sessions each, 2,000 in all (server.max_sessions at its default), and
// keep them: the table is full. A new client from another address then
// initializes and calls a tool; the sessions' holders, opening more while
// it works, take only their own idle places. It catches a full table that
// answers every newcomer 503 for as long as the holders ping now and then
// (the probe: 40 addresses suffice), and an eviction that takes the
// newcomer's place again.
func TestLockoutSessionsHeldByHundredAddresses(t *testing.T) {
	if proofRace() {
		t.Skip("an end-to-end test over real sockets: its concurrency lives in the server packages, raced there; the plain run covers it and -race only makes it slow")
	}
	const addrs, each = 100, 20
	// The client limits off only to open 2,000 sessions quickly; the
	// holders could as well pace themselves under them.
	sh := startSessionsHost(t, `
[mcp_rate_limit]
enabled = false
`)
	url := sh.base + "/mcp/unified/v1"
	type holder struct {
		c    *http.Client
		sids []string
	}
	holders := make([]*holder, addrs)
	for i := range holders {
		holders[i] = &holder{c: clientFrom(t, fmt.Sprintf("127.0.0.%d", 10+i))}
	}
	var wg sync.WaitGroup
	var failed atomic.Int64
	for i := range holders {
		wg.Add(1)
		go func(h *holder) {
			defer wg.Done()
			for range each {
				r, err := sessPost(context.Background(), h.c, url, "", "", initialize("2025-06-18"))
				sid := r.header.Get("Mcp-Session-Id")
				if err != nil || r.status != 200 || sid == "" {
					failed.Add(1)
					continue
				}
				sessPost(context.Background(), h.c, url, sid, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				h.sids = append(h.sids, sid)
			}
		}(holders[i])
	}
	wg.Wait()
	if n := failed.Load(); n != 0 {
		t.Fatalf("%d of the holders' %d sessions were refused before the table was full", n, addrs*each)
	}
	if open := sumMetric(t, sh.base, "besluitbron_sessions_open", ""); open != addrs*each {
		t.Fatalf("sessions open %v, want %d (the table full)", open, addrs*each)
	}
	// The holders' keep-alive: a ping on every session.
	for _, h := range holders {
		for _, sid := range h.sids {
			if r, err := sessPost(context.Background(), h.c, url, sid, "", `{"jsonrpc":"2.0","id":9,"method":"ping"}`); err != nil || r.status != 200 {
				t.Fatalf("a holder's ping: %v %d", err, r.status)
			}
		}
	}

	// The newcomer.
	newcomer := clientFrom(t, "127.0.0.200")
	r, err := sessPost(context.Background(), newcomer, url, "", "", initialize("2025-06-18"))
	if err != nil || r.status != 200 {
		t.Fatalf("a new client while %d addresses hold %d sessions: %v %d %q", addrs, addrs*each, err, r.status, r.body)
	}
	cs := connectFrom(t, url, "127.0.0.200", false)
	// The holders try for more while the newcomer works: each must give
	// up one of its own idle sessions, not the newcomer's.
	for _, h := range holders {
		wg.Add(1)
		go func(h *holder) {
			defer wg.Done()
			for range 3 {
				sessPost(context.Background(), h.c, url, "", "", initialize("2025-06-18"))
			}
		}(h)
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": "woningbouw"}})
	if err != nil || res.IsError {
		t.Fatalf("the newcomer's tool call: %v %+v", err, res)
	}
	if open := sumMetric(t, sh.base, "besluitbron_sessions_open", ""); open > addrs*each {
		t.Errorf("sessions open %v: more than server.max_sessions (%d)", open, addrs*each)
	}
	evicted := sumMetric(t, sh.base, "besluitbron_sessions_evicted_total", "")
	if evicted < 2 {
		t.Errorf("sessions evicted %v: the newcomer's two sessions should each have taken an idle place", evicted)
	}
	// An evicted holder session answers 404 (the client initializes
	// again), not an error of a half-closed session.
	gone := 0
	for _, h := range holders {
		for _, sid := range h.sids {
			r, err := sessPost(context.Background(), h.c, url, sid, "", `{"jsonrpc":"2.0","id":10,"method":"ping"}`)
			switch {
			case err != nil:
				t.Fatalf("a holder's ping after the evictions: %v", err)
			case r.status == http.StatusNotFound:
				gone++
			case r.status != 200 || !strings.Contains(r.body, `"result"`):
				t.Errorf("a holder's ping after the evictions: %d %q", r.status, r.body)
			}
		}
	}
	t.Logf("%d addresses held %d sessions; the newcomer initialized (200) and called obv_search; %v idle sessions evicted, %d of the holders' first sessions gone (404)",
		addrs, addrs*each, evicted, gone)
	if gone == 0 || float64(gone) > evicted {
		t.Errorf("%d of the holders' sessions answer 404 with %v evicted", gone, evicted)
	}
}

// TestLockoutNoConnectorFloodSparesBystanders: one client address with
// eight sessions, each inside its own session limit, pings as fast as it
// can (calls that reach no connector), while 30 other addresses each
// initialize once, four a second. The bucket of those calls (connector_rps
// lowered to 20 so that the flood outruns it on any machine) is shared,
// but one address may spend at most its client limit of it (by default
// half the smaller shared limit), so every bystander's initialize is
// admitted. It catches the process-wide buckets spendable by one address
// (the probe: ~570 requests/s from one address refused 17–21 % of other
// clients' initialize and besluitbron_status).
func TestLockoutNoConnectorFloodSparesBystanders(t *testing.T) {
	if proofRace() {
		t.Skip("an end-to-end test over real sockets: its concurrency lives in the server packages, raced there; the plain run covers it and -race only makes it slow")
	}
	sh := startSessionsHost(t, `
[mcp_rate_limit]
connector_rps = 20
connector_burst = 40
`)
	url := sh.base + "/mcp/unified/v1"
	flooder := clientFrom(t, "127.0.0.1")
	var sids []string
	for range 8 {
		sids = append(sids, newSession(t, flooder, url, "2025-06-18"))
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var served, refusedFlood atomic.Int64
	for _, sid := range sids {
		wg.Add(1)
		go func(sid string) {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				r, err := sessPost(context.Background(), flooder, url, sid, "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
				switch {
				case err != nil:
				case r.status == 200:
					served.Add(1)
				default:
					refusedFlood.Add(1)
				}
			}
		}(sid)
	}
	start := time.Now()
	var refused []string
	const bystanders = 30
	for i := range bystanders {
		time.Sleep(250 * time.Millisecond)
		r, err := sessPost(context.Background(), clientFrom(t, fmt.Sprintf("127.0.0.%d", 50+i)), url, "", "", initialize("2025-06-18"))
		if err != nil || r.status != 200 {
			refused = append(refused, fmt.Sprintf("%v %d %s", err, r.status, r.body))
		}
	}
	close(stop)
	wg.Wait()
	took := time.Since(start)
	t.Logf("in %v the flooder's pings: %d served, %d refused (%.0f/s tried); bystanders' initialize: %d of %d refused",
		took.Round(time.Millisecond), served.Load(), refusedFlood.Load(), float64(served.Load()+refusedFlood.Load())/took.Seconds(), len(refused), bystanders)
	if refusedFlood.Load() == 0 {
		t.Fatalf("the flood was never refused: it did not outrun the limits, so the test proves nothing")
	}
	if len(refused) > 0 {
		t.Errorf("%d of %d bystanders' initialize refused under one address's flood, e.g. %s", len(refused), bystanders, refused[0])
	}
}

// slowBodyFrom is slowBody from the source address src.
func slowBodyFrom(t *testing.T, src, addr, path string) net.Conn {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("dial from %s: %v", src, err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", path, addr)
	return c
}

// TestLockoutSlowBodiesFromTwentyAddresses: 20 client addresses open 55
// connections each, 1,100 in all, that promise a request body and never
// send it (read_timeout 30 s, as the probe's waves): more than the 1,000
// places (server.max_connections). While they hold them, a new client
// initializes and calls a tool, /metrics answers another new address, and
// /metrics answers one of the flooding addresses too (on a reserved
// place), while an MCP request on a reserved place is refused. It catches
// a full listener that refuses every newcomer for as long as the wave
// lasts (the probe: 30 s per wave, /metrics included), and a reserve that
// is not kept or serves anything but monitoring.
func TestLockoutSlowBodiesFromTwentyAddresses(t *testing.T) {
	if proofRace() {
		t.Skip("an end-to-end test over real sockets: its concurrency lives in the server packages, raced there; the plain run covers it and -race only makes it slow")
	}
	const addrs, each = 20, 55
	srv := serveReal(t, fakeOBV(t, nil).URL, `read_timeout = "30s"
read_header_timeout = "5s"
`)
	for i := range addrs * each {
		slowBodyFrom(t, fmt.Sprintf("127.0.0.%d", 10+i%addrs), srv.addr, "/mcp/unified/v1")
	}
	// The listener has seen them all once 1,100 are counted: open, refused
	// (on accept, or on a reserved place) or closed to make room.
	watch := clientFrom(t, "127.0.0.250")
	waitFor(t, 20*time.Second, "every slow body accepted or refused", func() bool {
		open := srv.metric(t, watch, "besluitbron_http_connections_open")
		gone := srv.metric(t, watch, "besluitbron_http_connections_evicted_total")
		for _, reason := range []string{"total", "per_ip", "reserved"} {
			gone += srv.metric(t, watch, `besluitbron_http_connections_refused_total{reason="`+reason+`"}`)
		}
		return open+gone >= addrs*each
	})
	openBefore := srv.metric(t, watch, "besluitbron_http_connections_open")

	start := time.Now()
	cs := connectFrom(t, "http://"+srv.addr+"/mcp/unified/v1", "127.0.0.100", false)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": "woningbouw"}})
	if err != nil || res.IsError {
		t.Fatalf("the new client's tool call: %v %+v", err, res)
	}
	served := time.Since(start)
	if m := srv.metric(t, clientFrom(t, "127.0.0.101"), "besluitbron_http_connections_open"); m < 900 {
		t.Errorf("/metrics from a new address says %v connections open: the wave was not holding the places", m)
	}
	// A flooding address, over its share: /metrics on a reserved place.
	flooder := clientFrom(t, "127.0.0.10")
	mres, err := flooder.Get("http://" + srv.addr + "/metrics")
	if err != nil || mres.StatusCode != 200 {
		t.Fatalf("/metrics from a flooding address: %v %v", mres, err)
	}
	mres.Body.Close()
	// …but an MCP request there gets the 503.
	r, err := sessPost(context.Background(), flooder, "http://"+srv.addr+"/mcp/unified/v1", "", "", initialize("2025-06-18"))
	if err != nil || r.status != http.StatusServiceUnavailable {
		t.Errorf("an initialize from a flooding address, over its share: %v %d %q, want 503", err, r.status, r.body)
	}
	evicted := srv.metric(t, watch, "besluitbron_http_connections_evicted_total")
	t.Logf("%d slow bodies from %d addresses: %v held; the new client initialized and called obv_search in %v; %v slow bodies closed to make room; /metrics answered a new address and (reserved) a flooding one",
		addrs*each, addrs, openBefore, served.Round(time.Millisecond), evicted)
	if evicted < 1 {
		t.Errorf("no connection evicted, yet the new client was served while %v were open", openBefore)
	}
}

// TestMonitoringPathsGuarded: on the public address /metrics and
// /status/cluster.json answer a foreign Host on loopback 403 (as the
// pages do, against DNS rebinding) and the loopback one 200; with
// server.admin_addr the public address serves no /metrics and the admin
// listener serves /metrics, /healthz and /status/cluster.json. It catches
// the monitoring paths answering any Host (issue 27) and an admin_addr
// that is not served.
func TestMonitoringPathsGuarded(t *testing.T) {
	get := func(url, host string) int {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if host != "" {
			req.Host = host
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	up := fakeOBV(t, nil).URL
	pub := serveReal(t, up, "")
	for _, p := range []string{"/metrics", "/status/cluster.json"} {
		if st := get("http://"+pub.addr+p, "evil.example"); st != http.StatusForbidden {
			t.Errorf("%s with Host evil.example on loopback: %d, want 403", p, st)
		}
		if st := get("http://"+pub.addr+p, ""); st != 200 {
			t.Errorf("%s: %d, want 200", p, st)
		}
	}
	// A free port for the admin listener.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	admin := l.Addr().String()
	l.Close()
	split := serveReal(t, up, `admin_addr = "`+admin+`"`)
	if st := get("http://"+split.addr+"/metrics", ""); st != http.StatusNotFound {
		t.Errorf("public /metrics with server.admin_addr set: %d, want 404", st)
	}
	waitFor(t, 10*time.Second, "the admin listener serving", func() bool {
		c, err := net.Dial("tcp", admin)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	for _, p := range []string{"/metrics", "/healthz", "/status/cluster.json"} {
		if st := get("http://"+admin+p, "evil.example"); st != 200 {
			t.Errorf("admin %s: %d, want 200", p, st)
		}
	}
}

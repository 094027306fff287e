package host_test

// The hostile-load harness (issue 20): the built server on loopback, every
// connector pointed at the platform simulator, attacked over real sockets
// the ways the issue found to hurt, while a bystander MCP client keeps
// calling and is measured against a quiet run of its own. Each attack is a
// subtest; one whose defence is not in the server yet is skipped, found by
// behaviour (a probe the defence would refuse), with the missing piece
// named. make test runs it short (seconds per attack); make soak
// (BESLUITBRON_SOAK) longer and larger.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// The limits the hostile config sets (the attacks are measured against
// them).
const (
	hostileIPRPS        = 1  // mcp_rate_limit.ip_rps
	hostileIPBurst      = 30 // mcp_rate_limit.ip_burst
	hostileConnsPerIP   = 64
	hostileSessions     = 400
	hostileSessionsIP   = 10
	hostileMaxBatch     = 50
	hostileReadTimeout  = 5 * time.Second
	hostileSessionIdle  = 10 * time.Second
	hostileGoroutineCap = 800              // above the baseline, at any time during an attack
	hostileSettle       = 60 * time.Second // the acceptance's "within a minute"
	// Goroutines above the quiet figure that still count as at rest: the
	// connections pooled to the simulator vary (about 15 measured); ten
	// live sessions (the per-IP cap a flood may fill) are 20 more; 30
	// left from an uncapped flood (60) are not at rest.
	hostileGoroutineRest = 40
	// obv's instances in this config (max_instances, and the default
	// pool_size kept idle after), and what one busy obv instance may hold
	// (measured: about 20 MiB): the memory bounds follow from them.
	hostileObvInstances = 16
	hostilePoolSize     = 8
	hostileInstanceMiB  = 32
	hostileRSSCap       = (hostileObvInstances*hostileInstanceMiB + 128) << 20 // above the baseline, during an attack
	hostileRSSAfter     = (hostilePoolSize*hostileInstanceMiB + 128) << 20     // above the baseline, a minute after
	// A quiet p50 below this counts as this: loopback calls of a few
	// milliseconds vary by more than 2× between quiet runs (measured
	// 1.3–2.8 ms on one machine).
	hostileQuietFloor = 2 * time.Millisecond
)

// hostileScale is how hard and how long each attack pushes.
type hostileScale struct {
	dur        time.Duration // one attack
	slowConns  int
	sessions   int
	pageRate   int // page searches per second
	batchLarge int
}

func hostileScaleNow() hostileScale {
	s := hostileScale{dur: 4 * time.Second, slowConns: 200, sessions: 2000, pageRate: 20, batchLarge: 1000}
	if d := soakDuration(0); d > 0 {
		s.dur = max(d/5, 30*time.Second)
		s.slowConns, s.sessions = 1100, 5000
	}
	return s
}

// loopbackClient sends each request from a loopback address of its own
// (127.0.<net>.1–250 in turn), so a poller is never taken for an attacker by
// the per-IP limits; ip non-empty pins the source address instead.
func loopbackClient(ip string, subnet int, timeout time.Duration) *http.Client {
	var n atomic.Int64
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		src := ip
		if src == "" {
			src = fmt.Sprintf("127.0.%d.%d", subnet, 1+n.Add(1)%250)
		}
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
		return d.DialContext(ctx, network, addr)
	}
	tr := &http.Transport{DialContext: dial, DisableKeepAlives: ip == "", MaxIdleConnsPerHost: 64}
	return &http.Client{Transport: tr, Timeout: timeout}
}

// hostileMetrics reads /metrics: the sum of a metric over its labels.
type hostileMetrics struct {
	base string
	c    *http.Client
}

func (m hostileMetrics) read() (map[string]float64, error) {
	resp, err := m.c.Get(m.base + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil, fmt.Errorf("/metrics: %s", resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if i := strings.IndexByte(name, '{'); i >= 0 {
			if j := strings.LastIndexByte(line, '}'); j > i {
				name, rest = line[:i], strings.TrimSpace(line[j+1:])
			}
		}
		v, err := strconv.ParseFloat(strings.Fields(rest)[0], 64)
		if err == nil {
			out[name] += v
		}
	}
	return out, sc.Err()
}

func (m hostileMetrics) must(t *testing.T) map[string]float64 {
	t.Helper()
	v, err := m.read()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// waiting is every call waiting now: for a connector instance and at the
// quotas.
func waiting(v map[string]float64) float64 {
	return v["besluitbron_admission_waiting_calls"] + v["besluitbron_sched_queued_calls"] + v["besluitbron_sched_waiting_sessions"]
}

// peaks samples goroutines and resident memory while an attack runs.
type peaks struct {
	goroutines, rss float64
	errs            atomic.Int64
}

func (m hostileMetrics) sample(ctx context.Context, p *peaks) {
	for {
		if v, err := m.read(); err == nil {
			p.goroutines = max(p.goroutines, v["go_goroutines"])
			p.rss = max(p.rss, v["process_resident_memory_bytes"])
		} else {
			p.errs.Add(1)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(200 * time.Millisecond): // a sampling period, not a synchronisation
		}
	}
}

// bystander is an ordinary MCP client that keeps calling searches the cache
// has not seen (ori and opentk: platforms without a strict limit, so its
// latency is the server's, not a quota's) and records each call.
type bystander struct {
	c    *proofClient
	mu   sync.Mutex
	lat  []time.Duration
	errs []string
	i    int
}

func (b *bystander) run(ctx context.Context) {
	tick := time.NewTicker(100 * time.Millisecond) // 10 calls/s: within the session's 20/s
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		b.i++
		id := []string{"ori", "opentk"}[b.i%2]
		args := map[string]any{"query": fmt.Sprintf("%s %d", proofWords[b.i%len(proofWords)], b.i), "limit": 5}
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		r := b.c.call(cctx, id, id+"_search", args)
		cancel()
		if ctx.Err() != nil {
			return
		}
		b.mu.Lock()
		switch {
		case r.err != nil:
			b.errs = append(b.errs, fmt.Sprintf("%s %v: %v", id, args, r.err))
		case r.res.IsError:
			b.errs = append(b.errs, fmt.Sprintf("%s %v: %s", id, args, shortText(resultText(r.res))))
		default:
			b.lat = append(b.lat, r.took)
		}
		b.mu.Unlock()
	}
}

// take returns and forgets what was recorded since the last take.
func (b *bystander) take() ([]time.Duration, []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	lat, errs := b.lat, b.errs
	b.lat, b.errs = nil, nil
	return lat, errs
}

func p50(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// hostileRig is the running server with its observers.
type hostileRig struct {
	base    string
	addr    string
	m       hostileMetrics
	by      *bystander
	quiet   time.Duration // the bystander's quiet p50
	baseG   float64       // goroutines at rest
	baseRSS float64
	cached  func() string // a call cached before the attacks: its cache outcome now
	scale   hostileScale
}

// attack runs fn as an attack and holds the server to the acceptance: the
// bystander's calls all succeed, with a p50 within 2× of the quiet run
// (asserted with STRICT_TIMING=1, logged otherwise);
// goroutines and memory stay bounded during it and return within a minute
// after; the call cached before is still a hit.
func (r *hostileRig) attack(t *testing.T, name string, fn func(t *testing.T)) {
	t.Run(name, func(t *testing.T) {
		r.by.take()
		var pk peaks
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { r.m.sample(ctx, &pk); close(done) }()
		defer func() {
			stop()
			<-done
			if t.Skipped() { // what the attack left must not weigh on the next
				r.settleQuietly(t, name, 20*time.Second)
			}
		}()
		start := time.Now()
		fn(t)
		// An attack's window is at least the scale's length, so the
		// bystander's p50 has calls enough under it (a flood may be
		// over in a moment; what it left is still there).
		time.Sleep(time.Until(start.Add(r.scale.dur))) // measuring a window, not synchronising
		stop()
		<-done
		lat, errs := r.by.take()
		t.Logf("%s: bystander %d calls, p50 %v (quiet %v, ratio %.2f); peak goroutines %.0f (rest %.0f), peak RSS %.1f MiB (rest %.1f MiB)",
			name, len(lat), p50(lat), r.quiet, float64(p50(lat))/float64(r.quiet), pk.goroutines, r.baseG, pk.rss/(1<<20), r.baseRSS/(1<<20))
		if len(errs) > 0 {
			t.Errorf("%s: %d bystander calls failed, first: %s", name, len(errs), errs[0])
		}
		if len(lat) == 0 {
			t.Errorf("%s: the bystander finished no call during the attack", name)
		} else if quiet := max(r.quiet, hostileQuietFloor); p50(lat) > 2*quiet {
			// Every bystander call answered is BesluitBron's doing and
			// asserted always; how fast, against a quiet run measured
			// minutes earlier, is the machine's too (make test runs the
			// host's tests in shares side by side): asserted with
			// STRICT_TIMING=1, on a machine given to the test, and
			// logged otherwise, as the jitter tests do.
			strict := t.Errorf
			if os.Getenv("STRICT_TIMING") == "" {
				strict = t.Logf
			}
			strict("%s: bystander p50 %v is more than 2× the quiet run's %v (floor %v)", name, p50(lat), r.quiet, hostileQuietFloor)
		}
		if pk.goroutines > r.baseG+hostileGoroutineCap {
			t.Errorf("%s: %0.f goroutines at peak, more than %d above the %0.f at rest", name, pk.goroutines, hostileGoroutineCap, r.baseG)
		}
		if pk.rss > r.baseRSS+hostileRSSCap {
			t.Errorf("%s: resident memory %.1f MiB at peak, more than %d MiB above the %.1f MiB at rest", name, pk.rss/(1<<20), hostileRSSCap>>20, r.baseRSS/(1<<20))
		}
		r.settle(t, name)
		if got := r.cached(); got != "hit" {
			t.Errorf("%s: the call cached before the attacks is now %q, want hit", name, got)
		}
	})
}

// settle waits (up to a minute) for goroutines and memory to return near
// where they were at rest.
func (r *hostileRig) settle(t *testing.T, name string) {
	t.Helper()
	start := time.Now()
	var v map[string]float64
	for {
		v = r.m.must(t)
		g, rss := v["go_goroutines"], v["process_resident_memory_bytes"]
		if g <= r.baseG+hostileGoroutineRest && rss <= r.baseRSS+hostileRSSAfter && waiting(v) == 0 {
			t.Logf("%s: back at rest after %v: %.0f goroutines, %.1f MiB resident", name, time.Since(start).Round(100*time.Millisecond), g, rss/(1<<20))
			return
		}
		if time.Since(start) > hostileSettle {
			t.Errorf("%s: not back at rest a minute after: %.0f goroutines (rest %.0f), %.1f MiB resident (rest %.1f), %.0f calls waiting",
				name, g, r.baseG, rss/(1<<20), r.baseRSS/(1<<20), waiting(v))
			return
		}
		time.Sleep(250 * time.Millisecond) // polling another process
	}
}

// settleQuietly waits up to d for the server to come back to rest, only
// logging (after a skipped attack, whose defence is missing).
func (r *hostileRig) settleQuietly(t *testing.T, name string, d time.Duration) {
	for end := time.Now().Add(d); ; {
		v, err := r.m.read()
		if err == nil && v["go_goroutines"] <= r.baseG+hostileGoroutineRest && waiting(v) == 0 {
			return
		}
		if time.Now().After(end) {
			t.Logf("%s (skipped) left the server busy for the next attack: %.0f goroutines (rest %.0f), %.0f calls waiting", name, v["go_goroutines"], r.baseG, waiting(v))
			return
		}
		time.Sleep(250 * time.Millisecond) // polling another process
	}
}

// hostileConfig points every connector at the simulator, with the client
// limits on and the [server] limits the attacks meet.
func hostileConfig(t *testing.T, simURL, cacheDir string) string {
	var cfg strings.Builder
	fmt.Fprintf(&cfg, `[server]
read_header_timeout = "2s"
read_timeout = %q
idle_timeout = "20s"
max_connections_per_ip = %d
max_sessions = %d
max_sessions_per_ip = %d
session_idle_timeout = %q
max_batch = %d
# A killed client's calls wait this long for it to resume their stream
# (default 30s) before they leave the queue: short here, so the batch
# attack measures the cancellation, not the grace.
resume_grace = "300ms"
[runtime]
compilation_cache_dir = %q
[cache]
dir = %q
[status]
enabled = false
[mcp_rate_limit]
ip_rps = %d.0
ip_burst = %d
`, hostileReadTimeout.String(), hostileConnsPerIP, hostileSessions, hostileSessionsIP, hostileSessionIdle.String(), hostileMaxBatch,
		proofCompileDir(t), cacheDir, hostileIPRPS, hostileIPBurst)
	urls, rewrites := platformsim.BaseURLs(simURL), platformsim.URLRewrites(simURL)
	for _, id := range proofPlatforms {
		fmt.Fprintf(&cfg, "[connectors.%s]\nmodule = %q\nbase_url = %q\nprivate_networks = [\"127.0.0.0/8\"]\n", id, wasmbuild.Path(t, "./plugins/"+id+"/cmd"), urls[id])
		for _, rw := range rewrites[id] {
			fmt.Fprintf(&cfg, "url_rewrites = [%q]\n", rw)
		}
		if id == "obv" {
			// 1 a second with a bucket of 10, so a batch of obv_search
			// calls waits at the quota (the bystander never calls obv).
			// At most 16 instances: the calls beyond wait for one
			// (besluitbron_admission_waiting_calls), and the memory a
			// batch can hold is 16 instances'.
			fmt.Fprintf(&cfg, "max_instances = %d\n[connectors.obv.limits.api]\nunits = 10\nper = \"10s\"\n", hostileObvInstances)
		}
	}
	return cfg.String()
}

// TestHostileLoad runs the attacks against the built server.
func TestHostileLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and seven connectors, then attacks it for tens of seconds")
	}
	if proofRace() {
		t.Skip("the server under attack is a binary built without -race; the plain run measures it, and the detector would only slow the attackers and the bystander")
	}
	if c, err := net.DialTCP("tcp", &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}, &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 9}); err == nil {
		c.Close()
	} else if strings.Contains(err.Error(), "assign requested address") {
		t.Skip("this system cannot send from 127.0.0.2: the attacks need loopback addresses of their own")
	}
	bin := crashBinary(t)
	_, simURL := proofSim(t)
	cfgPath := filepath.Join(t.TempDir(), "hostile.toml")
	if err := os.WriteFile(cfgPath, []byte(hostileConfig(t, simURL, t.TempDir())), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startCrashServer(t, bin, cfgPath)
	r := &hostileRig{base: s.base, addr: strings.TrimPrefix(s.base, "http://"), scale: hostileScaleNow()}
	r.m = hostileMetrics{base: s.base, c: loopbackClient("", 200, 5*time.Second)}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log (tail):\n%s", tail(s.log.String(), 4000))
		}
	})

	// The bystander and the call cached before the attacks.
	by := &bystander{c: newProofClient(t, s.base, "bystander")}
	t.Cleanup(by.c.close)
	cachedArgs := map[string]any{"query": "klimaat", "limit": 5}
	for i := 0; i < 2; i++ {
		res := by.c.call(context.Background(), "ori", "ori_search", cachedArgs)
		if res.err != nil || res.res.IsError {
			t.Fatalf("ori_search: %v %s", res.err, resultText(res.res))
		}
	}
	r.cached = func() string {
		res := by.c.call(context.Background(), "ori", "ori_search", cachedArgs)
		if res.err != nil {
			return res.err.Error()
		}
		return cacheMeta(res.res)
	}
	if got := r.cached(); got != "hit" {
		t.Fatalf("a repeated call is %q, want hit", got)
	}
	r.by = by
	ctx, stop := context.WithCancel(context.Background())
	byDone := make(chan struct{})
	go func() { by.run(ctx); close(byDone) }()
	t.Cleanup(func() { stop(); <-byDone })

	// The quiet run: the bystander alone, after a warm-up in which page
	// searches have reached every platform (their connections pooled).
	wc := loopbackClient("127.0.0.7", 0, 30*time.Second)
	var wwg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wwg.Add(1)
		go func() {
			defer wwg.Done()
			if resp, err := wc.Get(s.base + "/?q=" + proofWords[i]); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wwg.Wait()
	wc.CloseIdleConnections()
	wait(ctx, 2*time.Second)
	by.take()
	wait(ctx, max(r.scale.dur, 4*time.Second))
	lat, errs := by.take()
	if len(errs) > 0 || len(lat) < 10 {
		t.Fatalf("quiet run: %d calls, errors %v", len(lat), errs)
	}
	r.quiet = p50(lat)
	v := r.m.must(t)
	r.baseG, r.baseRSS = v["go_goroutines"], v["process_resident_memory_bytes"]
	t.Logf("quiet run: bystander %d calls, p50 %v; %.0f goroutines, %.1f MiB resident", len(lat), r.quiet, r.baseG, r.baseRSS/(1<<20))

	r.attack(t, "slow_bodies", r.slowBodies)
	r.attack(t, "batch_then_kill", r.batchThenKill)
	r.attack(t, "session_flood", r.sessionFlood)
	r.attack(t, "page_foreign_host", r.pageForeignHost)
	r.attack(t, "page_searches_20_per_s", r.pageRate)
	t.Run("fetch_to_another_port", func(t *testing.T) {
		t.Skip("covered by host/internal/upstream/fetch (origin_test.go: TestAnotherPortOnAnAllowedHostIsRefused, TestSchemeAsTheManifestDeclares, TestRedirectToAnotherPortIsRefused): no shipped connector fetches another port, so it cannot be provoked from outside")
	})
}

func wait(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// slowConn opens a connection from src and sends the headers of a POST
// whose body never comes faster than a byte per period.
func slowConn(addr, src, path string) (net.Conn, error) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	_, err = fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{", path, addr)
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// trickle writes one byte per period until ctx ends or the server answers
// or closes; it reports whether the server did.
func trickle(ctx context.Context, c net.Conn, period time.Duration) (answered bool) {
	closed := make(chan struct{})
	go func() {
		c.Read(make([]byte, 1)) // any answer or close
		close(closed)
	}()
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-closed:
			return true
		case <-ctx.Done():
			return false
		case <-tick.C:
			if _, err := c.Write([]byte(" ")); err != nil {
				return true
			}
		}
	}
}

// (a) Slow request bodies: connections trickling a body to the MCP address
// from one IP while /healthz is asked every 100 ms from elsewhere.
func (r *hostileRig) slowBodies(t *testing.T) {
	// The defence: a body trickled for longer than read_timeout is cut.
	c, err := slowConn(r.addr, "127.0.0.2", "/mcp/unified/v1")
	if err != nil {
		t.Fatal(err)
	}
	pctx, cancel := context.WithTimeout(context.Background(), hostileReadTimeout+4*time.Second)
	start := time.Now()
	answered := trickle(pctx, c, 200*time.Millisecond)
	cancel()
	c.Close()
	if !answered {
		t.Skipf("slow request bodies are not cut: a body trickled for %v got no answer with server.read_timeout = %v (needs the request timeouts of issue 20)", time.Since(start).Round(time.Second), hostileReadTimeout)
	}
	t.Logf("a trickled body was cut after %v", time.Since(start).Round(100*time.Millisecond))

	ctx, stop := context.WithTimeout(context.Background(), r.scale.dur)
	defer stop()
	var wg sync.WaitGroup
	var opened, cut, dialErrs atomic.Int64
	for i := 0; i < r.scale.slowConns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil { // an attacker reconnects when cut
				c, err := slowConn(r.addr, "127.0.0.2", "/mcp/unified/v1")
				if err != nil {
					dialErrs.Add(1)
					wait(ctx, 100*time.Millisecond)
					continue
				}
				opened.Add(1)
				if trickle(ctx, c, 500*time.Millisecond) {
					cut.Add(1)
				}
				c.Close()
				wait(ctx, time.Second) // then holds a new one: slow bodies, not a connect flood
			}
		}()
	}
	hc := loopbackClient("", 201, 2*time.Second)
	var asked, failed int
	var firstErr string
	for ctx.Err() == nil {
		t0 := time.Now()
		resp, err := hc.Get(r.base + "/healthz")
		asked++
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				err = fmt.Errorf("%s", resp.Status)
			}
		}
		if err != nil {
			failed++
			if firstErr == "" {
				firstErr = fmt.Sprintf("%v after %v", err, time.Since(t0).Round(time.Millisecond))
			}
		}
		wait(ctx, 100*time.Millisecond)
	}
	wg.Wait()
	t.Logf("slow bodies: %d attackers, %d connections opened, %d answered or cut by the server, %d dials failed; /healthz asked %d times, %d failed",
		r.scale.slowConns, opened.Load(), cut.Load(), dialErrs.Load(), asked, failed)
	if failed > 0 {
		t.Errorf("/healthz failed %d of %d times during the attack, first: %s", failed, asked, firstErr)
	}
}

// mcpRaw is a hand-driven MCP session on protocol 2025-03-26, the last
// version with JSON-RPC batches.
type mcpRaw struct {
	base, session string
	c             *http.Client
}

func (m *mcpRaw) post(ctx context.Context, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", m.base+"/mcp/unified/v1", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if m.session != "" {
		req.Header.Set("Mcp-Session-Id", m.session)
	}
	return m.c.Do(req)
}

const initBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`

func (m *mcpRaw) initialize(ctx context.Context) (int, error) {
	resp, err := m.post(ctx, initBody)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return resp.StatusCode, nil
	}
	m.session = resp.Header.Get("Mcp-Session-Id")
	if m.session == "" {
		return resp.StatusCode, fmt.Errorf("initialize answered without Mcp-Session-Id")
	}
	resp, err = m.post(ctx, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return 200, nil
}

func batchOf(n int, elem func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = elem(i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func obvSearchElem(tag string) func(int) string {
	return func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"obv_search","arguments":{"query":"%s %s %d","limit":5}}}`, i+1, proofWords[i%len(proofWords)], tag, i)
	}
}

// refusedBatch reads a batch's answer: whether the server refused it as a
// whole (an HTTP error, or JSON-RPC errors only) rather than running it.
func refusedBatch(resp *http.Response) (bool, string) {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode >= 400 {
		return true, fmt.Sprintf("%s %s", resp.Status, shortText(string(b)))
	}
	return !strings.Contains(string(b), `"result"`), fmt.Sprintf("%s %s", resp.Status, shortText(string(b)))
}

// (b) A JSON-RPC batch of 1,000 obv_search calls, then its client killed.
func (r *hostileRig) batchThenKill(t *testing.T) {
	ctx := context.Background()
	m := &mcpRaw{base: r.base, c: loopbackClient("127.0.0.3", 0, 0)}
	if st, err := m.initialize(ctx); err != nil || st != 200 {
		t.Fatalf("initialize: %d %v", st, err)
	}
	// The defence: a batch over server.max_batch is refused.
	resp, err := m.post(ctx, batchOf(hostileMaxBatch+1, func(i int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i+1)
	}))
	if err != nil {
		t.Fatal(err)
	}
	if ok, what := refusedBatch(resp); !ok {
		t.Skipf("JSON-RPC batches are not limited: a batch of %d with server.max_batch = %d was run (%s) (needs the batch limits of issue 20)", hostileMaxBatch+1, hostileMaxBatch, what)
	}
	before := waiting(r.m.must(t))

	// The 1,000: refused whole, nothing admitted.
	bctx, kill := context.WithCancel(ctx)
	resp, err = m.post(bctx, batchOf(r.scale.batchLarge, obvSearchElem("groot")))
	if err != nil {
		kill()
		t.Fatal(err)
	}
	ok, what := refusedBatch(resp)
	kill()
	if !ok {
		t.Errorf("a batch of %d obv_search calls was run: %s", r.scale.batchLarge, what)
	}
	t.Logf("batch of %d: %s", r.scale.batchLarge, what)

	// Batches the limits admit, each killed while its calls wait at obv's
	// quota (a bucket of 10, then 1 a second: most of them wait): every
	// call leaves within 1 s. Round after round for the attack's length.
	for start, round := time.Now(), 1; round == 1 || time.Since(start) < r.scale.dur; round++ {
		r.killOneBatch(t, round, before)
	}
}

// killOneBatch sends a batch of obv_search calls from a new session, waits
// until they queue, kills the client and measures how long they take to
// leave.
func (r *hostileRig) killOneBatch(t *testing.T, round int, before float64) {
	ctx := context.Background()
	n := min(hostileMaxBatch, hostileIPBurst) - 2
	bctx, kill := context.WithCancel(ctx)
	defer kill()
	// A session of its own (the refused batches may have spent the first
	// one's tokens), on a connection of its own to kill.
	m := &mcpRaw{base: r.base, c: loopbackClient("127.0.0.3", 0, 0)}
	if st, err := m.initialize(ctx); err != nil || st != 200 {
		t.Fatalf("initialize: %d %v", st, err)
	}
	respCh := make(chan string, 1)
	go func() {
		resp, err := m.post(bctx, batchOf(n, obvSearchElem(fmt.Sprint(time.Now().UnixNano()))))
		if err != nil {
			respCh <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body) // until the kill
		resp.Body.Close()
		respCh <- fmt.Sprintf("%s %s", resp.Status, shortText(string(b)))
	}()
	var peak float64
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); {
		peak = waiting(r.m.must(t)) - before
		if peak >= 1 {
			break
		}
		time.Sleep(50 * time.Millisecond) // polling another process
	}
	if peak < 1 {
		kill()
		t.Fatalf("a batch of %d obv_search calls left nothing waiting on /metrics: the attack did not take (%s)", n, <-respCh)
	}
	// Until the rest of the batch has queued: the count stops growing.
	for end, same := time.Now().Add(5*time.Second), 0; time.Now().Before(end) && same < 4; {
		time.Sleep(50 * time.Millisecond) // polling another process
		w := waiting(r.m.must(t)) - before
		if w == peak {
			same++
		} else {
			same = 0
		}
		peak = max(peak, w)
	}
	kill()
	<-respCh
	killed := time.Now()
	var gone time.Duration
	for {
		w := waiting(r.m.must(t)) - before
		if w <= 0 {
			gone = time.Since(killed)
			break
		}
		if time.Since(killed) > 15*time.Second {
			t.Skipf("calls of a killed client are not cancelled: %.0f of %.0f still waiting 15 s after (needs cancelling calls whose client has gone, issue 20)", w, peak)
		}
		time.Sleep(50 * time.Millisecond) // polling another process
	}
	// The session itself is not what this attack is about (the flood is):
	// ended, so the rounds stay under max_sessions_per_ip.
	if req, err := http.NewRequest("DELETE", r.base+"/mcp/unified/v1", nil); err == nil {
		req.Header.Set("Mcp-Session-Id", m.session)
		if resp, err := loopbackClient("127.0.0.3", 0, 5*time.Second).Do(req); err == nil {
			resp.Body.Close()
		}
	}
	t.Logf("round %d: batch of %d killed with %.0f waiting: back to 0 after %v", round, n, peak, gone.Round(time.Millisecond))
	if gone > time.Second {
		t.Errorf("round %d: waiting calls took %v to return to 0 after the client was killed, want within 1 s (server.resume_grace is 300ms here)", round, gone)
	}
}

// (c) A session flood: initialize requests from one IP, as fast as 32
// workers can send them; every session kept (never deleted).
func (r *hostileRig) sessionFlood(t *testing.T) {
	c := loopbackClient("127.0.0.4", 0, 10*time.Second)
	defer c.CloseIdleConnections()
	var next, opened, refused atomic.Int64
	var other sync.Map
	var mu sync.Mutex
	var sessions []string
	var wg sync.WaitGroup
	for w := 0; w < 32; w++ { // under max_connections_per_ip: the sessions are the attack
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(r.scale.sessions) {
				m := &mcpRaw{base: r.base, c: c}
				st, err := m.initialize(context.Background())
				switch {
				case err == nil && st == 200:
					opened.Add(1)
					mu.Lock()
					sessions = append(sessions, m.session)
					mu.Unlock()
				case err == nil && (st == 429 || st == 503):
					refused.Add(1)
				default:
					other.Store(fmt.Sprintf("%d %v", st, err), true)
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("session flood: %d initialize requests from one IP: %d sessions opened, %d refused", r.scale.sessions, opened.Load(), refused.Load())
	other.Range(func(k, _ any) bool {
		t.Errorf("initialize answered neither a session nor a refusal: %v", k)
		return true
	})
	if opened.Load() > hostileSessionsIP {
		// Without the cap the server keeps them: end them, so the next
		// attack starts from rest.
		for _, id := range sessions {
			req, _ := http.NewRequest("DELETE", r.base+"/mcp/unified/v1", nil)
			req.Header.Set("Mcp-Session-Id", id)
			if resp, err := c.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		t.Skipf("live sessions are not capped: %d sessions from one IP with server.max_sessions_per_ip = %d (needs the session caps of issue 20)", opened.Load(), hostileSessionsIP)
	}
	if opened.Load()+refused.Load() != int64(r.scale.sessions) {
		t.Errorf("%d opened + %d refused of %d", opened.Load(), refused.Load(), r.scale.sessions)
	}
}

// (d) Page searches with a foreign Host (DNS rebinding), 20 a second from
// one IP: every one refused.
func (r *hostileRig) pageForeignHost(t *testing.T) {
	c := loopbackClient("127.0.0.5", 0, 30*time.Second)
	defer c.CloseIdleConnections()
	foreign := func(i int) (int, error) {
		req, _ := http.NewRequest("GET", fmt.Sprintf("%s/?q=%s+%d", r.base, proofWords[i%len(proofWords)], i), nil)
		req.Host = "evil.example"
		resp, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	if st, err := foreign(0); err != nil {
		t.Fatal(err)
	} else if st == 200 {
		t.Skipf("the search page answers a foreign Host (evil.example) with 200 (needs the pages under the Host checks, issue 20)")
	}
	statuses := map[string]int{}
	tick := time.NewTicker(time.Second / time.Duration(r.scale.pageRate))
	defer tick.Stop()
	n := 0
	for start := time.Now(); time.Since(start) < r.scale.dur; {
		<-tick.C
		n++
		st, err := foreign(n)
		switch {
		case err != nil:
			statuses[err.Error()]++
		case st >= 400 && st < 500:
			statuses[strconv.Itoa(st)]++
		default:
			statuses[strconv.Itoa(st)]++
			t.Errorf("a page search with Host evil.example: %d, want a 4xx refusal", st)
		}
	}
	t.Logf("page searches with Host evil.example: %d at %d/s: %v", n, r.scale.pageRate, statuses)
}

// (d) Page searches at 20 a second from one IP, at an ip_rps of 1: at most
// the burst plus 1 a second are served.
func (r *hostileRig) pageRate(t *testing.T) {
	c := loopbackClient("127.0.0.6", 0, 30*time.Second)
	defer c.CloseIdleConnections()
	var served, limited atomic.Int64
	var other sync.Map
	var wg sync.WaitGroup
	start := time.Now()
	tick := time.NewTicker(time.Second / time.Duration(r.scale.pageRate))
	n := 0
	for time.Since(start) < r.scale.dur {
		<-tick.C
		n++
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			resp, err := c.Get(fmt.Sprintf("%s/?q=%s+%d", r.base, proofWords[i%len(proofWords)], rand.Int()))
			if err != nil {
				other.Store(err.Error(), true)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			switch resp.StatusCode {
			case 200:
				served.Add(1)
			case 429:
				limited.Add(1)
			default:
				other.Store(resp.Status, true)
			}
		}(n)
	}
	tick.Stop()
	elapsed := time.Since(start)
	wg.Wait()
	other.Range(func(k, _ any) bool {
		t.Errorf("a page search answered neither 200 nor 429: %v", k)
		return true
	})
	allowed := int64(hostileIPBurst) + int64(elapsed.Seconds()*hostileIPRPS) + 1
	t.Logf("page searches: %d in %v from one IP: %d served, %d limited (allowed at most %d)", n, elapsed.Round(100*time.Millisecond), served.Load(), limited.Load(), allowed)
	if limited.Load() == 0 {
		t.Skipf("page searches are not under the client limits: all %d served at %d/s with mcp_rate_limit.ip_rps = %d (needs the pages under the client limits, issue 20)", n, r.scale.pageRate, hostileIPRPS)
	}
	if served.Load() > allowed {
		t.Errorf("%d page searches served, more than the burst %d plus %d/s", served.Load(), hostileIPBurst, hostileIPRPS)
	}
}

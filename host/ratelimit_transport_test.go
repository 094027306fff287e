package host_test

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Without trusted proxies, X-Forwarded-For and Forwarded change nothing:
// a client forging a new address per request still meets its own bucket.
func TestForgedForwardedForIgnored(t *testing.T) {
	lh := startLimited(t, "[mcp_rate_limit]\nip_rps = 1\nip_burst = 3\n")
	url := lh.base + "/mcp/unified/v1"
	c := clientFrom(t, "127.0.0.2")
	for i := range 6 {
		res, body := rawPing(t, c, url, "", "X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i), "Forwarded", fmt.Sprintf("for=203.0.113.%d", i))
		if i < 3 {
			if res.StatusCode == 429 {
				t.Fatalf("request %d refused: %s", i, body)
			}
			continue
		}
		if r := readRefusal(t, res, body); r.Layer != "ip" {
			t.Errorf("request %d: %+v, want an ip refusal", i, r)
		}
	}
	// Another real address is unaffected.
	if res, body := rawPing(t, clientFrom(t, "127.0.0.3"), url, ""); res.StatusCode == 429 {
		t.Errorf("other client refused: %s", body)
	}
}

// Behind a trusted proxy, the address the proxy appended counts; what the
// client put before it does not.
func TestTrustedProxyForwardedFor(t *testing.T) {
	lh := startLimited(t, "[server]\ntrusted_proxies = ['127.0.0.0/8']\n[mcp_rate_limit]\nip_rps = 1\nip_burst = 3\n")
	url := lh.base + "/mcp/unified/v1"
	proxy := clientFrom(t, "127.0.0.2")
	// Ten clients behind the proxy: each has its own bucket.
	for i := range 10 {
		if res, body := rawPing(t, proxy, url, "", "X-Forwarded-For", fmt.Sprintf("198.51.100.%d", i)); res.StatusCode == 429 {
			t.Fatalf("client %d refused: %s", i, body)
		}
	}
	// One client forging a fresh leftmost entry each time: the proxy's
	// entry (the rightmost) is the same, so the fourth is refused.
	for i := range 4 {
		res, body := rawPing(t, proxy, url, "", "X-Forwarded-For", fmt.Sprintf("6.6.6.%d, 203.0.113.9", i))
		if i == 3 {
			if r := readRefusal(t, res, body); r.Layer != "ip" {
				t.Errorf("%+v", r)
			}
		} else if res.StatusCode == 429 {
			t.Fatalf("request %d refused: %s", i, body)
		}
	}
}

func TestOriginChecked(t *testing.T) {
	lh := startLimited(t, "[server]\nallowed_origins = ['https://chat.example.org']\n")
	url := lh.base + "/mcp/unified/v1"
	c := clientFrom(t, "127.0.0.2")
	res, body := rawPing(t, c, url, "", "Origin", "https://evil.example")
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "server.allowed_origins") || !strings.Contains(body, "https://evil.example") {
		t.Errorf("foreign origin: %s %s", res.Status, body)
	}
	if res, body := rawPing(t, c, url, "", "Origin", "https://chat.example.org"); res.StatusCode == http.StatusForbidden {
		t.Errorf("listed origin refused: %s", body)
	}
	if res, body := rawPing(t, c, url, ""); res.StatusCode == http.StatusForbidden {
		t.Errorf("no Origin refused: %s", body)
	}
	if got := metric(t, lh.base, "besluitbron_mcp_origin_refused_total"); got != 1 {
		t.Errorf("origin refusals %v", got)
	}
}

func TestBodyCapped(t *testing.T) {
	lh := startLimited(t, "[server]\nmax_body_kb = 1\n")
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2048) + `"}}`
	req, _ := http.NewRequest(http.MethodPost, lh.base+"/mcp/unified/v1", strings.NewReader(big))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("2 KiB body with max_body_kb = 1: %s %s", res.Status, b)
	}
}

// floodSize is the number of distinct clients in the flood test, five
// times the 20 000-bucket cap.
const floodSize = 100_000

// A flood of distinct client addresses, each with an invented session id,
// every one admitted: the limits hold at most their cap of buckets and no
// session at all, whatever the flood's size.
func TestFloodOfDistinctClientsIsBounded(t *testing.T) {
	if proofRace() {
		t.Skip("tens of thousands of sequential requests (half a minute under -race); the buckets' concurrency is raced in host/internal/serve/inbound (TestFloodIsBounded, TestHammer), the plain run floods the whole server")
	}
	lh := startLimited(t, `
[server]
trusted_proxies = ["127.0.0.0/8"]
[mcp_rate_limit]
process_rps = 1e9
process_burst = 1000000000
connector_rps = 1e9
connector_burst = 1000000000
`)
	url := lh.base + "/mcp/unified/v1"
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	const workers = 4
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clientFrom(t, "127.0.0.2")
			seen := map[int]int{}
			for i := w; i < floodSize; i += workers {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Session-Id", fmt.Sprintf("invented-%d", i))
				req.Header.Set("X-Forwarded-For", fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
				res, err := c.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				seen[res.StatusCode]++
			}
			mu.Lock()
			for k, v := range seen {
				statuses[k] += v
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	after := heap()
	if statuses[http.StatusNotFound] != floodSize {
		t.Fatalf("statuses %v: want every request admitted and answered 404 (unknown session)", statuses)
	}
	peakIPs := metric(t, lh.base, `besluitbron_mcp_rate_limit_buckets_peak{kind="ip"}`)
	peakSessions := metric(t, lh.base, `besluitbron_mcp_rate_limit_buckets_peak{kind="session"}`)
	grown := (int64(after) - int64(before)) >> 10
	t.Logf("flood of %d distinct addresses and session ids: peak %v IP buckets, %v session buckets; heap grew %d KiB", floodSize, peakIPs, peakSessions, grown)
	if peakIPs > 20000 || peakSessions != 0 {
		t.Errorf("peak %v IP and %v session buckets; want ≤ 20000 and 0", peakIPs, peakSessions)
	}
	if grown > 32<<10 {
		t.Errorf("heap grew %d KiB over the flood", grown)
	}
}

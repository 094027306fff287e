package host_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A client flooding its session gets 429s with a correct Retry-After,
// while a second client on another session and another IP is served
// without a single refusal; waiting Retry-After, the flooder gets in.
func TestFloodingClientRefusedBystanderServed(t *testing.T) {
	lh := startLimited(t, `
[mcp_rate_limit]
process_rps = 1000
process_burst = 1000
connector_rps = 1000
connector_burst = 1000
session_rps = 0.4
session_burst = 10
ip_rps = 1
ip_burst = 10
`)
	url := lh.base + "/mcp/unified/v1"
	flooder := connectFrom(t, url, "127.0.0.2", false) // initialize: IP; initialized: session (1 of 10)
	bystander := connectFrom(t, url, "127.0.0.3", true)
	fc := clientFrom(t, "127.0.0.2")

	var ok, refused int
	for round := range 5 {
		for range 10 {
			res, body := rawPing(t, fc, url, flooder.ID())
			if res.StatusCode == http.StatusOK {
				ok++
				continue
			}
			r := readRefusal(t, res, body)
			refused++
			// 0.4 tokens a second from empty: 2.5 s, announced as 3.
			if r.Layer != "session" || r.RetryAfter != 3 || r.BodyRetry != 3 || !strings.Contains(r.Message, "session limit (0.4 requests per second, burst 10)") {
				t.Fatalf("refusal %+v", r)
			}
		}
		if err := bystander.Ping(context.Background(), nil); err != nil {
			t.Fatalf("round %d: the bystander was refused: %v", round, err)
		}
	}
	if ok != 9 || refused != 41 {
		t.Errorf("flooder: %d served, %d refused; want 9 and 41 (burst 10, one spent on initialized)", ok, refused)
	}
	// The go-sdk client itself sees the 429 as a rejected call.
	if err := flooder.Ping(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
		t.Errorf("go-sdk client ping: %v, want a Too Many Requests rejection", err)
	}
	refused++
	if got := metric(t, lh.base, `besluitbron_mcp_rate_limited_total{layer="session"}`); got != float64(refused) {
		t.Errorf("metric: %v session refusals, want %d", got, refused)
	}

	// Two seconds are not enough, Retry-After is.
	lh.clock.Advance(2 * time.Second)
	if res, body := rawPing(t, fc, url, flooder.ID()); res.StatusCode != 429 || readRefusal(t, res, body).RetryAfter != 1 {
		t.Errorf("after 2 s: %s %s", res.Status, body)
	}
	lh.clock.Advance(time.Second)
	if res, body := rawPing(t, fc, url, flooder.ID()); res.StatusCode != http.StatusOK {
		t.Errorf("after waiting Retry-After: %s %s", res.Status, body)
	}
	// And the go-sdk session is still usable once the bucket refills.
	lh.clock.Advance(3 * time.Second)
	if err := flooder.Ping(context.Background(), nil); err != nil {
		t.Errorf("flooder after its wait: %v", err)
	}
}

// Pressure on one connector's address leaves the other connectors'
// clients untouched: the bucket is the connector's, on every address, and
// the calls that touch no connector have their own.
func TestRateLimitConnectorPressureStaysOnItsConnector(t *testing.T) {
	lh := startLimited(t, `
[mcp_rate_limit]
process_rps = 1000
process_burst = 1000
connector_rps = 1
connector_burst = 12
# one address may spend the whole connector bucket: the layer under test
client_rps = 1000
client_burst = 1000
session_rps = 1000
session_burst = 1000
ip_rps = 1000
ip_burst = 1000
`)
	obv := lh.base + "/mcp/obv/v1"
	unified := lh.base + "/mcp/unified/v1"
	cs := connectFrom(t, obv, "127.0.0.2", false) // 2 of obv's 12: initialize, initialized
	c := clientFrom(t, "127.0.0.2")
	var refusals int
	for range 30 {
		res, body := rawPing(t, c, obv, cs.ID())
		if res.StatusCode == 429 {
			if r := readRefusal(t, res, body); r.Layer != "connector" || r.RetryAfter != 1 || !strings.Contains(r.Message, "the connector obv limit (1 requests per second, burst 12)") {
				t.Fatalf("refusal %+v", r)
			}
			refusals++
		}
	}
	if refusals != 20 {
		t.Errorf("%d refusals on /mcp/obv/v1, want 20 (burst 12, 2 spent connecting)", refusals)
	}
	// Another client of the same address is refused too: the bucket is the
	// connector's, not the session's.
	if res, _ := rawPing(t, clientFrom(t, "127.0.0.4"), obv, ""); res.StatusCode != 429 {
		t.Errorf("new client on the flooded address: %s, want 429", res.Status)
	}
	// On the unified address, what touches no connector does not notice:
	// its own bucket of 12 holds the connect (2), the standalone stream (1)
	// and eight calls…
	other := connectFrom(t, unified, "127.0.0.3", true)
	for i := range 8 {
		if _, err := other.ListTools(context.Background(), nil); err != nil {
			t.Fatalf("unified client, call %d: %v", i, err)
		}
	}
	// …while a call of an obv tool there meets obv's empty bucket.
	if _, err := other.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": "x"}}); err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
		t.Errorf("obv_search on the unified address: %v, want obv's refusal", err)
	}
	if got := metric(t, lh.base, `besluitbron_mcp_rate_limited_total{layer="connector"}`); got != 22 {
		t.Errorf("connector refusals %v, want 22", got)
	}
	if got := metric(t, lh.base, `besluitbron_mcp_rate_limited_connector_total{connector="obv"}`); got != 22 {
		t.Errorf("obv refusals %v, want 22", got)
	}
}

// The process limit caps the sum over all clients, each well inside its
// own limits.
func TestProcessLimitCapsTheSum(t *testing.T) {
	lh := startLimited(t, `
[mcp_rate_limit]
process_rps = 1
process_burst = 40
connector_rps = 1000
connector_burst = 1000
session_rps = 1000
session_burst = 1000
ip_rps = 1000
ip_burst = 1000
`)
	url := lh.base + "/mcp/unified/v1"
	type client struct {
		http *http.Client
		id   string
	}
	var clients []client
	for i := range 10 { // 10 × 2 requests to connect (initialize, initialized)
		src := "127.0.1." + string(rune('1'+i))
		clients = append(clients, client{clientFrom(t, src), connectFrom(t, url, src, false).ID()})
	}
	admitted, refused := 0, 0
	for range 10 {
		for _, c := range clients {
			res, body := rawPing(t, c.http, url, c.id)
			switch res.StatusCode {
			case http.StatusOK:
				admitted++
			default:
				if r := readRefusal(t, res, body); r.Layer != "process" {
					t.Fatalf("refusal %+v, want the process layer", r)
				}
				refused++
			}
		}
	}
	if admitted != 20 || refused != 80 {
		t.Errorf("admitted %d, refused %d; want 20 (burst 40 less 20 for connecting) and 80", admitted, refused)
	}
	lh.clock.Advance(5 * time.Second)
	admitted = 0
	for _, c := range clients {
		if res, _ := rawPing(t, c.http, url, c.id); res.StatusCode == http.StatusOK {
			admitted++
		}
	}
	if admitted != 5 {
		t.Errorf("after 5 s at 1/s: %d admitted, want 5", admitted)
	}
}

// With the limits switched off nothing is refused.
func TestLimitsOff(t *testing.T) {
	lh := startLimited(t, "[mcp_rate_limit]\nenabled = false\nip_rps = 1\nip_burst = 1\nsession_rps = 1\nsession_burst = 1\n")
	url := lh.base + "/mcp/unified/v1"
	cs := connectFrom(t, url, "127.0.0.2", true)
	c := clientFrom(t, "127.0.0.2")
	for i := range 50 {
		if res, body := rawPing(t, c, url, cs.ID()); res.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %s %s", i, res.Status, body)
		}
	}
}

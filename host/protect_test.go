package host_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// limitedHost is a Host behind real HTTP whose client limits read a
// frozen fake clock: buckets refill only when the test says so. The hosts
// share the package's wazero compilation cache (proofCompileDir), so only
// the first compiles the module.
type limitedHost struct {
	h     *host.Host
	base  string
	clock *schedtest.Clock
}

func startLimited(t *testing.T, extra string) *limitedHost {
	t.Helper()
	clk := schedtest.NewClock(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
	lh := startHostClock(t, extra, clk)
	lh.clock = clk
	return lh
}

// startHostClock starts a Host whose schedulers and limits read clk (nil:
// the real clock).
func startHostClock(t *testing.T, extra string, clk sched.Clock) *limitedHost {
	t.Helper()
	up := fakeOBV(t, nil)
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	cfg, err := host.LoadConfig(writeConfig(t, `
[runtime]
compilation_cache_dir = "`+proofCompileDir(t)+`"
[connectors.obv]
module = "`+wasm+`"
base_url = "`+up.URL+`"
private_networks = ["127.0.0.0/8"]
pool_size = 2
`+extra), []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: "9.9.9-test", Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	return &limitedHost{h: h, base: srv.URL}
}

// clientFrom is an HTTP client whose connections come from src, one of
// the loopback addresses: a distinct client IP without any proxy.
func clientFrom(t *testing.T, src string) *http.Client {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	tr := &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 16}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// connectFrom opens an MCP session with the go-sdk client from src.
// Without the standalone SSE stream the client sends exactly three
// requests (server/discover, then initialize and notifications/initialized:
// the first two without a session, so on the IP's bucket), so tests can
// count tokens.
func connectFrom(t *testing.T, url, src string, standaloneSSE bool) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: url, HTTPClient: clientFrom(t, src), DisableStandaloneSSE: !standaloneSSE, MaxRetries: -1,
	}, legacyClient)
	if err != nil {
		t.Fatalf("connect %s from %s: %v", url, src, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

var rpcID atomic.Int64

// rawPing sends one JSON-RPC ping over plain HTTP, reads the whole answer
// and returns the response (its body replaced by what was read).
func rawPing(t *testing.T, c *http.Client, url, session string, header ...string) (*http.Response, string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, rpcID.Add(1))
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// refusal is what a 429 says.
type refusal struct {
	Layer      string
	RetryAfter int // the header
	BodyRetry  int // the JSON-RPC error's data
	Message    string
}

func readRefusal(t *testing.T, res *http.Response, body string) refusal {
	t.Helper()
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %s, want 429", res.Status)
	}
	var m struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				Limit             string `json:"limit"`
				RetryAfterSeconds int    `json:"retryAfterSeconds"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("429 body %q: %v", body, err)
	}
	ra, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if err != nil || ra < 1 {
		t.Fatalf("Retry-After %q: want whole seconds ≥ 1", res.Header.Get("Retry-After"))
	}
	return refusal{Layer: m.Error.Data.Limit, RetryAfter: ra, BodyRetry: m.Error.Data.RetryAfterSeconds, Message: m.Error.Message}
}

// metric reads one sample from /metrics, e.g.
// `besluitbron_mcp_rate_limited_total{layer="session"}`.
func metric(t *testing.T, base, sample string) float64 {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), sample+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("/metrics has no %s", sample)
	return 0
}

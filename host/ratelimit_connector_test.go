package host_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/syncbuf"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// fakeRechtspraak serves the recorded value list of courts.
func fakeRechtspraak(t *testing.T) *httptest.Server {
	t.Helper()
	courts, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "testdata", "rechtspraak", "rechtspraak-waardelijst-instanties.xml"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/Waardelijst/Instanties") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		w.Write(courts)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// twoConnectorHost is obv and rechtspraak behind real HTTP, their client
// limits on a frozen clock, the log (JSON) in log.
type twoConnectorHost struct {
	*limitedHost
	log *syncbuf.Buffer
}

func startTwoConnectors(t *testing.T, extra string) *twoConnectorHost {
	t.Helper()
	obvWasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	rsWasm := wasmbuild.Path(t, "./plugins/rechtspraak/cmd")
	cfg, err := host.LoadConfig(writeConfig(t, `
[runtime]
compilation_cache_dir = "`+proofCompileDir(t)+`"
[status]
enabled = false
[connectors.obv]
module = "`+obvWasm+`"
base_url = "`+fakeOBV(t, nil).URL+`"
private_networks = ["127.0.0.0/8"]
[connectors.rechtspraak]
module = "`+rsWasm+`"
base_url = "`+fakeRechtspraak(t).URL+`"
private_networks = ["127.0.0.0/8"]
`+extra), []string{})
	if err != nil {
		t.Fatal(err)
	}
	clk := schedtest.NewClock(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC))
	logs := &syncbuf.Buffer{}
	h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: "9.9.9-test", Clock: clk,
		Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	return &twoConnectorHost{&limitedHost{h: h, base: srv.URL, clock: clk}, logs}
}

// legacyFrom opens an HTTP+SSE session (protocol 2024-11-05) with the
// go-sdk client over hc.
func legacyFrom(t *testing.T, url string, hc *http.Client) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "legacy", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.SSEClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("connect %s over HTTP+SSE: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func searchOBV(cs *mcp.ClientSession, query string) error {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": query}})
	if err == nil && res.IsError {
		err = fmt.Errorf("tool error: %s", text(res))
	}
	return err
}

func listCourts(cs *mcp.ClientSession) error {
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "rechtspraak_list_courts", Arguments: map[string]any{}})
	if err == nil && res.IsError {
		err = fmt.Errorf("tool error: %s", text(res))
	}
	return err
}

// A flood of obv calls on the unified address, refused by obv's limit,
// refuses not one rechtspraak call of another session on the same
// address, nor its connector-less requests; the obv bucket is the same on
// /sse and on /mcp/obv/v1, and rechtspraak's own address is untouched.
func TestRateLimitOBVFloodSparesRechtspraakOnUnified(t *testing.T) {
	th := startTwoConnectors(t, `
[mcp_rate_limit]
connector_rps = 1
connector_burst = 100
# one address may spend the whole connector bucket: the layer under test
client_rps = 1000
client_burst = 1000
session_rps = 1000
session_burst = 1000
`)
	unified := th.base + "/mcp/unified/v1"
	flooder := connectFrom(t, unified, "127.0.0.2", false)
	var served, refused int
	for i := range 130 {
		switch err := searchOBV(flooder, "begroting"); {
		case err == nil:
			served++
		case strings.Contains(err.Error(), "Too Many Requests"):
			refused++
		default:
			t.Fatalf("obv call %d: %v", i, err)
		}
	}
	if served != 100 || refused != 30 {
		t.Fatalf("flood: %d served, %d refused; want obv's burst of 100, then 30 refusals", served, refused)
	}
	// The refusal names the connector and says when to come back.
	res, body := rawCall(t, clientFrom(t, "127.0.0.2"), unified, flooder.ID(), "obv_search", `{"query":"begroting"}`)
	if r := readRefusal(t, res, body); r.Layer != "connector" || r.RetryAfter != 1 || !strings.Contains(r.Message, "the connector obv limit (1 requests per second, burst 100)") {
		t.Errorf("refusal %+v", r)
	}

	// Another session on the same address: every rechtspraak call and
	// connector-less request is served (the latter from a bucket of their
	// own, 100 too, which the flood did not touch).
	victim := connectFrom(t, unified, "127.0.0.3", true)
	for i := range 10 {
		if err := listCourts(victim); err != nil {
			t.Fatalf("rechtspraak call %d beside the obv flood: %v", i, err)
		}
		if _, err := victim.ListTools(context.Background(), nil); err != nil {
			t.Fatalf("tools/list %d beside the obv flood: %v", i, err)
		}
	}
	// An HTTP+SSE client at /sse: the same.
	legacy := legacyFrom(t, th.base+"/sse", clientFrom(t, "127.0.0.4"))
	if err := listCourts(legacy); err != nil {
		t.Errorf("rechtspraak over /sse: %v", err)
	}
	// obv's bucket is obv's on every address, for every session.
	if err := searchOBV(victim, "begroting"); err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
		t.Errorf("victim's obv call: %v, want obv's refusal", err)
	}
	if err := searchOBV(legacy, "begroting"); err == nil || !strings.Contains(err.Error(), "429") {
		t.Errorf("obv over /sse: %v, want obv's refusal", err)
	}
	if res, body := rawCall(t, clientFrom(t, "127.0.0.5"), th.base+"/mcp/obv/v1", "", "obv_search", `{"query":"x"}`); res.StatusCode != 429 ||
		!strings.Contains(readRefusal(t, res, body).Message, "connector obv") {
		t.Errorf("/mcp/obv/v1: %s %s", res.Status, body)
	}
	rs := connectFrom(t, th.base+"/mcp/rechtspraak/v1", "127.0.0.6", false)
	if err := listCourts(rs); err != nil {
		t.Errorf("/mcp/rechtspraak/v1: %v", err)
	}
	if got := metric(t, th.base, `besluitbron_mcp_rate_limited_connector_total{connector="rechtspraak"}`); got != 0 {
		t.Errorf("rechtspraak refusals %v, want 0", got)
	}
	if got := metric(t, th.base, `besluitbron_mcp_rate_limited_connector_total{connector="besluitbron"}`); got != 0 {
		t.Errorf("connector-less refusals %v, want 0", got)
	}
	if got := metric(t, th.base, `besluitbron_mcp_rate_limited_connector_total{connector="obv"}`); got != 34 {
		t.Errorf("obv refusals %v, want 34", got)
	}
	// A second later obv has a token again.
	th.clock.Advance(time.Second)
	if err := searchOBV(flooder, "begroting"); err != nil {
		t.Errorf("after Retry-After: %v", err)
	}
}

// rawCall sends one tools/call over plain HTTP and returns the response
// with what it read.
func rawCall(t *testing.T, c *http.Client, url, session, tool, args string) (*http.Response, string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, rpcID.Add(1), tool, args)
	return rawPost(t, c, url, body, "Mcp-Session-Id", session)
}

// rawPost posts one JSON-RPC body (headers with empty values are left
// out) and returns the response with what it read.
func rawPost(t testing.TB, c *http.Client, url, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] != "" {
			req.Header.Set(header[i], header[i+1])
		}
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// The old address_* keys still start the host, as the connector limit,
// with one deprecation line in the log.
func TestRateLimitAddressKeysStillRead(t *testing.T) {
	th := startTwoConnectors(t, `
[mcp_rate_limit]
address_rps = 1
address_burst = 3
# one address may spend the whole connector bucket: the layer under test
client_rps = 1000
client_burst = 1000
`)
	c := clientFrom(t, "127.0.0.2")
	for i := range 4 {
		res, body := rawCall(t, c, th.base+"/mcp/obv/v1", "", "obv_search", `{"query":"x"}`)
		if i < 3 {
			if res.StatusCode == 429 {
				t.Fatalf("call %d refused: %s", i, body)
			}
			continue
		}
		if r := readRefusal(t, res, body); !strings.Contains(r.Message, "the connector obv limit (1 requests per second, burst 3)") {
			t.Errorf("refusal %+v", r)
		}
	}
	if n := strings.Count(th.log.String(), "mcp_rate_limit.address_rps is deprecated: use connector_rps"); n != 1 {
		t.Errorf("%d deprecation lines, want 1:\n%s", n, th.log.String())
	}
}

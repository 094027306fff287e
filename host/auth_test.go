package host_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// The named clients' API keys in these tests, and their sha256.
var testKeys = map[string]string{
	"alice": "alice-key-0123456789abcdefghijklmnopqrstuv",
	"bob":   "bob-key-0123456789abcdefghijklmnopqrstuvwx",
	"zed":   "zed-key-0123456789abcdefghijklmnopqrstuvwx",
}

// startVirtualAuth is startVirtual (OBV's own limit, 60 units a minute)
// with server lines in [server] (server.auth) and tables after the
// connector's ([clients.<name>], [server.oauth]).
func startVirtualAuth(t *testing.T, server, tables string) *vHost {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a host with the WebAssembly connector")
	}
	clk := schedtest.NewClock(seedEpoch)
	plat := newVPlatform(t, clk, 60, time.Minute)
	up := httptest.NewServer(plat)
	t.Cleanup(up.Close)
	cfgPath := writeConfig(t, fmt.Sprintf(`
[runtime]
compilation_cache_dir = %q
[cache]
dir = %q
[status]
enabled = false
[mcp_rate_limit]
enabled = false
[server]
stream_poll_after = "0s"
%s
[connectors.obv]
module = %q
base_url = %q
private_networks = ["127.0.0.0/8"]
pool_size = 2
%s`, proofCompileDir(t), t.TempDir(), server, wasmbuild.Path(t, "./plugins/obv/cmd"), up.URL, tables))
	v := &vHost{t: t, cfgPath: cfgPath, clk: clk, plat: plat, unit: time.Second}
	v.h, v.base = v.start("auth")
	v.ctx, v.cancel = context.WithCancel(context.Background())
	return v
}

// keyTables are the [clients.<name>] tables of testKeys.
func keyTables() string {
	var b strings.Builder
	for name, key := range testKeys {
		fmt.Fprintf(&b, "[clients.%s]\nkey_sha256 = %q\n", name, sha256Hex(key))
	}
	return b.String()
}

// bearer adds Authorization: Bearer <token> to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// namedSession opens an MCP session of the client holding token; its
// queries are "<name>-<n>", so the platform's record says who asked.
func (v *vHost) namedSession(name, token string) *vSession {
	v.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: v.base + "/mcp/unified/v1",
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, legacyClient)
	if err != nil {
		v.t.Fatal(err)
	}
	v.t.Cleanup(func() {
		v.stopBusy()
		cs.Close()
	})
	return &vSession{name: name, cs: cs}
}

// TestNamedClientsShareAndReconnect: with server.auth = "keys", the fair
// scheduler counts a named client across its sessions. alice floods
// (40 searches kept waiting) through one session while bob asks now and
// then: each of bob's searches is served within 3 s of refill, as a
// newcomer's is, and the scheduler's usage is alice's, not her session's.
// Then alice hangs up and reconnects with a fresh session: her usage is
// still hers, so when her new session and bob each have a search waiting
// (hers first), bob's is served first; charged per session, her new
// session would start at weight 1 and go first (the longest waiting).
func TestNamedClientsShareAndReconnect(t *testing.T) {
	v := startVirtualAuth(t, `auth = "keys"`, keyTables())
	flood := v.namedSession("alice", testKeys["alice"])
	z := v.namedSession("zed", testKeys["zed"])
	bob := v.namedSession("bob", testKeys["bob"])
	v.drain(z)
	v.keepBusy(flood, 40, 1)
	for i := range 3 {
		c := v.enqueue(bob, 1)
		for steps := 0; !c.finished(); steps++ {
			if steps == 120 {
				t.Fatalf("bob's search %d still waits after two minutes behind alice's flood", i)
			}
			v.clk.Advance(v.unit)
			v.waitUntil("every granted call at the platform", func() bool {
				_, reqs, _ := v.plat.seen()
				return uint64(reqs) == v.stats().Calls && (c.finished() || v.stats().Queued == 41)
			})
			v.waitUntil("alice's calls back in the queue", func() bool { return c.finished() || v.stats().Queued == 41 })
		}
		<-c.done
		if c.err != nil {
			t.Fatal(c.err)
		}
		if ms := queuedMS(c.res); ms >= 3000 {
			t.Errorf("bob's search %d waited %v ms behind alice's flood of 40, want less than 3 s", i, ms)
		} else {
			t.Logf("bob's search %d waited %v ms behind alice's flood of 40", i, ms)
		}
		for range 20 {
			v.clk.Advance(v.unit)
			v.settle(40)
		}
	}
	now := v.clk.Now()
	aliceUsage := host.SchedulerUsage(v.h, "obv", "key:alice", now)
	bobUsage := host.SchedulerUsage(v.h, "obv", "key:bob", now)
	if sess := host.SchedulerUsage(v.h, "obv", flood.cs.ID(), now); aliceUsage < 40 || bobUsage != 3 || sess != 0 {
		t.Errorf("usage: alice %g (want >= 40), bob %g (want 3), alice's session id %g (want 0: charged to the client)", aliceUsage, bobUsage, sess)
	}
	t.Logf("usage after the flood: alice %g units, bob %g", aliceUsage, bobUsage)

	// alice hangs up and comes back with a new session.
	v.stopBusy()
	v.waitUntil("the flood's calls gone", func() bool { return v.stats().Queued == 0 })
	flood.cs.Close()
	// Named alice2 so that its queries ("alice2-<n>") are new to the cache.
	again := v.namedSession("alice2", testKeys["alice"])
	if again.cs.ID() == flood.cs.ID() {
		t.Fatal("the reconnect got the same session id")
	}
	v.drain(z)
	if u := host.SchedulerUsage(v.h, "obv", "key:alice", v.clk.Now()); u < aliceUsage {
		t.Errorf("alice's usage after reconnecting: %g, want at least the %g she had", u, aliceUsage)
	}
	mark := v.mark()
	first := v.enqueue(again, 1)
	second := v.enqueue(bob, 1)
	// Each step refills one unit, then waits until every granted call
	// has been answered and the others wait in the queue.
	for steps := 0; !(first.finished() && second.finished()); steps++ {
		if steps == 120 {
			t.Fatalf("two searches still wait after two minutes (alice2 answered %v, bob answered %v)", first.finished(), second.finished())
		}
		v.clk.Advance(v.unit)
		v.waitUntil("every granted search answered, the others queued", func() bool {
			waiting := 0
			for _, c := range []*vCall{first, second} {
				if !c.finished() {
					waiting++
				}
			}
			return v.stats().Queued == waiting
		})
	}
	if first.err != nil || second.err != nil {
		t.Fatal(first.err, second.err)
	}
	var order []string
	for _, a := range v.since(mark) {
		if a.who == "alice2" || a.who == "bob" {
			order = append(order, a.who)
		}
	}
	if strings.Join(order, ",") != "bob,alice2" {
		t.Errorf("after alice reconnected, the platform served %v; want bob first (alice's usage outlives her session)", order)
	}
	v.noRefusals()
}

// TestNamedClientsWrongKeyRunsNothing: with server.auth = "keys", a
// request with no key, a wrong key or another scheme is answered 401 with
// WWW-Authenticate: Bearer and a JSON-RPC error naming what was wrong;
// no session is made and the platform sees no request. The pages, the
// health checks and the metrics stay reachable without a key.
//
// The caps per address count a named client's sessions as its own: with
// max_sessions_per_ip = 2, alice's third session is refused while bob,
// on the same address, still gets his.
func TestNamedClientsWrongKeyRunsNothing(t *testing.T) {
	v := startVirtualAuth(t, "auth = \"keys\"\nmax_sessions_per_ip = 2", keyTables())
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"obv_search","arguments":{"query":"stolen"}}}`
	for _, c := range []struct {
		name, auth, body, path, reason, challenge string
	}{
		{"no key", "", initialize, "/mcp/unified/v1", "missing", "Bearer"},
		{"wrong key", "Bearer not-a-key", initialize, "/mcp/unified/v1", "unknown_key", `Bearer error="invalid_token"`},
		{"wrong key, a call", "Bearer not-a-key", call, "/mcp/obv/v1", "unknown_key", `Bearer error="invalid_token"`},
		{"basic", "Basic YWxpY2U6eA==", initialize, "/mcp/unified/v1", "malformed", `Bearer error="invalid_token"`},
		{"sse", "Bearer " + testKeys["alice"] + "x", "", "/sse", "unknown_key", `Bearer error="invalid_token"`},
	} {
		method := http.MethodPost
		if c.body == "" {
			method = http.MethodGet
		}
		req, _ := http.NewRequest(method, v.base+c.path, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), c.challenge) ||
			res.Header.Get("Mcp-Session-Id") != "" || !strings.Contains(string(body), `"reason":"`+c.reason+`"`) {
			t.Errorf("%s: %d, WWW-Authenticate %q, session %q, body %s; want 401, %q, no session, reason %s",
				c.name, res.StatusCode, res.Header.Get("WWW-Authenticate"), res.Header.Get("Mcp-Session-Id"), body, c.challenge, c.reason)
		}
	}
	if _, reqs, _ := v.plat.seen(); reqs != 0 {
		t.Errorf("the platform saw %d requests from refused clients", reqs)
	}
	if n := metricValue(v.base, "besluitbron_sessions_open"); n != 0 {
		t.Errorf("%g sessions open after refused requests, want 0", n)
	}
	if n := metricValue(v.base, `besluitbron_auth_requests_total{client="refused",outcome="unknown_key"}`); n != 3 {
		t.Errorf("refusals for an unknown key counted %g, want 3", n)
	}
	for _, p := range []string{"/healthz", "/readyz", "/"} {
		res, err := http.Get(v.base + p)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s without a key: %d, want 200", p, res.StatusCode)
		}
	}
	// The right key gets a session and its calls are counted under the
	// client's name, a bounded label.
	alice := v.namedSession("alice", testKeys["alice"])
	v.now(alice, 1)
	if n := metricValue(v.base, `besluitbron_client_tool_calls_total{client="alice"}`); n != 1 {
		t.Errorf("alice's calls counted %g, want 1", n)
	}
	// alice's second session is let in, her third refused (429): two per
	// client (max_sessions_per_ip), however many share her address.
	for i, want := range []int{http.StatusOK, http.StatusTooManyRequests} {
		req, _ := http.NewRequest(http.MethodPost, v.base+"/mcp/unified/v1", strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+testKeys["alice"])
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("alice's session %d: %d %.200s, want %d", i+2, res.StatusCode, body, want)
		}
	}
	// An HTTP+SSE client (protocol 2024-11-05) with bob's key: its calls
	// are bob's too.
	sc, err := mcp.NewClient(&mcp.Implementation{Name: "legacy", Version: "1"}, nil).Connect(context.Background(),
		&mcp.SSEClientTransport{Endpoint: v.base + "/sse", HTTPClient: &http.Client{Transport: bearer{testKeys["bob"], http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close() })
	v.now(&vSession{name: "legacy", cs: sc}, 1)
	if u := host.SchedulerUsage(v.h, "obv", "key:bob", v.clk.Now()); u != 1 {
		t.Errorf("bob's usage after a call over HTTP+SSE: %g, want 1", u)
	}
	// One client's session is no other client's: bob presenting alice's
	// session id is refused by the go-sdk (403), and nothing runs.
	req, _ := http.NewRequest(http.MethodPost, v.base+"/mcp/unified/v1", strings.NewReader(call))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+testKeys["bob"])
	req.Header.Set("Mcp-Session-Id", alice.cs.ID())
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	before := v.mark()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden || v.mark() != before {
		t.Errorf("bob on alice's session: %d and %d platform requests, want 403 and none", res.StatusCode, v.mark()-before)
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestOAuthThroughTheHost: with server.auth = "oauth" and a local issuer,
// on the host's clock: a valid token gets an MCP session and its search
// is served, charged to its subject; an expired token and one of a
// foreign issuer get 401 naming the metadata address, and nothing runs;
// that address serves the RFC 9728 document naming the issuer.
func TestOAuthThroughTheHost(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	var iss *httptest.Server
	iss = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(map[string]string{"issuer": iss.URL, "jwks_uri": iss.URL + "/jwks"})
		case "/jwks":
			json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k1", Use: "sig"}}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(iss.Close)
	const aud = "https://besluitbron.example/mcp/unified/v1"
	v := startVirtualAuth(t, `auth = "oauth"`, fmt.Sprintf("[server.oauth]\nissuer = %q\naudience = %q\n", iss.URL, aud))
	now := v.clk.Now()
	token := func(signer any, issuer string, exp time.Time) string {
		s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: signer}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
		if err != nil {
			t.Fatal(err)
		}
		tok, err := jwt.Signed(s).Claims(jwt.Claims{Issuer: issuer, Subject: "reporter-7", Audience: jwt.Audience{aud}, Expiry: jwt.NewNumericDate(exp)}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	metadata := v.base + "/.well-known/oauth-protected-resource/mcp/unified/v1"
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for name, tok := range map[string]string{
		"expired":        token(key, iss.URL, now.Add(-time.Hour)),
		"foreign issuer": token(other, "https://login.elsewhere.example", now.Add(time.Hour)),
		"forged":         token(other, iss.URL, now.Add(time.Hour)),
	} {
		req, _ := http.NewRequest(http.MethodPost, v.base+"/mcp/unified/v1", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if want := `Bearer resource_metadata="` + metadata + `"`; res.StatusCode != 401 || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), want) {
			t.Errorf("%s token: %d, WWW-Authenticate %q; want 401 starting %q", name, res.StatusCode, res.Header.Get("WWW-Authenticate"), want)
		}
	}
	if _, reqs, _ := v.plat.seen(); reqs != 0 || metricValue(v.base, "besluitbron_sessions_open") != 0 {
		t.Errorf("refused tokens reached the platform (%d requests) or opened sessions", reqs)
	}
	res, err := http.Get(metadata)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	err = json.NewDecoder(res.Body).Decode(&doc)
	res.Body.Close()
	servers, _ := doc["authorization_servers"].([]any)
	if err != nil || res.StatusCode != 200 || doc["resource"] != v.base+"/mcp/unified/v1" || len(servers) != 1 || servers[0] != iss.URL || doc["bearer_methods_supported"] == nil {
		t.Errorf("metadata: %d %v %v", res.StatusCode, doc, err)
	}
	s := v.namedSession("reporter", token(key, iss.URL, now.Add(time.Hour)))
	v.now(s, 1)
	if u := host.SchedulerUsage(v.h, "obv", "oauth:reporter-7", v.clk.Now()); u != 1 {
		t.Errorf("the subject's usage: %g, want 1 (charged to oauth:reporter-7)", u)
	}
	if n := metricValue(v.base, `besluitbron_client_tool_calls_total{client="oauth"}`); n != 1 {
		t.Errorf("the OAuth client's calls counted %g under the label oauth, want 1", n)
	}
}

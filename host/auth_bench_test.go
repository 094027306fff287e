package host_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// BenchmarkAuthCachedCall measures what server.auth costs a cached tool
// call (obv_search answered from the cache, over streamable HTTP): three
// hosts side by side, auth "none", "keys" (one sha256 and a constant-time
// comparison per request) and "oauth" (an ES256 JWT verified per request
// against the cached JWKS), their calls interleaved in one loop. It
// reports each in ns/call and the ratios keys/none and oauth/none.
func BenchmarkAuthCachedCall(b *testing.B) {
	body, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "testdata", "obv", "obv-search.json"))
	if err != nil {
		b.Fatal(err)
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	defer up.Close()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	var iss *httptest.Server
	iss = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			json.NewEncoder(w).Encode(map[string]string{"issuer": iss.URL, "jwks_uri": iss.URL + "/jwks"})
		case "/jwks":
			json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k1", Use: "sig"}}})
		}
	}))
	defer iss.Close()
	const aud = "https://besluitbron.example/mcp/unified/v1"
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "k1"))
	if err != nil {
		b.Fatal(err)
	}
	token, err := jwt.Signed(signer).Claims(jwt.Claims{Issuer: iss.URL, Subject: "bench", Audience: jwt.Audience{aud},
		Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour))}).Serialize()
	if err != nil {
		b.Fatal(err)
	}
	apiKey := "bench-key-0123456789abcdefghijklmnopqrstuvw"
	wasm := wasmbuild.Path(b, "./plugins/obv/cmd")
	start := func(server, tables, bearerToken string) *mcp.ClientSession {
		dir := b.TempDir()
		cfgPath := filepath.Join(dir, "plugins.toml")
		os.WriteFile(cfgPath, []byte(fmt.Sprintf(`
[runtime]
compilation_cache_dir = %q
[mcp_rate_limit]
enabled = false
[status]
enabled = false
[cache]
dir = %q
[server]
%s
[connectors.obv]
module = %q
base_url = %q
private_networks = ["127.0.0.0/8"]
pool_size = 2
%s`, proofCompileDir(b), filepath.Join(dir, "cache"), server, wasm, up.URL, tables)), 0o644)
		cfg, err := host.LoadConfig(cfgPath, []string{})
		if err != nil {
			b.Fatal(err)
		}
		h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: "bench", Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { h.Close(context.Background()) })
		srv := httptest.NewServer(h.Handler())
		b.Cleanup(srv.Close)
		hc := http.DefaultClient
		if bearerToken != "" {
			hc = &http.Client{Transport: bearer{bearerToken, http.DefaultTransport}}
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/unified/v1", HTTPClient: hc}, legacyClient)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		return cs
	}
	none := start(`auth = "none"`, "", "")
	keys := start(`auth = "keys"`, fmt.Sprintf("[clients.bench]\nkey_sha256 = %q\n", sha256Hex(apiKey)), apiKey)
	oauth := start(`auth = "oauth"`, fmt.Sprintf("[server.oauth]\nissuer = %q\naudience = %q\n", iss.URL, aud), token)
	args := map[string]any{"query": "begroting", "organization": "soest"}
	call := func(cs *mcp.ClientSession) time.Duration {
		t0 := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("obv_search: %v %v", err, res)
		}
		return time.Since(t0)
	}
	for _, cs := range []*mcp.ClientSession{none, keys, oauth} {
		call(cs) // fill the cache
		if res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: args}); res.Meta["besluitbron/cache"] != "hit" {
			b.Fatalf("warm-up: %v", res.Meta)
		}
	}
	var tn, tk, to time.Duration
	n := 0
	for b.Loop() {
		tn += call(none)
		tk += call(keys)
		to += call(oauth)
		n++
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(n) }
	b.ReportMetric(per(tn), "none-ns/call")
	b.ReportMetric(per(tk), "keys-ns/call")
	b.ReportMetric(per(to), "oauth-ns/call")
	b.ReportMetric(float64(tk)/float64(tn), "keys/none")
	b.ReportMetric(float64(to)/float64(tn), "oauth/none")
}

package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// issuer is a local OAuth authorization server for the tests: its
// discovery document and JWKS over httptest, and tokens signed with its
// keys.
type issuer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	keys    map[string]any // kid → private key (published: its public half)
	fetches int            // JWKS fetches
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	is := &issuer{keys: map[string]any{}}
	is.addEC(t, "ec-1")
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		is.mu.Lock()
		is.fetches++
		var set jose.JSONWebKeySet
		for kid, k := range is.keys {
			pub := k.(crypto.Signer).Public()
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: pub, KeyID: kid, Use: "sig"})
		}
		is.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(set)
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	return is
}

func (is *issuer) addEC(t *testing.T, kid string) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is.mu.Lock()
	is.keys[kid] = k
	is.mu.Unlock()
}

func (is *issuer) addRSA(t *testing.T, kid string) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	is.mu.Lock()
	is.keys[kid] = k
	is.mu.Unlock()
}

func (is *issuer) jwksFetches() int {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.fetches
}

// sign makes a token with claims c, signed by key (the issuer's kid, or
// any other key) under kid.
func sign(t *testing.T, key any, kid string, c jwt.Claims) string {
	t.Helper()
	alg := jose.ES256
	if _, ok := key.(*rsa.PrivateKey); ok {
		alg = jose.RS256
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.Signed(s).Claims(c).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (is *issuer) key(kid string) any {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.keys[kid]
}

const audience = "https://besluitbron.example/mcp/unified/v1"

// oauthAuth is an Authenticator of is's tokens on the clock *now.
func oauthAuth(t *testing.T, is *issuer, now *time.Time, publicURL string) *Authenticator {
	t.Helper()
	v, err := NewOAuthVerifier(OAuthOptions{Issuer: is.srv.URL, Audience: audience, Leeway: 30 * time.Second,
		Now: func() time.Time { return *now }, PublicURL: publicURL})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Mode: OAuth, OAuth: v})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestOAuthTokens: against a local issuer, on a fixed clock, a valid token
// is admitted as its subject; an expired one, one for another audience,
// one of a foreign issuer, one signed with a key the issuer does not
// publish, one with a forged signature, one without exp or sub are
// refused with 401, WWW-Authenticate: Bearer resource_metadata="<the
// address's metadata>" and the reason; the handler never runs.
func TestOAuthTokens(t *testing.T) {
	is := newIssuer(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	a := oauthAuth(t, is, &now, "")
	good := jwt.Claims{Issuer: is.srv.URL, Subject: "user-42", Audience: jwt.Audience{audience},
		Expiry: jwt.NewNumericDate(now.Add(time.Hour)), IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now)}
	with := func(f func(c *jwt.Claims)) jwt.Claims {
		c := good
		f(&c)
		return c
	}
	foreign, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for _, c := range []struct {
		name, token, want string
	}{
		{"valid", sign(t, is.key("ec-1"), "ec-1", good), "user-42"},
		{"for the address itself", sign(t, is.key("ec-1"), "ec-1", with(func(c *jwt.Claims) { c.Audience = jwt.Audience{"http://example.com/mcp/obv/v1"} })), "user-42"},
		{"within the leeway", sign(t, is.key("ec-1"), "ec-1", with(func(c *jwt.Claims) { c.Expiry = jwt.NewNumericDate(now.Add(-20 * time.Second)) })), "user-42"},
		{"expired", sign(t, is.key("ec-1"), "ec-1", with(func(c *jwt.Claims) { c.Expiry = jwt.NewNumericDate(now.Add(-time.Minute)) })), "expired"},
		{"not yet valid", sign(t, is.key("ec-1"), "ec-1", with(func(c *jwt.Claims) { c.NotBefore = jwt.NewNumericDate(now.Add(time.Hour)) })), "not_yet_valid"},
		{"wrong audience", sign(t, is.key("ec-1"), "ec-1", with(func(c *jwt.Claims) { c.Audience = jwt.Audience{"https://other.example/mcp"} })), "wrong_audience"},
		{"foreign issuer", sign(t, is.key("ec-1"), "ec-1", with(func(c *jwt.Claims) { c.Issuer = "https://evil.example" })), "wrong_issuer"},
		{"foreign key, known kid", sign(t, foreign, "ec-1", good), "bad_signature"},
		{"foreign key, unknown kid", sign(t, foreign, "evil-1", good), "unknown_key"},
		{"no exp", sign(t, is.key("ec-1"), "ec-1", with(func(c *jwt.Claims) { c.Expiry = nil })), "no_expiry"},
		{"no sub", sign(t, is.key("ec-1"), "ec-1", with(func(c *jwt.Claims) { c.Subject = "" })), "bad_subject"},
		{"not a JWT", "abc.def.ghi", "malformed"},
		{"unsigned", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", "malformed"},
	} {
		r := httptest.NewRequest(http.MethodPost, "http://example.com/mcp/obv/v1", nil)
		r.Header.Set("Authorization", "Bearer "+c.token)
		rec, p, ran := serve(a, r)
		if c.want == "user-42" {
			if !ran || p.Subject != "user-42" || p.ID() != "oauth:user-42" || p.Label() != "oauth" {
				t.Errorf("%s: ran %v, %d %s, principal %+v; want user-42", c.name, ran, rec.Code, rec.Body, p)
			}
			continue
		}
		challenge := rec.Header().Get("WWW-Authenticate")
		if ran || rec.Code != http.StatusUnauthorized || !strings.Contains(rec.Body.String(), `"reason":"`+c.want+`"`) ||
			!strings.HasPrefix(challenge, `Bearer resource_metadata="http://example.com/.well-known/oauth-protected-resource/mcp/obv/v1"`) {
			t.Errorf("%s: ran %v, %d, WWW-Authenticate %q, body %s; want 401 for %s with the metadata address", c.name, ran, rec.Code, challenge, rec.Body, c.want)
		}
		if challenges, err := oauthex.ParseWWWAuthenticate([]string{challenge}); err != nil || len(challenges) != 1 || challenges[0].Params["resource_metadata"] == "" {
			t.Errorf("%s: the go-sdk's client cannot read WWW-Authenticate %q: %v %+v", c.name, challenge, err, challenges)
		}
	}
	// No token: the challenge names the metadata, without an error.
	r := httptest.NewRequest(http.MethodGet, "http://example.com/mcp/unified/v1", nil)
	rec, _, ran := serve(a, r)
	if want := `Bearer resource_metadata="http://example.com/.well-known/oauth-protected-resource/mcp/unified/v1"`; ran || rec.Code != 401 || rec.Header().Get("WWW-Authenticate") != want {
		t.Errorf("no token: %d, %q; want 401, %q", rec.Code, rec.Header().Get("WWW-Authenticate"), want)
	}
	// Time moves: the valid token expires with the clock, not the wall.
	tok := sign(t, is.key("ec-1"), "ec-1", good)
	now = now.Add(time.Hour + time.Minute)
	r = httptest.NewRequest(http.MethodPost, "http://example.com/mcp/unified/v1", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	if rec, _, ran := serve(a, r); ran || !strings.Contains(rec.Body.String(), `"reason":"expired"`) {
		t.Errorf("an hour later the token passed: %d %s", rec.Code, rec.Body)
	}
}

// TestOAuthKeyRotation: the keys are fetched once and kept; a token under
// a kid the issuer started using since is admitted after one fetch;
// tokens under invented kids fetch at most once per MinRefresh (30 s).
func TestOAuthKeyRotation(t *testing.T) {
	is := newIssuer(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	a := oauthAuth(t, is, &now, "https://besluitbron.example")
	claims := jwt.Claims{Issuer: is.srv.URL, Subject: "s", Audience: jwt.Audience{audience}, Expiry: jwt.NewNumericDate(now.Add(time.Hour))}
	try := func(tok string) int {
		r := httptest.NewRequest(http.MethodPost, "http://internal:8080/mcp/unified/v1", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		rec, _, _ := serve(a, r)
		return rec.Code
	}
	for range 3 {
		if code := try(sign(t, is.key("ec-1"), "ec-1", claims)); code != 200 {
			t.Fatalf("valid token: %d", code)
		}
	}
	if n := is.jwksFetches(); n != 1 {
		t.Errorf("three tokens fetched the keys %d times, want once", n)
	}
	// The issuer starts signing with a new key a minute later.
	now = now.Add(time.Minute)
	is.addRSA(t, "rsa-2")
	if code := try(sign(t, is.key("rsa-2"), "rsa-2", claims)); code != 200 {
		t.Errorf("a token under the issuer's new key: %d, want 200 after a refresh", code)
	}
	foreign, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for i := range 5 {
		if code := try(sign(t, foreign, "invented-"+string(rune('a'+i)), claims)); code != 401 {
			t.Errorf("invented kid: %d", code)
		}
	}
	if n := is.jwksFetches(); n != 2 {
		t.Errorf("after a new kid and five invented ones within MinRefresh of its fetch: %d fetches, want 2 (the first, the new kid's)", n)
	}
	now = now.Add(31 * time.Second)
	try(sign(t, foreign, "invented-z", claims))
	if n := is.jwksFetches(); n != 3 {
		t.Errorf("an invented kid after MinRefresh: %d fetches, want 3", n)
	}
}

// TestOAuthIssuerUnreachable: without the issuer's keys no token can be
// checked: 503 with Retry-After, not a 401 that would send the client to
// log in again.
func TestOAuthIssuerUnreachable(t *testing.T) {
	is := newIssuer(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	a := oauthAuth(t, is, &now, "")
	tok := sign(t, is.key("ec-1"), "ec-1", jwt.Claims{Issuer: is.srv.URL, Subject: "s", Audience: jwt.Audience{audience}, Expiry: jwt.NewNumericDate(now.Add(time.Hour))})
	is.srv.Close()
	r := httptest.NewRequest(http.MethodPost, "http://example.com/mcp/unified/v1", nil)
	r.Header.Set("Authorization", "Bearer "+tok)
	rec, _, ran := serve(a, r)
	if ran || rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), "issuer_unreachable") {
		t.Errorf("issuer down: ran %v, %d, %s", ran, rec.Code, rec.Body)
	}
}

// TestOAuthMetadata: the protected-resource metadata (RFC 9728) of the
// server and of each MCP address is JSON with the fields RFC 9728 and the
// MCP authorization specification require, its resource the address the
// 401 names; other paths under it are 404.
func TestOAuthMetadata(t *testing.T) {
	is := newIssuer(t)
	now := time.Now()
	for _, public := range []string{"", "https://besluitbron.example"} {
		a := oauthAuth(t, is, &now, public)
		h := a.OAuthVerifier().MetadataHandler(func(p string) bool { return p == "/mcp/unified/v1" })
		base := "http://example.com"
		if public != "" {
			base = public
		}
		for path, resource := range map[string]string{"": base, "/mcp/unified/v1": base + "/mcp/unified/v1"} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://example.com"+MetadataPath+path, nil))
			var doc map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil || rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("%s%s: %d %q %s (%v)", public, path, rec.Code, rec.Header().Get("Content-Type"), rec.Body, err)
			}
			servers, _ := doc["authorization_servers"].([]any)
			methods, _ := doc["bearer_methods_supported"].([]any)
			if doc["resource"] != resource || len(servers) != 1 || servers[0] != is.srv.URL || len(methods) != 1 || methods[0] != "header" {
				t.Errorf("%s%s: %s", public, path, rec.Body)
			}
			var typed oauthex.ProtectedResourceMetadata
			if err := json.Unmarshal(rec.Body.Bytes(), &typed); err != nil || typed.Resource != resource {
				t.Errorf("the go-sdk's client reads %+v (%v)", typed, err)
			}
		}
		// The 401's address is the document's.
		r := httptest.NewRequest(http.MethodPost, "http://example.com/mcp/unified/v1", nil)
		rec, _, _ := serve(a, r)
		if want := base + MetadataPath + "/mcp/unified/v1"; !strings.Contains(rec.Header().Get("WWW-Authenticate"), `"`+want+`"`) {
			t.Errorf("401 names %q, want %q", rec.Header().Get("WWW-Authenticate"), want)
		}
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://example.com"+MetadataPath+"/etc/passwd", nil))
		if rec.Code != 404 {
			t.Errorf("metadata of an unknown path: %d", rec.Code)
		}
	}
}

// TestOAuthDiscovery: the keys' address comes from jwks_url when set,
// else from the OpenID configuration, else from the RFC 8414 metadata
// (for an issuer with a path, under the well-known path's end); a
// document naming another issuer is not believed (503, saying so).
func TestOAuthDiscovery(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	jwks := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: key.Public(), KeyID: "k", Use: "sig"}}})
	}
	var srv *httptest.Server
	var docIssuer string
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server/tenant":
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]string{"issuer": docIssuer, "jwks_uri": srv.URL + "/tenant/keys"})
		case "/tenant/keys", "/elsewhere/keys":
			jwks(w)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	iss := srv.URL + "/tenant"
	tok := sign(t, key, "k", jwt.Claims{Issuer: iss, Subject: "s", Audience: jwt.Audience{audience}, Expiry: jwt.NewNumericDate(now.Add(time.Hour))})
	for _, c := range []struct {
		name, jwksURL, docIssuer string
		code                     int
	}{
		{"RFC 8414, path inserted", "", iss, 200},
		{"explicit jwks_url", srv.URL + "/elsewhere/keys", "https://not-read.example", 200},
		{"metadata of another issuer", "", "https://evil.example", 503},
	} {
		docIssuer = c.docIssuer
		v, err := NewOAuthVerifier(OAuthOptions{Issuer: iss, Audience: audience, JWKSURL: c.jwksURL, Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := New(Options{Mode: OAuth, OAuth: v})
		r := httptest.NewRequest(http.MethodPost, "http://example.com/mcp/unified/v1", nil)
		r.Header.Set("Authorization", "Bearer "+tok)
		rec, _, _ := serve(a, r)
		if rec.Code != c.code || c.code == 503 && !strings.Contains(rec.Body.String(), "evil.example") {
			t.Errorf("%s: %d %s, want %d", c.name, rec.Code, rec.Body, c.code)
		}
	}
}

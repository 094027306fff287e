package auth

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func keysAuth(t *testing.T) (*Authenticator, string) {
	t.Helper()
	key, sum, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	ks, err := NewKeySet(map[string]string{"alice": sum, "bob": HashKey("bob-key")})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(Options{Mode: Keys, Keys: ks})
	if err != nil {
		t.Fatal(err)
	}
	return a, key
}

// serve runs one request through a.Wrap and reports the principal the
// inner handler saw (ran false: it never ran).
func serve(a *Authenticator, r *http.Request) (rec *httptest.ResponseRecorder, p Principal, ran bool) {
	rec = httptest.NewRecorder()
	a.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ran = true
		p, _ = FromContext(r.Context())
	})).ServeHTTP(rec, r)
	return rec, p, ran
}

// TestKeys: the right key names its client; no key, a wrong key, another
// scheme, two headers are refused with 401, WWW-Authenticate: Bearer and
// a JSON-RPC error naming the reason, and the handler never runs.
func TestKeys(t *testing.T) {
	a, key := keysAuth(t)
	for _, c := range []struct {
		name    string
		headers []string
		want    string // the principal's name, or the reason refused
	}{
		{"alice", []string{"Bearer " + key}, "alice"},
		{"lower-case scheme", []string{"bearer " + key}, "alice"},
		{"bob", []string{"Bearer bob-key"}, "bob"},
		{"a space in the key", []string{"Bearer bob key"}, "malformed"},
		{"none", nil, "missing"},
		{"empty", []string{""}, "missing"},
		{"wrong", []string{"Bearer " + key + "x"}, "unknown_key"},
		{"the hash itself", []string{"Bearer " + HashKey(key)}, "unknown_key"},
		{"basic", []string{"Basic " + key}, "malformed"},
		{"no token", []string{"Bearer "}, "malformed"},
		{"two headers", []string{"Bearer " + key, "Bearer " + key}, "malformed"},
		{"huge", []string{"Bearer " + strings.Repeat("k", maxToken+1)}, "malformed"},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp/unified/v1", nil)
		for _, h := range c.headers {
			r.Header.Add("Authorization", h)
		}
		rec, p, ran := serve(a, r)
		if c.want == "alice" || c.want == "bob" {
			if !ran || p.Named != c.want || p.ID() != "key:"+c.want || p.Label() != c.want {
				t.Errorf("%s: ran %v, principal %+v (%q); want %s", c.name, ran, p, p.ID(), c.want)
			}
			continue
		}
		var body struct {
			Error struct {
				Code    int
				Message string
				Data    map[string]string
			}
		}
		json.Unmarshal(rec.Body.Bytes(), &body)
		challenge := rec.Header().Get("WWW-Authenticate")
		if ran || rec.Code != http.StatusUnauthorized || !strings.HasPrefix(challenge, "Bearer") || body.Error.Code != CodeUnauthorized ||
			body.Error.Data["reason"] != c.want || body.Error.Data["auth"] != "keys" || !strings.Contains(body.Error.Message, "BesluitBron:") {
			t.Errorf("%s: ran %v, %d, WWW-Authenticate %q, body %s; want 401 with reason %s", c.name, ran, rec.Code, challenge, rec.Body, c.want)
		}
		if c.want == "missing" && challenge != "Bearer" || c.want != "missing" && !strings.Contains(challenge, `error="invalid_token"`) {
			t.Errorf("%s: WWW-Authenticate %q", c.name, challenge)
		}
		if strings.Contains(rec.Body.String(), key) {
			t.Errorf("%s: the refusal repeats the key", c.name)
		}
	}
	// A CORS preflight carries no credential and passes.
	r := httptest.NewRequest(http.MethodOptions, "/mcp/unified/v1", nil)
	r.Header.Set("Origin", "https://app.example")
	r.Header.Set("Access-Control-Request-Method", "POST")
	if _, _, ran := serve(a, r); !ran {
		t.Error("a CORS preflight was refused")
	}
}

// TestNewKey: a new key is 43 URL-safe characters, its hash is the sha256
// that configures it, and two keys differ.
func TestNewKey(t *testing.T) {
	k1, h1, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	k2, _, _ := NewKey()
	if len(k1) != 43 || strings.ContainsAny(k1, "+/=") || k1 == k2 || h1 != HashKey(k1) || len(h1) != 64 {
		t.Errorf("keys %q %q, hash %q", k1, k2, h1)
	}
	ks, _ := NewKeySet(map[string]string{"x": strings.ToUpper(h1)})
	if name, ok := ks.Lookup(k1); !ok || name != "x" {
		t.Errorf("Lookup(new key) = %q %v (an upper-case hash must match too)", name, ok)
	}
	if _, err := NewKeySet(map[string]string{"x": "abc"}); err == nil {
		t.Error("a short hash was accepted")
	}
	if _, err := New(Options{Mode: "password"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
	if _, err := New(Options{Mode: Keys}); err == nil {
		t.Error("keys with no clients was accepted")
	}
}

// Under None every request passes untouched and anonymous.
func TestNonePassesEverything(t *testing.T) {
	a, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, p, ran := serve(a, httptest.NewRequest(http.MethodPost, "/mcp/unified/v1", nil))
	if !ran || p != (Principal{}) || a.Mode() != None || p.Label() != "anonymous" {
		t.Errorf("ran %v principal %+v mode %q", ran, p, a.Mode())
	}
}

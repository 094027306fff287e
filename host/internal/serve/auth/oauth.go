package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// OAuthOptions configure an [OAuthVerifier].
type OAuthOptions struct {
	// Issuer is the iss every token must carry, and the authorization
	// server the metadata names.
	Issuer string
	// Audience is an aud a token may carry to be admitted; a token for
	// the resource identifier of the MCP address it is sent to
	// (PublicURL + path) is admitted too, as the MCP authorization
	// specification has clients ask for (RFC 8707).
	Audience string
	// JWKSURL is where the issuer's keys are; "": discovered from the
	// issuer's /.well-known/openid-configuration, else its
	// /.well-known/oauth-authorization-server (RFC 8414).
	JWKSURL string
	// PublicURL is the server's scheme and host as clients reach it; "":
	// the request's own (https when it came over TLS).
	PublicURL string
	// Leeway is the clock skew allowed on exp and nbf.
	Leeway time.Duration
	// Now is the clock tokens are checked against (nil: the system's).
	Now func() time.Time
	// Client fetches the discovery document and the keys (nil: one with
	// a 10 s timeout).
	Client *http.Client
	// MinRefresh is the least time between two fetches of the keys made
	// for a token whose kid is unknown (default 30 s), so that tokens
	// with invented kids cannot make the server hammer the issuer.
	MinRefresh time.Duration
	// MaxAge is how long fetched keys are used before they are fetched
	// again (default 1 h), so that a key the issuer withdrew stops being
	// accepted.
	MaxAge time.Duration
}

// The signature algorithms a token may use: asymmetric only (a shared
// secret would let anyone holding it mint tokens; "none" is never
// accepted).
var algorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// OAuthVerifier checks JWT access tokens of one issuer, with its keys
// fetched once and kept.
type OAuthVerifier struct {
	o OAuthOptions

	mu      sync.Mutex
	keys    *jose.JSONWebKeySet
	fetched time.Time // when keys were fetched (the clock's time)
	tried   time.Time // the last fetch attempt
	jwksURL string    // o.JWKSURL, or the discovered one
	lastErr error     // the last fetch's error
}

// NewOAuthVerifier checks o's URLs; the keys are fetched at the first
// token.
func NewOAuthVerifier(o OAuthOptions) (*OAuthVerifier, error) {
	if o.Issuer == "" || o.Audience == "" {
		return nil, errors.New("auth: server.oauth needs issuer and audience")
	}
	if o.Now == nil {
		o.Now = systemNow
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if o.MinRefresh <= 0 {
		o.MinRefresh = 30 * time.Second
	}
	if o.MaxAge <= 0 {
		o.MaxAge = time.Hour
	}
	o.PublicURL = strings.TrimSuffix(o.PublicURL, "/")
	return &OAuthVerifier{o: o, jwksURL: o.JWKSURL}, nil
}

// claims are the token's claims BesluitBron reads beyond the registered
// ones.
type claims struct {
	jwt.Claims
	Scope string `json:"scope,omitempty"`
}

func (v *OAuthVerifier) verify(ctx context.Context, token string, r *http.Request) (Principal, *Failure) {
	tok, err := jwt.ParseSigned(token, algorithms)
	if err != nil {
		return Principal{}, unauthorized("malformed", "BesluitBron: the access token is not a signed JWT of an accepted algorithm (%s): %v", algNames(), err)
	}
	if len(tok.Headers) != 1 {
		return Principal{}, unauthorized("malformed", "BesluitBron: the access token has %d signatures: want one", len(tok.Headers))
	}
	kid := tok.Headers[0].KeyID
	keys, f := v.keysFor(ctx, kid)
	if f != nil {
		return Principal{}, f
	}
	var c claims
	var verr error = errors.New("no key")
	for _, k := range keys {
		if verr = tok.Claims(k.Key, &c); verr == nil {
			break
		}
	}
	if verr != nil {
		return Principal{}, unauthorized("bad_signature", "BesluitBron: the access token's signature does not verify with the issuer's key %q: it was not signed by %s", kid, v.o.Issuer)
	}
	now := v.o.Now()
	if c.Issuer != v.o.Issuer {
		return Principal{}, unauthorized("wrong_issuer", "BesluitBron: the access token was issued by %q: this server accepts tokens of %q only", c.Issuer, v.o.Issuer)
	}
	if c.Expiry == nil {
		return Principal{}, unauthorized("no_expiry", "BesluitBron: the access token has no exp: this server accepts only tokens that expire")
	}
	if err := c.Claims.ValidateWithLeeway(jwt.Expected{Issuer: v.o.Issuer, Time: now}, v.o.Leeway); err != nil {
		switch {
		case errors.Is(err, jwt.ErrExpired):
			return Principal{}, unauthorized("expired", "BesluitBron: the access token expired at %s: get a new one from %s", c.Expiry.Time().UTC().Format(time.RFC3339), v.o.Issuer)
		case errors.Is(err, jwt.ErrNotValidYet):
			return Principal{}, unauthorized("not_yet_valid", "BesluitBron: the access token is not valid before %s", c.NotBefore.Time().UTC().Format(time.RFC3339))
		case errors.Is(err, jwt.ErrIssuedInTheFuture):
			return Principal{}, unauthorized("not_yet_valid", "BesluitBron: the access token was issued in the future (%s)", c.IssuedAt.Time().UTC().Format(time.RFC3339))
		}
		return Principal{}, unauthorized("invalid_claims", "BesluitBron: the access token's claims: %v", err)
	}
	if !oauthex.MatchesResource(c.Audience, v.o.Audience) && !oauthex.MatchesResource(c.Audience, v.resource(r)) {
		return Principal{}, unauthorized("wrong_audience", "BesluitBron: the access token is for %q, not for this server (%q): ask the issuer for a token with resource=%s", []string(c.Audience), v.o.Audience, v.resource(r))
	}
	if c.Subject == "" || len(c.Subject) > 256 || strings.IndexFunc(c.Subject, unicode.IsControl) >= 0 {
		return Principal{}, unauthorized("bad_subject", "BesluitBron: the access token's sub is empty, longer than 256 bytes or holds control characters: the server cannot name its client")
	}
	return Principal{Subject: c.Subject}, nil
}

func algNames() string {
	s := make([]string, len(algorithms))
	for i, a := range algorithms {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// keysFor returns the issuer's keys that may have signed a token with
// kid (every key when kid is empty), fetching them first if none are
// held, if they are older than MaxAge, or if kid is unknown and the last
// fetch is at least MinRefresh old.
func (v *OAuthVerifier) keysFor(ctx context.Context, kid string) ([]jose.JSONWebKey, *Failure) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.o.Now()
	find := func() []jose.JSONWebKey {
		if v.keys == nil {
			return nil
		}
		if kid == "" {
			return v.keys.Keys
		}
		return v.keys.Key(kid)
	}
	stale := v.keys == nil || now.Sub(v.fetched) >= v.o.MaxAge
	ks := find()
	if (stale || len(ks) == 0) && (v.tried.IsZero() || now.Sub(v.tried) >= v.o.MinRefresh) {
		v.tried = now
		set, err := v.fetch(ctx)
		if err != nil {
			v.lastErr = err
			// Keep the keys held, if any; a token they verify still passes.
		} else {
			v.keys, v.fetched, v.lastErr = set, now, nil
		}
		ks = find()
	}
	if v.keys == nil {
		return nil, &Failure{Status: http.StatusServiceUnavailable, Reason: "issuer_unreachable", Message: fmt.Sprintf("BesluitBron: the keys of the issuer %s could not be fetched, so no token can be checked now (tried again at most every %v): %v", v.o.Issuer, v.o.MinRefresh, v.lastErr)}
	}
	if len(ks) == 0 {
		return nil, unauthorized("unknown_key", "BesluitBron: the access token is signed with key %q, which the issuer %s does not publish: it was not issued by this server's issuer", kid, v.o.Issuer)
	}
	return ks, nil
}

// maxDoc bounds a discovery document or key set.
const maxDoc = 1 << 20

// fetch gets the key set (after discovering its address, the first
// time). The caller holds v.mu.
func (v *OAuthVerifier) fetch(ctx context.Context) (*jose.JSONWebKeySet, error) {
	if v.jwksURL == "" {
		u, err := v.discover(ctx)
		if err != nil {
			return nil, err
		}
		v.jwksURL = u
	}
	var set jose.JSONWebKeySet
	if err := v.getJSON(ctx, v.jwksURL, &set); err != nil {
		return nil, fmt.Errorf("jwks %s: %w", v.jwksURL, err)
	}
	if len(set.Keys) == 0 {
		return nil, fmt.Errorf("jwks %s: no keys", v.jwksURL)
	}
	for i, k := range set.Keys {
		if !k.IsPublic() {
			return nil, fmt.Errorf("jwks %s: key %d (%q) is not a public key", v.jwksURL, i, k.KeyID)
		}
	}
	return &set, nil
}

// discover reads jwks_uri from the issuer's OpenID configuration, else
// from its RFC 8414 metadata; the document's issuer must be ours.
func (v *OAuthVerifier) discover(ctx context.Context) (string, error) {
	iss := strings.TrimSuffix(v.o.Issuer, "/")
	u, err := url.Parse(iss)
	if err != nil {
		return "", err
	}
	oidc := iss + "/.well-known/openid-configuration"
	rfc8414 := u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + u.Path
	var errs []error
	for _, addr := range []string{oidc, rfc8414} {
		var doc struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := v.getJSON(ctx, addr, &doc); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", addr, err))
			continue
		}
		if strings.TrimSuffix(doc.Issuer, "/") != iss {
			errs = append(errs, fmt.Errorf("%s names the issuer %q, not %q", addr, doc.Issuer, v.o.Issuer))
			continue
		}
		if doc.JWKSURI == "" {
			errs = append(errs, fmt.Errorf("%s has no jwks_uri", addr))
			continue
		}
		return doc.JWKSURI, nil
	}
	return "", fmt.Errorf("no jwks_uri found (set server.oauth.jwks_url): %w", errors.Join(errs...))
}

func (v *OAuthVerifier) getJSON(ctx context.Context, addr string, out any) error {
	req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodGet, addr, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	res, err := v.o.Client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d", res.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "application/json" && mt != "application/jwk-set+json" {
		return fmt.Errorf("content type %q: want application/json", res.Header.Get("Content-Type"))
	}
	return json.NewDecoder(io.LimitReader(res.Body, maxDoc)).Decode(out)
}

// MetadataPath is where the protected-resource metadata is served
// (RFC 9728 §3), and, with an MCP address's path after it, that
// address's own document.
const MetadataPath = "/.well-known/oauth-protected-resource"

// base is the server's scheme and host as the client reached it.
func (v *OAuthVerifier) base(r *http.Request) string {
	if v.o.PublicURL != "" {
		return v.o.PublicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// resource is the resource identifier of the MCP address r was sent to.
func (v *OAuthVerifier) resource(r *http.Request) string {
	return v.base(r) + r.URL.Path
}

// MetadataURL is the address of the metadata of the MCP address r was
// sent to (RFC 9728 §3.1: the well-known path between host and path), the
// resource_metadata of a 401.
func (v *OAuthVerifier) MetadataURL(r *http.Request) string {
	return v.base(r) + MetadataPath + r.URL.Path
}

// Metadata is the protected-resource metadata of the resource at path
// ("" for the server as a whole), as reached through r.
func (v *OAuthVerifier) Metadata(r *http.Request, path string) *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               v.base(r) + path,
		AuthorizationServers:   []string{v.o.Issuer},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "BesluitBron",
	}
}

// MetadataHandler serves the metadata at [MetadataPath] and at
// MetadataPath + p for each MCP address p that isMCP accepts; any other
// path under it is 404. It is public and readable from any origin, as
// RFC 9728 means it to be (the go-sdk's ProtectedResourceMetadataHandler
// sends the document).
func (v *OAuthVerifier) MetadataHandler(isMCP func(path string) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, MetadataPath)
		if !ok || (rest != "" && !isMCP(rest)) {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "max-age=300")
		sdkauth.ProtectedResourceMetadataHandler(v.Metadata(r, rest)).ServeHTTP(w, r)
	})
}

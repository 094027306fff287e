package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// The modes of server.auth.
const (
	None  = "none"
	Keys  = "keys"
	OAuth = "oauth"
)

// CodeUnauthorized is the JSON-RPC error code of a 401 (the
// implementation-defined server range, beside inbound's -32029 and
// -32003).
const CodeUnauthorized = -32001

// Principal is who an admitted request comes from: a named client or an
// OAuth token's subject. The zero Principal is anonymous.
type Principal struct {
	// Named is the [clients.<name>] whose key the request carried.
	Named string
	// Subject is the OAuth access token's sub.
	Subject string
}

// Caller is the principal as callinfo knows callers: add the session or
// address the MCP edge knows and ask callinfo.ChargedTo.
func (p Principal) Caller() callinfo.Caller {
	return callinfo.Caller{Named: p.Named, Subject: p.Subject}
}

// ID is who the principal's calls are charged to (callinfo.ChargedTo of
// its Caller), "" when anonymous: the key of its client limits.
func (p Principal) ID() string {
	if p == (Principal{}) {
		return ""
	}
	return callinfo.ChargedTo(p.Caller())
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the principal an [Authenticator] admitted the
// request with (false: none did, the request is anonymous).
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok && p != (Principal{})
}

// The TokenInfo.Extra keys the principal travels under through the
// go-sdk (to RequestExtra.TokenInfo of every MCP request).
const (
	extraNamed   = "besluitbron/named"
	extraSubject = "besluitbron/subject"
)

// FromTokenInfo returns the principal the go-sdk's bearer middleware
// passed on ([Authenticator.SDK]) in an MCP request's TokenInfo.
func FromTokenInfo(ti *sdkauth.TokenInfo) (Principal, bool) {
	if ti == nil {
		return Principal{}, false
	}
	var p Principal
	p.Named, _ = ti.Extra[extraNamed].(string)
	p.Subject, _ = ti.Extra[extraSubject].(string)
	return p, p != (Principal{})
}

// Failure is why a request was refused: Status (401, or 503 when the
// issuer's keys cannot be had), Reason a short machine word ("missing",
// "malformed", "unknown_key", "expired", ...) and Message the sentence
// for the admin or the user.
type Failure struct {
	Status  int
	Reason  string
	Message string
}

// Error is the Failure's message.
func (f *Failure) Error() string { return f.Message }

// unauthorized is a 401 Failure.
func unauthorized(reason, format string, args ...any) *Failure {
	return &Failure{Status: http.StatusUnauthorized, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// verifier checks one bearer credential.
type verifier interface {
	verify(ctx context.Context, token string, r *http.Request) (Principal, *Failure)
}

// Options configure an [Authenticator].
type Options struct {
	// Mode is server.auth: [None], [Keys] or [OAuth].
	Mode string
	// Keys are the named clients' key hashes (mode [Keys]).
	Keys *KeySet
	// OAuth is the token verifier (mode [OAuth]).
	OAuth *OAuthVerifier
	// Observe, when set, is told each request Wrap judged: the admitted
	// ones with their principal's bounded label ([Principal.Label]) and
	// "ok", the refused ones with "refused" and the reason.
	Observe func(label, outcome string)
}

// Authenticator admits the requests of the mode's clients and refuses the
// others with 401.
type Authenticator struct {
	o Options
	v verifier
}

// New returns the Authenticator of o. A mode with nothing to check
// against is an error (the configuration's validation refuses it first).
func New(o Options) (*Authenticator, error) {
	a := &Authenticator{o: o}
	switch o.Mode {
	case None, "":
		a.o.Mode = None
	case Keys:
		if o.Keys == nil || o.Keys.Len() == 0 {
			return nil, fmt.Errorf("auth: server.auth = \"keys\" with no [clients.<name>]")
		}
		a.v = o.Keys
	case OAuth:
		if o.OAuth == nil {
			return nil, fmt.Errorf("auth: server.auth = \"oauth\" with no [server.oauth]")
		}
		a.v = o.OAuth
	default:
		return nil, fmt.Errorf("auth: server.auth %q: want \"none\", \"keys\" or \"oauth\"", o.Mode)
	}
	return a, nil
}

// Mode is the Authenticator's mode.
func (a *Authenticator) Mode() string { return a.o.Mode }

// OAuthVerifier is the token verifier of mode [OAuth] (nil otherwise).
func (a *Authenticator) OAuthVerifier() *OAuthVerifier {
	if a.o.Mode != OAuth {
		return nil
	}
	return a.o.OAuth
}

// Label is the principal's bounded metrics label (callinfo.Label).
func (p Principal) Label() string { return callinfo.Label(p.Caller()) }

// Wrap puts next behind the Authenticator: under [None] every request
// passes as it is; otherwise a request without a valid bearer credential
// gets the 401 (or the 503 of an issuer whose keys cannot be fetched)
// and next never sees it. A CORS preflight (OPTIONS with
// Access-Control-Request-Method) passes unauthenticated, as browsers
// send no credentials with it.
func (a *Authenticator) Wrap(next http.Handler) http.Handler {
	if a.v == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			next.ServeHTTP(w, r)
			return
		}
		p, f := a.check(r)
		if f != nil {
			a.observe("refused", f.Reason)
			a.refuse(w, r, f)
			return
		}
		a.observe(p.Label(), "ok")
		next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
	})
}

func (a *Authenticator) observe(label, outcome string) {
	if a.o.Observe != nil {
		a.o.Observe(label, outcome)
	}
}

// maxToken bounds a bearer credential: an API key is 43 characters, a
// JWT a few kilobytes; anything longer is refused unread.
const maxToken = 16 << 10

// check reads the Authorization header and verifies its credential.
func (a *Authenticator) check(r *http.Request) (Principal, *Failure) {
	h := r.Header.Values("Authorization")
	if len(h) == 0 || strings.TrimSpace(h[0]) == "" {
		return Principal{}, unauthorized("missing", "BesluitBron: this server needs a credential (server.auth = %q): send Authorization: Bearer <%s>", a.o.Mode, a.credential())
	}
	if len(h) > 1 {
		return Principal{}, unauthorized("malformed", "BesluitBron: %d Authorization headers: send one", len(h))
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(h[0]), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return Principal{}, unauthorized("malformed", "BesluitBron: the Authorization header is not \"Bearer <%s>\"", a.credential())
	}
	if len(token) > maxToken {
		return Principal{}, unauthorized("malformed", "BesluitBron: the bearer credential is %d bytes: at most %d", len(token), maxToken)
	}
	return a.v.verify(r.Context(), token, r)
}

func (a *Authenticator) credential() string {
	if a.o.Mode == OAuth {
		return "access token"
	}
	return "API key"
}

// refuse writes f: WWW-Authenticate (with error and, under OAuth, the
// resource_metadata address), and a JSON-RPC error naming the reason.
func (a *Authenticator) refuse(w http.ResponseWriter, r *http.Request, f *Failure) {
	h := w.Header()
	if f.Status == http.StatusUnauthorized {
		var params []string
		if a.o.OAuth != nil && a.o.Mode == OAuth {
			params = append(params, "resource_metadata="+strconv.Quote(a.o.OAuth.MetadataURL(r)))
		}
		if f.Reason != "missing" {
			// RFC 6750 §3.1: a credential was sent and is no good.
			params = append(params, `error="invalid_token"`, "error_description="+strconv.Quote(asciiOnly(f.Message)))
		}
		v := "Bearer"
		if len(params) > 0 {
			v += " " + strings.Join(params, ", ")
		}
		h.Set("WWW-Authenticate", v)
	}
	if f.Status == http.StatusServiceUnavailable {
		h.Set("Retry-After", "30")
	}
	if r.Header.Get("Origin") != "" {
		h.Add("Access-Control-Expose-Headers", "WWW-Authenticate")
	}
	type rpcError struct {
		Code    int               `json:"code"`
		Message string            `json:"message"`
		Data    map[string]string `json:"data"`
	}
	body, _ := json.Marshal(struct {
		JSONRPC string   `json:"jsonrpc"`
		ID      any      `json:"id"`
		Error   rpcError `json:"error"`
	}{"2.0", nil, rpcError{CodeUnauthorized, f.Message, map[string]string{"auth": a.o.Mode, "reason": f.Reason}}})
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(f.Status)
	w.Write(append(body, '\n'))
}

// asciiOnly keeps a header parameter's printable ASCII, without quotes
// and backslashes (RFC 6750 §3: error_description is %x20-21 / %x23-5B /
// %x5D-7E).
func asciiOnly(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// SDK is the go-sdk's bearer-token middleware over what Wrap admitted
// (put it inside Wrap, around the MCP handler): it passes each request's
// principal to the go-sdk as a TokenInfo whose UserID is the principal's
// charged id, so that the go-sdk refuses (403) a session to any client
// but the one that started it, and hands the principal to the tool
// handlers (RequestExtra.TokenInfo, [FromTokenInfo]). Expiry was checked
// by Wrap on the host's clock, so the go-sdk is told none. Under [None]
// it returns next.
func (a *Authenticator) SDK(next http.Handler) http.Handler {
	if a.v == nil {
		return next
	}
	verify := func(ctx context.Context, _ string, r *http.Request) (*sdkauth.TokenInfo, error) {
		p, ok := FromContext(r.Context())
		if !ok {
			return nil, fmt.Errorf("%w: the request passed no BesluitBron authenticator", sdkauth.ErrInvalidToken)
		}
		return &sdkauth.TokenInfo{UserID: p.ID(), Extra: map[string]any{extraNamed: p.Named, extraSubject: p.Subject}}, nil
	}
	return sdkauth.RequireBearerToken(verify, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
}

// systemNow is the real clock.
func systemNow() time.Time { return time.Now() }

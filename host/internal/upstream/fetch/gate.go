package fetch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"net/url"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/internal/tracing"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Limiter keeps one upstream service under its limit. The scheduler
// implements it; nil means the service is not limited.
type Limiter interface {
	// Wait blocks until the fair scheduler grants the call and returns
	// how long it queued. front puts the call at the head of its
	// session's queue. The gate calls it once per call: a retry after a
	// 429 is not queued (nor charged to the session) again.
	Wait(ctx context.Context, info *callinfo.Info, cost float64, front bool) (time.Duration, error)
	// Depart blocks until the request may leave and counts it against the
	// platform's bucket; the gate calls it when the request is about to be
	// written to the connection, every time one is. It returns the
	// instant the request was counted. An error (the call's context
	// ended, or no room before its deadline) means the request must not
	// be sent.
	Depart(ctx context.Context, cost float64) (time.Time, error)
	// Observe passes the platform's answer (429 with Retry-After,
	// RateLimit-* headers), the instant the request's departure was
	// counted (zero: it never was) and the instant the answer's headers
	// came, so the limiter can measure the path and correct itself.
	Observe(status int, header http.Header, sent, now time.Time)
}

// Cache answers a fetch from the platform's cache or fills it. fill says
// whether its response may be stored.
type Cache interface {
	Do(ctx context.Context, class, key string, fill func(context.Context) (resp connector.FetchResponse, cacheable bool, err error)) (connector.FetchResponse, string, error)
}

// TextCache is the part of a platform's cache that keeps the texts
// connectors extract from documents (package cache implements it). A Gate
// whose Cache is not one keeps no texts: connectors then extract on every
// call.
type TextCache interface {
	TextPage(ctx context.Context, class, key string, n int) (connector.TextPage, bool)
	PutText(ctx context.Context, class, key string, head []byte, pages []string)
}

// Options configure a Gate. Zero values mean defaults.
type Options struct {
	// Manifest is the connector's validated manifest.
	Manifest connector.Manifest
	// BaseURL is the admin's override of the manifest's base_url.
	BaseURL string
	// Rewrites send other URL prefixes elsewhere (a mirror, the offline
	// simulator), for connectors that reach more than one host.
	Rewrites []Rewrite
	// PrivateNetworks are the private or loopback networks the admin
	// allows this connector to reach (for a local mirror or a test fake).
	PrivateNetworks []netip.Prefix
	// MaxResponseBytes caps one response body (default 32 MiB).
	MaxResponseBytes int64
	// RequestTimeout bounds one upstream exchange (default 30s).
	RequestTimeout time.Duration
	// MaxConns bounds concurrent connections to the platform (default 16).
	MaxConns int
	// MaxRetries429 bounds retries after a platform's 429 (default 2).
	MaxRetries429 int
	// UserAgent is sent with every request.
	UserAgent string
	// Limiters maps service names to their limiter; absent = unlimited.
	Limiters map[string]Limiter
	// Cache is the platform's cache; nil = no caching.
	Cache Cache
	// Logger receives connector log lines.
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Transport replaces the HTTP transport (tests); the dial guard is
	// then the caller's business.
	Transport http.RoundTripper
}

// Rewrite replaces the URL prefix From with To.
type Rewrite struct{ From, To string }

// Gate is one connector's fetch path.
type Gate struct {
	o        Options
	id       string
	title    string
	hosts    map[string]bool     // every host name reachable on some origin
	origins  map[origin]bool     // scheme, host and port the connector may reach
	declared map[string][]origin // host → its allowed origins, for refusals
	rewrites []Rewrite           // base_url override first, then the admin's rewrites
	client   *http.Client
}

// New builds a gate. Errors name the offending option.
func New(o Options) (*Gate, error) {
	m := o.Manifest
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = 32 << 20
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 16
	}
	if o.MaxRetries429 <= 0 {
		o.MaxRetries429 = 2
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.UserAgent == "" {
		o.UserAgent = "BesluitBron (+https://github.com/besluitbron/besluitbron)"
	}
	g := &Gate{o: o, id: m.ID, title: m.Title, hosts: map[string]bool{}, origins: map[origin]bool{}, declared: map[string][]origin{}}
	// The manifest's scheme: its base_url's, https when it has none. A
	// bare allowed_hosts entry is reached on that scheme's default port.
	scheme := "https"
	if u, err := url.Parse(m.BaseURL); err == nil && m.BaseURL != "" && u.Host != "" {
		scheme = strings.ToLower(u.Scheme)
		g.allow(originOf(u))
	}
	for i, h := range m.AllowedHosts {
		o, err := parseAllowedHost(h, scheme)
		if err != nil {
			return nil, fmt.Errorf("connector %q: allowed_hosts[%d] %q: %v", m.ID, i, h, err)
		}
		g.allow(o)
	}
	if o.BaseURL != "" && o.BaseURL != m.BaseURL {
		u, err := url.Parse(o.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("connectors.%s.base_url %q: want an absolute http(s) URL", m.ID, o.BaseURL)
		}
		g.allow(originOf(u)) // the admin's own config: trusted as written
		g.rewrites = append(g.rewrites, Rewrite{From: strings.TrimRight(m.BaseURL, "/"), To: strings.TrimRight(o.BaseURL, "/")})
	}
	for i, rw := range o.Rewrites {
		from, err1 := url.Parse(rw.From)
		to, err2 := url.Parse(rw.To)
		if err1 != nil || err2 != nil || from.Host == "" || to.Host == "" || (to.Scheme != "http" && to.Scheme != "https") {
			return nil, fmt.Errorf("connectors.%s.url_rewrites[%d]: want \"https://from.example => http://to.example/prefix\"", m.ID, i)
		}
		if !g.hosts[strings.ToLower(from.Hostname())] {
			return nil, fmt.Errorf("connectors.%s.url_rewrites[%d]: %s is not a host connector %q may reach", m.ID, i, from.Hostname(), m.ID)
		}
		g.allow(originOf(to)) // the admin's own config: trusted as written
		g.rewrites = append(g.rewrites, Rewrite{From: strings.TrimRight(rw.From, "/"), To: strings.TrimRight(rw.To, "/")})
	}
	for s := range o.Limiters {
		if _, ok := m.Service(s); !ok {
			return nil, fmt.Errorf("connectors.%s.limits.%s: the connector declares no service %q", m.ID, s, s)
		}
	}
	rt := o.Transport
	if rt == nil {
		dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: g.checkDial}
		rt = &http.Transport{
			DialContext: func(ctx context.Context, network, address string) (net.Conn, error) {
				c, err := dialer.DialContext(ctx, network, address)
				if err != nil {
					return nil, err
				}
				return &heldConn{Conn: c}, nil
			},
			MaxConnsPerHost:       o.MaxConns,
			MaxIdleConnsPerHost:   o.MaxConns,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: o.RequestTimeout,
			ForceAttemptHTTP2:     true,
		}
	}
	g.client = &http.Client{Transport: rt, CheckRedirect: g.checkRedirect}
	return g, nil
}

// errPrivate is the dial guard's refusal.
var errPrivate = errors.New("private address")

// checkDial refuses private, loopback, link-local and unspecified
// addresses the admin has not named; it runs on the resolved address.
func (g *Gate) checkDial(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot parse %q", errPrivate, address)
	}
	ip := ap.Addr().Unmap()
	if !isPrivate(ip) {
		return nil
	}
	for _, p := range g.o.PrivateNetworks {
		if p.Contains(ip) {
			return nil
		}
	}
	return fmt.Errorf("%w %s: not allowed for connector %q (the admin can allow it with connectors.%s.private_networks)", errPrivate, ip, g.id, g.id)
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

func isPrivate(ip netip.Addr) bool {
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsUnspecified() || ip.IsMulticast() || ip.IsInterfaceLocalMulticast() || cgnat.Contains(ip)
}

func (g *Gate) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return fmt.Errorf("more than 5 redirects")
	}
	if err := g.checkOrigin(req.URL); err != nil {
		return fmt.Errorf("redirect to %s refused: %v", req.URL.Host, err)
	}
	return nil
}

// origin is what the gate matches a URL against: scheme, lower-case host
// name (an IPv6 address without brackets) and port, the scheme's default
// port when the URL names none.
type origin struct{ scheme, host, port string }

func (o origin) String() string { return o.scheme + " port " + o.port }

func defaultPort(scheme string) string {
	if scheme == "http" {
		return "80"
	}
	return "443"
}

func originOf(u *url.URL) origin {
	s := strings.ToLower(u.Scheme)
	p := u.Port()
	if p == "" {
		p = defaultPort(s)
	}
	return origin{scheme: s, host: strings.ToLower(u.Hostname()), port: p}
}

// parseAllowedHost reads one allowed_hosts entry. Its forms:
//
//	demo.example                 the manifest's scheme on its default port
//	demo.example:8443            the manifest's scheme on port 8443
//	http://demo.example[:8080]   that scheme, on the port named or its default
//
// scheme is the manifest's (its base_url's; https without one). A bare
// host name, the only form manifests used before ports counted, keeps
// meaning what it meant for a connector on https. (sdk/connector's
// Manifest.Validate still admits only the bare form; the gate reads all
// three so that widening it there is the only change needed.)
func parseAllowedHost(entry, scheme string) (origin, error) {
	if strings.Contains(entry, "://") {
		u, err := url.Parse(entry)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" || u.User != nil || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" {
			return origin{}, errors.New("want a host name, host:port or scheme://host[:port]")
		}
		return originOf(u), checkPort(originOf(u))
	}
	host, port, err := net.SplitHostPort(entry)
	if err != nil { // no port
		host, port = strings.Trim(entry, "[]"), defaultPort(scheme)
	}
	o := origin{scheme: scheme, host: strings.ToLower(host), port: port}
	if o.host == "" || strings.ContainsAny(o.host, "/@ ?#") {
		return origin{}, errors.New("want a host name, host:port or scheme://host[:port]")
	}
	return o, checkPort(o)
}

func checkPort(o origin) error {
	n := 0
	for _, c := range o.port {
		if c < '0' || c > '9' {
			return fmt.Errorf("port %q: want a number from 1 to 65535", o.port)
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			break
		}
	}
	if n < 1 || n > 65535 {
		return fmt.Errorf("port %q: want a number from 1 to 65535", o.port)
	}
	return nil
}

func (g *Gate) allow(o origin) {
	if g.origins[o] {
		return
	}
	g.origins[o] = true
	g.hosts[o.host] = true
	g.declared[o.host] = append(g.declared[o.host], o)
}

// checkOrigin refuses a URL whose scheme, host and port are not one of
// the connector's origins; the error names what is allowed on that host.
func (g *Gate) checkOrigin(u *url.URL) error {
	o := originOf(u)
	if g.origins[o] {
		return nil
	}
	if !g.hosts[o.host] {
		return fmt.Errorf("host %q is not among the allowed hosts of connector %q", u.Hostname(), g.id)
	}
	allowed := make([]string, 0, len(g.declared[o.host]))
	for _, d := range g.declared[o.host] {
		allowed = append(allowed, d.String())
	}
	sort.Strings(allowed)
	return fmt.Errorf("%s on host %q port %s is not allowed for connector %q: on that host it may reach %s only", o.scheme, u.Hostname(), o.port, g.id, strings.Join(allowed, ", "))
}

func refused(format string, args ...any) error {
	return &connector.FetchError{Kind: connector.FetchRefused, Message: fmt.Sprintf(format, args...)}
}

func unavailable(format string, args ...any) error {
	return &connector.FetchError{Kind: connector.FetchUnavailable, Message: fmt.Sprintf(format, args...)}
}

// prepare validates a request and returns it with its URL rewritten and
// normalised.
func (g *Gate) prepare(req connector.FetchRequest) (connector.FetchRequest, *url.URL, error) {
	req.Method = strings.ToUpper(req.Method)
	switch req.Method {
	case "":
		req.Method = "GET"
	case "GET", "POST", "HEAD":
	default:
		return req, nil, refused("method %s not allowed (GET, POST, HEAD)", req.Method)
	}
	if _, ok := g.o.Manifest.Service(req.Service); !ok {
		return req, nil, refused("service %q is not declared by connector %q", req.Service, g.id)
	}
	if req.CacheClass == "" {
		req.CacheClass = connector.ClassNone
	}
	if _, ok := g.o.Manifest.CacheClass(req.CacheClass); !ok && req.CacheClass != connector.ClassNone {
		return req, nil, refused("cache class %q is not declared by connector %q", req.CacheClass, g.id)
	}
	if req.Cost == 0 {
		req.Cost = 1
	}
	if req.Cost < 0 || req.Cost > 1e6 || req.Cost != req.Cost {
		return req, nil, refused("cost %v out of range", req.Cost)
	}
	for _, rw := range g.rewrites {
		if strings.HasPrefix(req.URL, rw.From) {
			req.URL = rw.To + strings.TrimPrefix(req.URL, rw.From)
			break
		}
	}
	u, err := url.Parse(req.URL)
	if err != nil {
		return req, nil, refused("bad URL %q: %v", req.URL, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return req, nil, refused("URL scheme %q not allowed", u.Scheme)
	}
	if u.User != nil {
		return req, nil, refused("URL with credentials not allowed")
	}
	if err := g.checkOrigin(u); err != nil {
		return req, nil, refused("%v", err)
	}
	q := u.Query() // Encode sorts keys: the key does not depend on argument order
	u.RawQuery = q.Encode()
	u.Fragment = ""
	return req, u, nil
}

// Key is the cache key of a prepared request: class, method, normalised
// URL and a digest of body and headers. It never includes the session:
// sessions share the cache.
func Key(req connector.FetchRequest, u *url.URL) string {
	h := sha256.New()
	h.Write(req.Body)
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		keys = append(keys, strings.ToLower(k))
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "\x00%s=%s", k, headerValue(req.Header, k))
	}
	return req.CacheClass + " " + req.Method + " " + u.String() + " " + hex.EncodeToString(h.Sum(nil))[:32]
}

func headerValue(hdr map[string]string, lower string) string {
	for k, v := range hdr {
		if strings.ToLower(k) == lower {
			return v
		}
	}
	return ""
}

// Fetch implements connector.Host.
func (g *Gate) Fetch(ctx context.Context, req connector.FetchRequest) (connector.FetchResponse, error) {
	info := callinfo.From(ctx)
	req, u, err := g.prepare(req)
	if err != nil {
		return connector.FetchResponse{}, err
	}
	// A shared (coalesced) fill may outlive this caller: it reports its
	// times through atomics, never through this frame's variables.
	var queued, upstream atomic.Int64
	fill := func(ctx context.Context) (connector.FetchResponse, bool, error) {
		resp, q, up, err := g.exchange(ctx, info, req, u)
		queued.Add(int64(q))
		upstream.Add(int64(up))
		if err != nil {
			return resp, false, err
		}
		// A 2xx is kept unless its body is visibly broken (wellformed.go).
		return resp, resp.Status >= 200 && resp.Status < 300 && wellFormed(resp), nil
	}
	var resp connector.FetchResponse
	outcome := callinfo.Bypass
	if g.o.Cache == nil || req.CacheClass == connector.ClassNone {
		info.Volatile() // an uncached answer: the call's result may not be kept
		resp, _, err = fill(ctx)
	} else {
		// On a miss the lookup's span holds the fill: the quota wait and
		// the platform's request are its children.
		cctx, span := tracing.Start(ctx, "cache lookup", time.Time{})
		resp, outcome, err = g.o.Cache.Do(cctx, req.CacheClass, Key(req, u), fill)
		if span.Recording() {
			span.SetString("besluitbron.cache", outcome)
			span.SetString("besluitbron.cache_class", req.CacheClass)
			span.FailErr(err)
		}
		span.End()
	}
	info.AddFetch(outcome, time.Duration(queued.Load()), time.Duration(upstream.Load()))
	if err != nil || outcome == callinfo.Stale || resp.Status >= 500 || resp.Status == http.StatusTooManyRequests {
		info.Degrade()
	}
	return resp, err
}

// exchange waits at the limiter and performs the request, retrying after
// a 429. The call is queued at the fair scheduler once: a retry is the
// same call, charged to its session once, and waits only for the pause
// the 429 set and for its departure (see Limiter).
func (g *Gate) exchange(ctx context.Context, info *callinfo.Info, req connector.FetchRequest, u *url.URL) (resp connector.FetchResponse, queued, upstream time.Duration, err error) {
	lim := g.o.Limiters[req.Service]
	if lim != nil {
		wctx, span := tracing.Start(ctx, "quota wait", time.Time{})
		if span.Recording() {
			span.SetString(tracing.Phase, "queue")
			span.SetString("besluitbron.service", req.Service)
			span.SetFloat("besluitbron.cost", req.Cost)
		}
		q, err := lim.Wait(wctx, info, req.Cost, false)
		queued += q
		if err != nil {
			span.FailErr(err)
			span.EndWait()
			return resp, queued, upstream, err
		}
		// The span lasts what the scheduler says the call queued, the
		// figure _meta queued_ms adds up.
		span.EndWaitAt(span.Started().Add(q))
		info.AddUnits(req.Cost)
	}
	for attempt := 0; ; attempt++ {
		start := g.o.Now()
		var hdr http.Header
		var sent, answered time.Time
		var departed time.Duration // waited at the departure pacer: queued, not the platform's time
		resp, hdr, sent, answered, err = g.do(ctx, req, u, lim, &departed)
		queued += departed
		upstream += max(0, g.o.Now().Sub(start)-departed)
		if err != nil {
			return resp, queued, upstream, err
		}
		if lim != nil {
			lim.Observe(resp.Status, hdr, sent, answered)
		}
		if resp.Status != http.StatusTooManyRequests || lim == nil || attempt >= g.o.MaxRetries429 {
			return resp, queued, upstream, nil
		}
		g.o.Logger.Warn("platform answered 429; retrying after its pause", "connector", g.id, "service", req.Service, "retry_after", hdr.Get("Retry-After"))
	}
}

// do performs one request. The request departs when the transport has a
// connection for it and is about to write it (httptrace's GotConn, which
// runs on this goroutine before the write, for HTTP/1 and HTTP/2): there
// lim counts it, after waiting for room, and a call whose context has
// ended by then is not sent. sent is the instant lim counted the request
// (zero without lim, or when it never departed), answered the instant the
// response's headers had come; *waited is how long it waited at lim to
// depart (after a 429, the pause), which the call reports as queued.
func (g *Gate) do(parent context.Context, req connector.FetchRequest, u *url.URL, lim Limiter, waited *time.Duration) (_ connector.FetchResponse, _ http.Header, sent, answered time.Time, err error) {
	parent, span := tracing.StartClient(parent, req.Method)
	var status int
	defer func() {
		if !span.Recording() {
			return
		}
		span.SetString("http.request.method", req.Method)
		span.SetString("server.address", u.Hostname())
		span.SetString("url.scheme", u.Scheme)
		span.SetString("besluitbron.service", req.Service)
		if status != 0 {
			span.SetInt("http.response.status_code", int64(status))
		}
		if status >= 400 {
			span.Fail(http.StatusText(status))
		}
		span.FailErr(err)
		if *waited > 0 && !sent.IsZero() {
			// The pacer counted the request at sent, after the wait.
			tracing.RecordWait(parent, "quota wait", "depart", sent.Add(-*waited), sent)
		}
		span.End()
	}()
	ctx, cancel := context.WithTimeout(parent, g.o.RequestTimeout)
	defer cancel()
	var stopped error // why the request did not leave
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(ci httptrace.GotConnInfo) {
		if stopped != nil {
			hold(ci.Conn)
			return
		}
		if lim != nil {
			asked := g.o.Now()
			at, err := lim.Depart(ctx, req.Cost)
			*waited = max(0, g.o.Now().Sub(asked))
			if err != nil {
				stopped = err
			}
			sent = at
		}
		// The last gate: whatever happened while the request waited for
		// its connection or its departure, a call that ended is not sent.
		if stopped == nil && ctx.Err() != nil {
			stopped = g.ended(parent, ctx, u)
		}
		if stopped != nil {
			hold(ci.Conn)
			cancel()
		}
	}})
	var body io.Reader
	if len(req.Body) > 0 {
		body = strings.NewReader(string(req.Body))
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, u.String(), body)
	if err != nil {
		return connector.FetchResponse{}, nil, sent, answered, refused("bad request: %v", err)
	}
	for k, v := range req.Header {
		switch strings.ToLower(k) {
		case "host", "cookie", "authorization", "proxy-authorization", "x-forwarded-for", "forwarded":
			return connector.FetchResponse{}, nil, sent, answered, refused("header %q not allowed", k)
		}
		hr.Header.Set(k, v)
	}
	hr.Header.Set("User-Agent", g.o.UserAgent)
	r, err := g.client.Do(hr)
	answered = g.o.Now()
	if stopped != nil {
		if r != nil {
			r.Body.Close()
		}
		return connector.FetchResponse{}, nil, time.Time{}, time.Time{}, stopped
	}
	if err != nil {
		switch {
		case errors.Is(err, errPrivate):
			return connector.FetchResponse{}, nil, sent, answered, refused("%v", unwrapURL(err))
		case strings.Contains(err.Error(), "redirect to"):
			return connector.FetchResponse{}, nil, sent, answered, refused("%v", unwrapURL(err))
		case ctx.Err() != nil:
			return connector.FetchResponse{}, nil, sent, answered, g.ended(parent, ctx, u)
		}
		return connector.FetchResponse{}, nil, sent, answered, unavailable("%s: %v", u.Host, unwrapURL(err))
	}
	defer r.Body.Close()
	b, err := io.ReadAll(io.LimitReader(r.Body, g.o.MaxResponseBytes+1))
	if err != nil {
		return connector.FetchResponse{}, nil, sent, answered, unavailable("%s: reading the response: %v", u.Host, err)
	}
	status = r.StatusCode
	if int64(len(b)) > g.o.MaxResponseBytes {
		return connector.FetchResponse{}, nil, sent, answered, unavailable("%s: response exceeds the %d-byte limit", u.Host, g.o.MaxResponseBytes)
	}
	return connector.FetchResponse{Status: r.StatusCode, Header: flatten(r.Header), Body: b}, r.Header, sent, answered, nil
}

// ended is the error of a request whose context (ctx, made from the
// call's parent with the request timeout) is done.
func (g *Gate) ended(parent, ctx context.Context, u *url.URL) error {
	if parent.Err() != nil {
		return &connector.FetchError{Kind: connector.FetchCanceled, Message: "the call ended while " + u.Host + " was answering: " + parent.Err().Error()}
	}
	return unavailable("%s did not answer within %s", u.Host, g.o.RequestTimeout)
}

func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// flatten keeps the headers a connector may need, one value each.
func flatten(h http.Header) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		if len(out) >= 64 || len(v) == 0 || strings.EqualFold(k, "Set-Cookie") {
			continue
		}
		out[k] = v[0]
	}
	return out
}

// textCache returns the cache that keeps texts of key's class, or nil
// when none does; an error refuses a malformed key or an undeclared class.
func (g *Gate) textCache(key connector.TextKey) (TextCache, error) {
	if err := key.Validate(); err != nil {
		return nil, refused("%v", err)
	}
	if key.CacheClass == connector.ClassNone {
		return nil, nil
	}
	if _, ok := g.o.Manifest.CacheClass(key.CacheClass); !ok {
		return nil, refused("cache class %q is not declared by connector %q", key.CacheClass, g.id)
	}
	tc, _ := g.o.Cache.(TextCache)
	return tc, nil
}

// TextPage implements connector.TextStore.
func (g *Gate) TextPage(ctx context.Context, key connector.TextKey, n int) (connector.TextPage, bool, error) {
	tc, err := g.textCache(key)
	if tc == nil {
		return connector.TextPage{}, false, err
	}
	page, ok := tc.TextPage(ctx, key.CacheClass, key.Key, n)
	return page, ok, nil
}

// PutText implements connector.TextStore.
func (g *Gate) PutText(ctx context.Context, t connector.ExtractedText) error {
	if err := t.Validate(); err != nil {
		return refused("%v", err)
	}
	tc, err := g.textCache(t.TextKey)
	if tc == nil {
		return err
	}
	tc.PutText(ctx, t.CacheClass, t.Key, t.Head, t.Pages)
	return nil
}

// Log implements connector.Host.
func (g *Gate) Log(ctx context.Context, level int, msg string) {
	if len(msg) > 4096 {
		msg = msg[:4096] + "…"
	}
	g.o.Logger.Log(ctx, slog.Level(level), msg, "connector", g.id, "session", callinfo.From(ctx).Session)
}

var _ connector.Host = (*Gate)(nil)

var _ connector.TextStore = (*Gate)(nil)

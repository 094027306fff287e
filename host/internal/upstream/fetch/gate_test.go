package fetch_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

func manifest() connector.Manifest {
	return connector.Manifest{
		ID: "demo", Version: "1", Title: "Demo", BaseURL: "https://demo.example",
		AllowedHosts: []string{"demo.example"},
		Services:     []connector.Service{{Name: "api", Units: 10, Per: connector.Duration(time.Second)}},
		CacheClasses: []connector.CacheClass{{Name: "search", TTL: connector.Duration(time.Minute)}},
	}
}

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}

func newGate(t *testing.T, o fetch.Options) *fetch.Gate {
	t.Helper()
	if o.Manifest.ID == "" {
		o.Manifest = manifest()
	}
	g, err := fetch.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func get(g *fetch.Gate, url string) (connector.FetchResponse, error) {
	return g.Fetch(context.Background(), connector.FetchRequest{Method: "GET", URL: url, Service: "api", CacheClass: "search"})
}

func wantKind(t *testing.T, err error, kind, text string) {
	t.Helper()
	var fe *connector.FetchError
	if !errors.As(err, &fe) || fe.Kind != kind || !strings.Contains(fe.Message, text) {
		t.Fatalf("got %v, want a %s error containing %q", err, kind, text)
	}
}

func TestBaseURLOverrideAndPrivateConsent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Seen", r.URL.RequestURI())
		w.Write([]byte("ok"))
	}))
	defer srv.Close()

	// Without the admin's consent, loopback is refused even though the
	// base_url override makes the host allowed.
	g := newGate(t, fetch.Options{BaseURL: srv.URL})
	_, err := get(g, "https://demo.example/api?b=2&a=1")
	wantKind(t, err, connector.FetchRefused, "private_networks")

	g = newGate(t, fetch.Options{BaseURL: srv.URL, PrivateNetworks: loopback})
	resp, err := get(g, "https://demo.example/api?b=2&a=1")
	if err != nil || resp.Status != 200 || string(resp.Body) != "ok" || resp.Header["X-Seen"] != "/api?a=1&b=2" {
		t.Fatalf("%+v %v", resp, err)
	}
}

func TestRefusals(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Write(make([]byte, 2048))
		case "/away":
			http.Redirect(w, r, "http://evil.example/", http.StatusFound)
		}
	}))
	defer srv.Close()
	g := newGate(t, fetch.Options{BaseURL: srv.URL, PrivateNetworks: loopback, MaxResponseBytes: 1024})
	_, err := get(g, "https://evil.example/")
	wantKind(t, err, connector.FetchRefused, `host "evil.example" is not among the allowed hosts`)
	_, err = get(g, "https://demo.example/big")
	wantKind(t, err, connector.FetchUnavailable, "exceeds the 1024-byte limit")
	_, err = get(g, "https://demo.example/away")
	wantKind(t, err, connector.FetchRefused, "redirect to evil.example refused")
	_, err = get(g, "file:///etc/passwd")
	wantKind(t, err, connector.FetchRefused, "scheme")
	_, err = g.Fetch(context.Background(), connector.FetchRequest{URL: "https://demo.example/", Service: "nope"})
	wantKind(t, err, connector.FetchRefused, `service "nope"`)
	_, err = g.Fetch(context.Background(), connector.FetchRequest{URL: "https://demo.example/", Service: "api", CacheClass: "forever"})
	wantKind(t, err, connector.FetchRefused, `cache class "forever"`)
	_, err = g.Fetch(context.Background(), connector.FetchRequest{Method: "DELETE", URL: "https://demo.example/", Service: "api"})
	wantKind(t, err, connector.FetchRefused, "method DELETE")
	_, err = g.Fetch(context.Background(), connector.FetchRequest{URL: "https://demo.example/", Service: "api", Header: map[string]string{"Cookie": "x"}})
	wantKind(t, err, connector.FetchRefused, `header "Cookie"`)
}

func TestNewRejectsBadOptions(t *testing.T) {
	if _, err := fetch.New(fetch.Options{Manifest: manifest(), BaseURL: "ftp://x"}); err == nil || !strings.Contains(err.Error(), "connectors.demo.base_url") {
		t.Errorf("bad base_url: %v", err)
	}
	if _, err := fetch.New(fetch.Options{Manifest: manifest(), Limiters: map[string]fetch.Limiter{"search": &fakeLimiter{}}}); err == nil || !strings.Contains(err.Error(), "connectors.demo.limits.search") {
		t.Errorf("unknown service limit: %v", err)
	}
}

type fakeLimiter struct {
	mu      sync.Mutex
	waits   []bool // front flags
	departs int
	sent    []time.Time // the sent instants Observe was given
	retries []string
	// depart, when set, runs at each departure with the call's context.
	depart func(ctx context.Context) error
}

func (f *fakeLimiter) Wait(_ context.Context, _ *callinfo.Info, _ float64, front bool) (time.Duration, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waits = append(f.waits, front)
	return 5 * time.Millisecond, nil
}

func (f *fakeLimiter) Depart(ctx context.Context, _ float64) (time.Time, error) {
	f.mu.Lock()
	f.departs++
	d := f.depart
	f.mu.Unlock()
	if d != nil {
		if err := d(ctx); err != nil {
			return time.Time{}, err
		}
	}
	return time.Now(), nil
}

func (f *fakeLimiter) Observe(status int, h http.Header, sent, _ time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, sent)
	if status == 429 {
		f.retries = append(f.retries, h.Get("Retry-After"))
	}
}

// A call retried after a platform 429 is charged once: it waits at the
// fair scheduler (and is charged to its session) once, and departs twice,
// each departure counted when it leaves.
func TestRetryAfter429ChargedOnce(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(429)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	lim := &fakeLimiter{}
	// A clock that stands still: the departures take no time, so the call
	// reports exactly the fair scheduler's 5 ms as queued.
	still := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g := newGate(t, fetch.Options{BaseURL: srv.URL, PrivateNetworks: loopback, Limiters: map[string]fetch.Limiter{"api": lim}, Now: func() time.Time { return still }})
	info := &callinfo.Info{Session: "s1"}
	resp, err := g.Fetch(callinfo.With(context.Background(), info), connector.FetchRequest{URL: "https://demo.example/x", Service: "api"})
	if err != nil || resp.Status != 200 {
		t.Fatalf("%+v %v", resp, err)
	}
	if len(lim.waits) != 1 || lim.departs != 2 || len(lim.retries) != 1 || lim.retries[0] != "1" {
		t.Errorf("waits %v, departures %d, retries %v: want one wait, a 429 observed, two departures", lim.waits, lim.departs, lim.retries)
	}
	for i, s := range lim.sent {
		if s.IsZero() {
			t.Errorf("answer %d observed without its departure instant", i+1)
		}
	}
	if s := info.Summary(); s.Queued != 5*time.Millisecond || s.Cache != callinfo.Bypass || s.Fetches != 1 {
		t.Errorf("summary %+v", s)
	}
}

// A call whose context has ended at its departure point is never sent:
// neither when it ends while the request waits to depart (the limiter
// returns the error), nor when it ends just as the departure is allowed
// (HTTP/1 writes the request on the connection's own goroutine without
// looking at the context again, so the gate refuses the write).
func TestEndedCallIsNeverSent(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	for name, depart := range map[string]func(ctx context.Context, cancel context.CancelFunc) error{
		"ends while waiting to depart": func(ctx context.Context, cancel context.CancelFunc) error {
			cancel()
			<-ctx.Done()
			return &connector.FetchError{Kind: connector.FetchCanceled, Message: "ended while waiting: " + ctx.Err().Error()}
		},
		"ends as it departs": func(ctx context.Context, cancel context.CancelFunc) error {
			cancel()
			return nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			lim := &fakeLimiter{}
			g := newGate(t, fetch.Options{BaseURL: srv.URL, PrivateNetworks: loopback, Limiters: map[string]fetch.Limiter{"api": lim}})
			// A first call opens a connection to reuse, so the ones that
			// end meet a connection that is ready at once.
			if _, err := g.Fetch(context.Background(), connector.FetchRequest{URL: "https://demo.example/warm", Service: "api"}); err != nil {
				t.Fatal(err)
			}
			before := n.Load()
			for range 20 {
				ctx, cancel := context.WithCancel(context.Background())
				lim.mu.Lock()
				lim.depart = func(c context.Context) error { return depart(c, cancel) }
				lim.mu.Unlock()
				_, err := g.Fetch(ctx, connector.FetchRequest{URL: "https://demo.example/x", Service: "api"})
				wantKind(t, err, connector.FetchCanceled, "ended")
				cancel()
			}
			lim.mu.Lock()
			lim.depart = nil
			lim.mu.Unlock()
			// The connection the refused writes closed is replaced.
			if _, err := g.Fetch(context.Background(), connector.FetchRequest{URL: "https://demo.example/after", Service: "api"}); err != nil {
				t.Fatal(err)
			}
			if got := n.Load() - before; got != 1 {
				t.Errorf("the platform received %d requests: %d of 20 calls that ended at their departure, want 0", got, got-1)
			}
		})
	}
}

func TestKeyIgnoresQueryOrderButNotBody(t *testing.T) {
	k := func(url, body string) string {
		u, _ := (&fakeURL{}).parse(url)
		return fetch.Key(connector.FetchRequest{Method: "POST", URL: url, CacheClass: "search", Body: []byte(body)}, u)
	}
	if k("https://demo.example/s?a=1&b=2", "x") != k("https://demo.example/s?b=2&a=1", "x") {
		t.Error("query order changed the key")
	}
	if k("https://demo.example/s?a=1", "x") == k("https://demo.example/s?a=1", "y") {
		t.Error("body did not change the key")
	}
}

func TestURLRewrites(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(r.URL.Path))
	}))
	defer srv.Close()
	m := manifest()
	m.AllowedHosts = append(m.AllowedHosts, "other.example")
	g := newGate(t, fetch.Options{Manifest: m, BaseURL: srv.URL + "/demo", PrivateNetworks: loopback,
		Rewrites: []fetch.Rewrite{{From: "https://other.example", To: srv.URL + "/other"}}})
	for url, want := range map[string]string{"https://demo.example/a": "/demo/a", "https://other.example/b": "/other/b"} {
		resp, err := get(g, url)
		if err != nil || string(resp.Body) != want {
			t.Errorf("%s: %q %v, want path %s", url, resp.Body, err, want)
		}
	}
	if _, err := fetch.New(fetch.Options{Manifest: manifest(), Rewrites: []fetch.Rewrite{{From: "https://evil.example", To: srv.URL}}}); err == nil || !strings.Contains(err.Error(), "url_rewrites[0]") {
		t.Errorf("rewrite of a host the connector may not reach: %v", err)
	}
}

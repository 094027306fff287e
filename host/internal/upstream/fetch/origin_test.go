package fetch_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// fakeTransport answers every request the gate lets through, so a test sees
// exactly which URLs pass the origin check (no dial guard, no network).
type fakeTransport struct{ seen []string }

func (f *fakeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.seen = append(f.seen, r.URL.String())
	rec := httptest.NewRecorder()
	rec.WriteString("ok")
	return rec.Result(), nil
}

// TestAnotherPortOnAnAllowedHostIsRefused catches a gate that matches host
// names only: a connector allowed demo.example (https, so port 443) could
// reach any other service on that machine, e.g. demo.example:8443 or :22.
func TestAnotherPortOnAnAllowedHostIsRefused(t *testing.T) {
	tr := &fakeTransport{}
	g := newGate(t, fetch.Options{Transport: tr})
	for _, u := range []string{"https://demo.example/a", "https://demo.example:443/b"} {
		if _, err := get(g, u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	for _, u := range []string{"https://demo.example:8443/", "https://demo.example:22/", "https://DEMO.example:80/"} {
		_, err := get(g, u)
		wantKind(t, err, connector.FetchRefused, `host "`)
		for _, part := range []string{"demo.example", "port " + strings.Split(strings.Split(u, ":")[2], "/")[0], "https port 443"} {
			if !strings.Contains(strings.ToLower(err.Error()), part) {
				t.Errorf("%s: error %q does not name %q", u, err, part)
			}
		}
	}
	if len(tr.seen) != 2 {
		t.Errorf("requests sent: %v, want only the two on port 443", tr.seen)
	}
}

// TestSchemeAsTheManifestDeclares catches a gate that ignores the scheme:
// a manifest on https may not fetch plain http from the same host (nor
// port 80), and one declared on http may not be reached on https.
func TestSchemeAsTheManifestDeclares(t *testing.T) {
	tr := &fakeTransport{}
	g := newGate(t, fetch.Options{Transport: tr})
	_, err := get(g, "http://demo.example/")
	wantKind(t, err, connector.FetchRefused, `http on host "demo.example" port 80 is not allowed`)
	if !strings.Contains(err.Error(), "https port 443") {
		t.Errorf("%v: does not say what is allowed", err)
	}

	m := manifest()
	m.BaseURL = "http://plain.example"
	m.AllowedHosts = []string{"plain.example", "other.example"}
	g = newGate(t, fetch.Options{Manifest: m, Transport: tr})
	for _, u := range []string{"http://plain.example/x", "http://other.example/y"} {
		if _, err := get(g, u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	_, err = get(g, "https://plain.example/x")
	wantKind(t, err, connector.FetchRefused, `https on host "plain.example" port 443 is not allowed for connector "demo": on that host it may reach http port 80 only`)
}

// TestAllowedHostForms catches a parser that drops a declared port or
// scheme, or accepts an entry that is not an origin.
func TestAllowedHostForms(t *testing.T) {
	tr := &fakeTransport{}
	m := manifest()
	m.AllowedHosts = []string{"demo.example", "api.example:8443", "http://files.example:8080", "[::1]:9000"}
	g := newGate(t, fetch.Options{Manifest: m, Transport: tr})
	for u, ok := range map[string]bool{
		"https://api.example:8443/":  true,
		"https://api.example/":       false, // only the port named
		"http://files.example:8080/": true,
		"https://files.example/":     false,
		"https://[::1]:9000/":        true,
		"https://[::1]/":             false,
	} {
		_, err := get(g, u)
		if ok != (err == nil) {
			t.Errorf("%s: err %v, want allowed=%v", u, err, ok)
		}
	}
	for _, bad := range []string{"api.example:0", "api.example:99999", "api.example:x", "ftp://f.example", "https://f.example/path"} {
		m := manifest()
		m.AllowedHosts = []string{bad}
		if _, err := fetch.New(fetch.Options{Manifest: m}); err == nil || !strings.Contains(err.Error(), "allowed_hosts[0]") {
			t.Errorf("%q: %v, want a refusal naming allowed_hosts[0]", bad, err)
		}
	}
}

// TestAdminOriginsAreTrustedAsWritten catches a gate that drops the port of
// the admin's base_url or url_rewrites targets (the simulator tests point
// connectors at 127.0.0.1:<random port>) or lets a connector use the
// target's host on any other port.
func TestAdminOriginsAreTrustedAsWritten(t *testing.T) {
	tr := &fakeTransport{}
	m := manifest()
	m.AllowedHosts = append(m.AllowedHosts, "other.example")
	g := newGate(t, fetch.Options{Manifest: m, Transport: tr, BaseURL: "http://127.0.0.1:9100/demo",
		Rewrites: []fetch.Rewrite{{From: "https://other.example", To: "http://127.0.0.1:9200/other"}}})
	for _, u := range []string{"https://demo.example/a", "https://other.example/b", "http://127.0.0.1:9100/c", "http://127.0.0.1:9200/d"} {
		if _, err := get(g, u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	_, err := get(g, "http://127.0.0.1:9300/")
	wantKind(t, err, connector.FetchRefused, `host "127.0.0.1" port 9300 is not allowed`)
	if !strings.Contains(err.Error(), "http port 9100, http port 9200") {
		t.Errorf("%v: does not list what is allowed on that host", err)
	}
	want := []string{"http://127.0.0.1:9100/demo/a", "http://127.0.0.1:9200/other/b", "http://127.0.0.1:9100/c", "http://127.0.0.1:9200/d"}
	if strings.Join(tr.seen, " ") != strings.Join(want, " ") {
		t.Errorf("sent %v, want %v", tr.seen, want)
	}
}

// TestRedirectToAnotherPortIsRefused catches a redirect check that looks at
// the host name only.
func TestRedirectToAnotherPortIsRefused(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:1/", http.StatusFound)
	}))
	defer srv.Close()
	g := newGate(t, fetch.Options{BaseURL: srv.URL, PrivateNetworks: loopback})
	_, err := g.Fetch(context.Background(), connector.FetchRequest{URL: "https://demo.example/x", Service: "api"})
	wantKind(t, err, connector.FetchRefused, `redirect to 127.0.0.1:1 refused: http on host "127.0.0.1" port 1 is not allowed`)
}

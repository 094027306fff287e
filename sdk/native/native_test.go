//go:build !wasip1

package native

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

func TestRunMainByHand(t *testing.T) {
	p := &sdk.Plugin{Manifest: connector.Manifest{ID: "demo", Title: "Demo", Version: "1.2.3"}}
	var stderr bytes.Buffer
	served := false
	exe := func() (string, error) { return "/nonexistent/bin/plugins/demo", nil }
	code := runMain(p, func(string) string { return "" }, &stderr, exe, func(*sdk.Plugin) { served = true })
	if code != 1 || served {
		t.Fatalf("run by hand: code %d, served %v; want 1 and not served", code, served)
	}
	for _, want := range []string{`"demo"`, "Demo", "1.2.3", "[connectors.demo]", `runtime = "process"`, `module = "/nonexistent/bin/plugins/demo"`} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), "sha256") {
		t.Errorf("usage offers a sha256 of a file it could not read:\n%s", stderr.String())
	}
}

func TestRunMainUsageChecksum(t *testing.T) {
	p := &sdk.Plugin{Manifest: connector.Manifest{ID: "demo"}}
	var stderr bytes.Buffer
	exe := func() (string, error) { return "testdata/demo-binary", nil }
	runMain(p, func(string) string { return "" }, &stderr, exe, func(*sdk.Plugin) {})
	// sha256 of the four bytes "demo".
	if want := `sha256 = "2a97516c354b68848cdbd8f54a226a0a55b21ed138e207ad6c5cbb9c00aa5aea"`; !strings.Contains(stderr.String(), want) {
		t.Errorf("usage lacks %s:\n%s", want, stderr.String())
	}
	stderr.Reset()
	runMain(p, func(string) string { return "" }, &stderr, func() (string, error) { return "", errors.New("no /proc") }, func(*sdk.Plugin) {})
	if !strings.Contains(stderr.String(), "<path of this binary>") {
		t.Errorf("usage without an executable path:\n%s", stderr.String())
	}
}

func TestRunMainServes(t *testing.T) {
	p := &sdk.Plugin{Manifest: connector.Manifest{ID: "demo"}}
	var got *sdk.Plugin
	env := func(k string) string {
		if k == Handshake().MagicCookieKey {
			return Handshake().MagicCookieValue
		}
		return ""
	}
	var stderr bytes.Buffer
	if code := runMain(p, env, &stderr, nil, func(q *sdk.Plugin) { got = q }); code != 0 || got != p {
		t.Fatalf("with the cookie: code %d, served %p; want 0 and %p", code, got, p)
	}
	if stderr.Len() != 0 {
		t.Errorf("serving wrote %q to stderr", stderr.String())
	}
}

func TestRunMainNothingExported(t *testing.T) {
	var stderr bytes.Buffer
	if code := runMain(nil, func(string) string { return "" }, &stderr, nil, nil); code != 2 || !strings.Contains(stderr.String(), "sdk.Export") {
		t.Fatalf("code %d, %q; want 2 and advice to call sdk.Export", code, stderr.String())
	}
}

func TestHandshakeVersion(t *testing.T) {
	if v := Handshake().ProtocolVersion; v != connector.ABIVersion {
		t.Fatalf("protocol version %d, want the ABI version %d", v, connector.ABIVersion)
	}
}

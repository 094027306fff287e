//go:build !wasip1

package sdk

import (
	"bytes"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// A WebAssembly-only connector started by hand says what it is and how to
// build or serve it, instead of exiting silently.
func TestMainByHand(t *testing.T) {
	var w bytes.Buffer
	p := &Plugin{Manifest: connector.Manifest{ID: "demo", Title: "Demo", Version: "1.2.3"}}
	if code := mainByHand(p, &w); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	for _, want := range []string{`"demo"`, "1.2.3", "GOOS=wasip1 GOARCH=wasm", "-o demo.wasm", "[connectors.demo]", "sdk/native", "native.Main()"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("message lacks %q:\n%s", want, w.String())
		}
	}
	w.Reset()
	if code := mainByHand(nil, &w); code != 2 || !strings.Contains(w.String(), "sdk.Export") {
		t.Errorf("no export: code %d, %q", code, w.String())
	}
}

package wasmrt_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmrt"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// TestEveryGuestLoads loads every test guest under testdata/guests (listed
// from the folder, so a new guest is included) through the package's
// shared compilation cache (testCache): each loads under its own id, or,
// the guest made to fail (badabi), fails with an error that names it.
//
// make test runs it on its own, without the race detector, before the
// race step (scripts/test.sh, "compile the connectors once"): on a fresh
// clone's empty cache the race step's run of this package compiled every
// guest with the race-instrumented wazero (197 s for the package on two
// busy cores; 22 s with the cache warm).
func TestEveryGuestLoads(t *testing.T) {
	dir := "./host/internal/runtime/wasmrt/testdata/guests/"
	entries, err := os.ReadDir(filepath.Join(wasmbuild.Root(), dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Fatal("no guests in testdata/guests")
	}
	fails := map[string]string{"badabi": "ABI"} // the guests made to fail, and what their error says
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		id := e.Name()
		c, err := wasmrt.Load(context.Background(), wasmrt.Options{ID: id, CompilationCache: testCache(t), Wasm: wasmbuild.Bytes(t, dir+id)})
		if want, ok := fails[id]; ok {
			if err == nil || !strings.Contains(err.Error(), `"`+id+`"`) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: got %v, want an error naming it and saying %s", id, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		c.Close(context.Background())
	}
}

package connectortest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/plugins/conformance"
)

// TestManifestFuzzSeedsCurrent: the manifest fuzzer's seeds in
// sdk/connector/testdata/manifests are the repository's connectors'
// manifests as they are today, so the fuzzer starts from what connectors
// really declare. It fails when a manifest changed and the seeds did
// not; `go test ./host/internal/testsupport/connectortest -update` rewrites them.
func TestManifestFuzzSeedsCurrent(t *testing.T) {
	dir := filepath.Join(wasmbuild.Root(), "sdk", "connector", "testdata", "manifests")
	all := map[string]func() []byte{}
	for id, p := range plugins {
		all[id] = func() []byte { return seed(t, p().Manifest) }
	}
	all["conformance"] = func() []byte { return seed(t, conformance.Plugin().Manifest) }
	for id, want := range all {
		path := filepath.Join(dir, id+".json")
		got, _ := os.ReadFile(path)
		if w := want(); !bytes.Equal(got, w) {
			if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
				if err := os.WriteFile(path, w, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s is not %s's manifest of today; run go test ./host/internal/testsupport/connectortest -update", path, id)
		}
	}
}

func seed(t *testing.T, m any) []byte {
	b, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

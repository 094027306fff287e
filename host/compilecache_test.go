package host_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// TestEveryRepositoryModuleLoads loads the eight WebAssembly modules the
// host's tests run (the seven platforms' connectors and the conformance
// fixtures) through one host on the package's shared compilation cache
// (proofCompileDir), and finds each one's tools in the unified address's
// tools/list.
//
// make test runs it on its own, without the race detector, before the
// race step (scripts/test.sh, "compile the connectors once"). The race
// step's test processes start side by side on a fresh clone's empty
// cache, and wazero's compiler under the detector took ~67 CPU-s in each
// process for these eight modules (compiled by every process that found
// the cache cold, and most of TestLoad's 167 s under -race); with the
// compiled code in the cache they read it (TestLoad: 21 s).
func TestEveryRepositoryModuleLoads(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles eight WebAssembly modules")
	}
	_, simURL := proofSim(t)
	cfg := proofConfig(t, simURL, t.TempDir(), "") +
		fmt.Sprintf("[connectors.conformance]\nmodule = %q\n", wasmbuild.Path(t, "./plugins/conformance/cmd"))
	_, base, _ := proofHost(t, cfg)
	c := newProofClient(t, base, "modules")
	defer c.close()
	tools, err := c.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, tool := range tools.Tools {
		if id, _, ok := strings.Cut(tool.Name, "_"); ok {
			per[id]++
		}
	}
	for _, id := range slices.Concat(proofPlatforms, []string{"conformance"}) {
		if per[id] == 0 {
			t.Errorf("no tool of %s in tools/list (tools per prefix: %v)", id, per)
		}
	}
}

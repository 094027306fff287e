package connectortest_test

import (
	"flag"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/testsupport/connectortest"
)

var update = flag.Bool("update", false, "rewrite the want sections of the contract cases")

// TestContract runs every connector's recorded cases in-process, as
// WebAssembly and as a native process, and requires identical results.
func TestContract(t *testing.T) {
	if raceEnabled {
		t.Skip("the contract suite runs in the non-race pass; it runs calls one at a time")
	}
	for _, id := range connectortest.Connectors() {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			connectortest.Run(t, id, &connectortest.Options{Update: *update})
		})
	}
}

package wasmcheck_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/host/internal/wasmcheck"
)

// BenchmarkInstrument is the rewrite's cost at load, on a real connector.
func BenchmarkInstrument(b *testing.B) {
	wasm := wasmbuild.Bytes(b, "./plugins/obv/cmd")
	b.SetBytes(int64(len(wasm)))
	for b.Loop() {
		if _, _, err := wasmcheck.Instrument(wasm, 1<<16); err != nil {
			b.Fatal(err)
		}
	}
}

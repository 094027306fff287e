package wasmbudget_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmbudget"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// BenchmarkInstrument is the rewrite's cost at load, on a real connector.
func BenchmarkInstrument(b *testing.B) {
	wasm := wasmbuild.Bytes(b, "./plugins/obv/cmd")
	b.SetBytes(int64(len(wasm)))
	for b.Loop() {
		if _, _, err := wasmbudget.Instrument(wasm, 1<<16); err != nil {
			b.Fatal(err)
		}
	}
}

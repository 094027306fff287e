package connectortest

import (
	"context"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmrt"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// BenchmarkInstanceMemory measures the linear memory of one WebAssembly
// instance of each connector: fresh (after load, before any call) and
// after it has run every recorded case of that connector (the instance is
// back in the pool, idle, holding what its heap grew to). The figures
// say how many instances the memory of a machine holds: each waiting
// call holds one (README, max_instances). Reported per connector in MB,
// and the largest of them.
func BenchmarkInstanceMemory(b *testing.B) {
	var maxFresh, maxAfter float64
	for _, id := range Connectors() {
		c, err := wasmrt.Load(context.Background(), wasmrt.Options{ID: id, Wasm: wasmbuild.Bytes(b, pkg(id)),
			PoolSize: 1, MaxInstances: 1, Logger: quiet(), CompilationCache: compilationCache()})
		if err != nil {
			b.Fatal(err)
		}
		fresh := float64(c.PoolStats().MemoryBytes) / (1 << 20)
		cases := LoadCases(b, Dir(id))
		for range b.N {
			for _, tc := range cases {
				// Error cases are part of a connector's life too; the
				// outcome is the contract suite's business, not this one's.
				_, _ = c.Call(context.Background(), connector.CallRequest{Tool: tc.Tool, Arguments: tc.Args}, tc.Host(b))
			}
		}
		after := float64(c.PoolStats().MemoryBytes) / (1 << 20)
		c.Close(context.Background())
		b.ReportMetric(fresh, id+"-fresh-MB")
		b.ReportMetric(after, id+"-after-MB")
		maxFresh, maxAfter = max(maxFresh, fresh), max(maxAfter, after)
	}
	b.ReportMetric(maxFresh, "max-fresh-MB")
	b.ReportMetric(maxAfter, "max-after-MB")
}

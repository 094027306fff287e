package connectortest_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/besluitbron/besluitbron/host/internal/runtime/nativert"
	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmrt"
	"github.com/besluitbron/besluitbron/host/internal/testsupport/connectortest"
	"github.com/besluitbron/besluitbron/host/internal/testsupport/nativerttest"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// fixedHost answers every fetch with the same response and records
// nothing, so that it costs the same under every runtime.
type fixedHost struct{ resp connector.FetchResponse }

func (h fixedHost) Fetch(context.Context, connector.FetchRequest) (connector.FetchResponse, error) {
	return h.resp, nil
}
func (fixedHost) Log(context.Context, int, string) {}

// workload is one call to measure.
type workload struct {
	name, id, tool, args, file string
}

var workloads = []workload{
	// A small answer: one fetch of 60 bytes, a 70-byte result.
	{"small", "example", "stats", `{}`, "obv/obv-stats.json"},
	// A document: one fetch of a JSON entity, a result of a few kB.
	{"document", "obv", "get_document", `{"entity_id":"document:notubiz:gemeente:soest:12345"}`, "obv/obv-entity-document.json"},
}

func (w workload) host(tb testing.TB) connector.Host {
	b, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "testdata", w.file))
	if err != nil {
		tb.Fatal(err)
	}
	return fixedHost{connector.FetchResponse{Status: 200, Body: b}}
}

func (w workload) call(tb testing.TB, c connector.Connector, h connector.Host) {
	res, err := c.Call(context.Background(), connector.CallRequest{Tool: w.tool, Arguments: json.RawMessage(w.args)}, h)
	if err != nil || res.IsError {
		tb.Fatalf("%s: %+v %v", w.name, res, err)
	}
}

// BenchmarkCall is the per-call cost of each runtime, one call at a time.
func BenchmarkCall(b *testing.B) {
	for _, w := range workloads {
		for _, rt := range connectortest.Runtimes() {
			b.Run(w.name+"/"+rt.Name, func(b *testing.B) {
				c, h := rt.Open(b, w.id), w.host(b)
				w.call(b, c, h) // warm: instances, connections
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					w.call(b, c, h)
				}
			})
		}
	}
}

// callRun is how many calls BenchmarkCallRatio makes to one runtime before
// the next.
const callRun = 10

// BenchmarkCallRatio compares each runtime with in-process Go on the same
// work, in one run under the same load, and reports each runtime's time
// per call and the ratios. The WebAssembly runtime and in-process Go
// alternate in runs of ten calls; then the process runtime and in-process
// Go do, apart. Apart, because right after a call to the process runtime
// (a round trip to another process, which moves the thread and cools the
// core's caches) a WebAssembly call took 3 to 5 times its CPU time, and
// that penalty lasts several calls (RATIONALE, "Where a WebAssembly call's
// time goes"): mixed together, the WebAssembly rows measured the process
// runtime's wake as much as their own cost, which a host serving its
// connectors as WebAssembly (the default) never pays. Runs of ten, not
// single calls, for the same reason between WebAssembly and in-process.
// wasm-extra-ns/call is what a WebAssembly call costs beyond the same
// work in-process (the fixed cost, for the small workload). The
// in-process and WebAssembly calls run on the benchmark's thread, so
// their thread CPU time is reported too (*-cpu-ns/call): on a shared
// machine it is steadier than the wall clock, which counts the time the
// thread waited for a core.
func BenchmarkCallRatio(b *testing.B) {
	for _, w := range workloads {
		b.Run(w.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			rts := connectortest.Runtimes() // in-process, WebAssembly, process
			conns := make([]connector.Connector, len(rts))
			h := w.host(b)
			for i, rt := range rts {
				conns[i] = rt.Open(b, w.id)
				w.call(b, conns[i], h)
			}
			// alternate runs conns[pair[0]] and conns[pair[1]] in turn and
			// returns each one's wall and thread CPU time per call.
			alternate := func(pair [2]int) (ns, cpu [2]float64) {
				var spent [2]time.Duration
				var used [2]int64
				for n := 0; n < b.N; n += callRun {
					k := min(callRun, b.N-n)
					for j, i := range pair {
						start, c0 := time.Now(), threadCPU()
						for range k {
							w.call(b, conns[i], h)
						}
						spent[j] += time.Since(start)
						used[j] += threadCPU() - c0
					}
				}
				for j := range pair {
					ns[j] = float64(spent[j].Nanoseconds()) / float64(b.N)
					cpu[j] = float64(used[j]) / float64(b.N)
				}
				return ns, cpu
			}
			b.ResetTimer()
			wasm, wasmCPU := alternate([2]int{0, 1})
			proc, _ := alternate([2]int{0, 2})
			b.ReportMetric(wasm[0], "inprocess-ns/call")
			b.ReportMetric(wasm[1], "wasm-ns/call")
			b.ReportMetric(proc[0], "inprocess-beside-process-ns/call")
			b.ReportMetric(proc[1], "process-ns/call")
			if threadCPU() >= 0 {
				b.ReportMetric(wasmCPU[0], "inprocess-cpu-ns/call")
				b.ReportMetric(wasmCPU[1], "wasm-cpu-ns/call")
			}
			b.ReportMetric(wasm[1]-wasm[0], "wasm-extra-ns/call")
			b.ReportMetric(wasm[1]/wasm[0], "wasm/inprocess")
			b.ReportMetric(proc[1]/proc[0], "process/inprocess")
			b.ReportMetric(proc[1]/wasm[1], "process/wasm")
		})
	}
}

// BenchmarkCallParallel is the throughput of each runtime under
// concurrent calls (wasm: a pool of 4 instances; process: 4 calls in
// flight on one connection).
func BenchmarkCallParallel(b *testing.B) {
	w := workloads[1]
	for _, rt := range connectortest.Runtimes() {
		b.Run(rt.Name, func(b *testing.B) {
			c, h := rt.Open(b, w.id), w.host(b)
			w.call(b, c, h)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					w.call(b, c, h)
				}
			})
		})
	}
}

// BenchmarkStartup is the time from nothing to a first answer: load (or
// construct), read the manifest, serve one call, close.
func BenchmarkStartup(b *testing.B) {
	w := workloads[1]
	h := w.host(b)
	wasm := wasmbuild.Bytes(b, "./plugins/obv/cmd")
	bin := nativerttest.Build(b, "./plugins/obv/cmd")
	sum := nativerttest.SHA256(b, bin)
	warm := wazero.NewCompilationCache()
	defer warm.Close(context.Background())
	starts := []struct {
		name string
		open func() (connector.Connector, error)
	}{
		{"inprocess", func() (connector.Connector, error) { return obv.Plugin(), nil }},
		{"wasm-compile", func() (connector.Connector, error) {
			return wasmrt.Load(context.Background(), wasmrt.Options{ID: "obv", Wasm: wasm, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		}},
		{"wasm-cached", func() (connector.Connector, error) {
			return wasmrt.Load(context.Background(), wasmrt.Options{ID: "obv", Wasm: wasm, CompilationCache: warm, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		}},
		{"process", func() (connector.Connector, error) {
			return nativert.Load(context.Background(), nativert.Options{ID: "obv", Path: bin, SHA256: sum, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		}},
	}
	// Fill the warm cache once, outside the measurement.
	if c, err := starts[2].open(); err == nil {
		c.Close(context.Background())
	}
	for _, s := range starts {
		b.Run(s.name, func(b *testing.B) {
			for range b.N {
				c, err := s.open()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.Describe(context.Background()); err != nil {
					b.Fatal(err)
				}
				w.call(b, c, h)
				c.Close(context.Background())
			}
		})
	}
}

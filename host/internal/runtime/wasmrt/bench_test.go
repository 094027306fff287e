package wasmrt_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmrt"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/plugins/obv"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

// BenchmarkToolCall compares one obv_search (argument decoding, URL
// building, a fetch answered from memory, JSON parsing and normalising)
// run as a WebAssembly module against the same connector logic called
// natively. The ratio of the two ns/op is the WASM overhead per call.
func BenchmarkToolCall(b *testing.B) {
	body, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "testdata", "obv", "obv-search.json"))
	if err != nil {
		b.Fatal(err)
	}
	host := sdktest.NewHost(b).HandleBody("https://openbesluitvorming.nl/api/search?*", 200, body)
	req := connector.CallRequest{Tool: "search", Arguments: json.RawMessage(`{"query":"begroting","organization":"soest"}`)}
	run := func(b *testing.B, c connector.Connector) {
		ctx := context.Background()
		for b.Loop() {
			res, err := c.Call(ctx, req, host)
			if err != nil || res.IsError {
				b.Fatal(err, res.Text)
			}
		}
	}
	b.Run("native", func(b *testing.B) { run(b, obv.Plugin()) })
	b.Run("wasm", func(b *testing.B) {
		c, err := wasmrt.Load(context.Background(), wasmrt.Options{ID: "obv", Wasm: wasmbuild.Bytes(b, "./plugins/obv/cmd"), PoolSize: 1})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close(context.Background())
		run(b, c)
	})
}

var allPlugins = []string{"obv", "ori", "tk", "opentk", "obk", "rechtspraak", "openarchivaris"}

// BenchmarkStartup loads one and all seven connector modules as the host
// does at start (in parallel), with wazero's file
// compilation cache cold (a fresh directory) and warm (filled by a
// previous start, which also left each module's load record beside it).
// ns/op is the time until every Load has returned: the host then serves
// (lists tools, answers from its caches). ready-ms is the time until
// every connector's first instance is made, which a connector loaded
// from its record does in the background, and the first calls wait for;
// cpu-ms the process's CPU time until then (user and system, all threads,
// the collector's included).
// warm-7-full is warm without the records (CacheDir unset): the load
// before issue 19, where Load made the first instance itself.
//
//	go test -run '^$' -bench '^BenchmarkStartup$/-7$' -benchtime=2x .
//	go test -run '^$' -bench '^BenchmarkStartup$/warm-7' -benchtime=10x -count=3 .
func BenchmarkStartup(b *testing.B) {
	mods := map[string][]byte{}
	for _, id := range allPlugins {
		mods[id] = wasmbuild.Bytes(b, "./plugins/"+id+"/cmd")
	}
	load := func(b *testing.B, ids []string, dir string, record bool) (ready, cpu time.Duration) {
		cc, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		defer cc.Close(context.Background())
		cacheDir := dir
		if !record {
			cacheDir = ""
		}
		t0, c0 := time.Now(), processCPU()
		var wg sync.WaitGroup
		conns := make([]*wasmrt.Connector, len(ids))
		for i, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := wasmrt.Load(context.Background(), wasmrt.Options{ID: id, Wasm: mods[id], CompilationCache: cc, CacheDir: cacheDir})
				if err != nil {
					b.Error(err)
					return
				}
				conns[i] = c
			}()
		}
		wg.Wait()
		b.StopTimer()
		for _, c := range conns {
			if c != nil {
				if err := c.Ready(context.Background()); err != nil {
					b.Error(err)
				}
			}
		}
		ready, cpu = time.Since(t0), processCPU()-c0
		for _, c := range conns {
			if c != nil {
				c.Close(context.Background())
			}
		}
		b.StartTimer()
		return ready, cpu
	}
	for _, set := range [][]string{{"obv"}, allPlugins} {
		name := strconv.Itoa(len(set))
		b.Run("cold-"+name, func(b *testing.B) {
			for b.Loop() {
				load(b, set, b.TempDir(), true)
			}
		})
		for _, record := range []bool{true, false} {
			suffix := ""
			if !record {
				suffix = "-full"
			}
			b.Run("warm-"+name+suffix, func(b *testing.B) {
				dir := b.TempDir()
				load(b, set, dir, true)
				var ready, cpu time.Duration
				for b.Loop() {
					r, c := load(b, set, dir, record)
					ready += r
					cpu += c
				}
				b.ReportMetric(float64(ready)/1e6/float64(b.N), "ready-ms")
				b.ReportMetric(float64(cpu)/1e6/float64(b.N), "cpu-ms")
			})
		}
	}
}

// BenchmarkIdlePoolMemory instantiates a pool of 8 obv instances and
// reports the memory each idle instance holds: its linear memory (which a Go
// guest never shrinks) and the host heap it adds.
func BenchmarkIdlePoolMemory(b *testing.B) {
	wasm := wasmbuild.Bytes(b, "./plugins/obv/cmd")
	host := sdktest.NewHost(b).HandleBody("https://openbesluitvorming.nl/api/sources?*", 200, []byte(`{"sources":[]}`))
	for b.Loop() {
		c, err := wasmrt.Load(context.Background(), wasmrt.Options{ID: "obv", Wasm: wasm, PoolSize: 8})
		if err != nil {
			b.Fatal(err)
		}
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		// Eight concurrent calls force eight instances into the pool.
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.Call(context.Background(), connector.CallRequest{Tool: "list_sources", Arguments: json.RawMessage(`{}`)}, host)
			}()
		}
		wg.Wait()
		runtime.GC()
		runtime.ReadMemStats(&m1)
		st := c.PoolStats()
		b.ReportMetric(float64(st.MemoryBytes)/float64(st.Idle)/(1<<20), "linear-MiB/instance")
		b.ReportMetric(float64(int64(m1.HeapInuse)-int64(m0.HeapInuse))/float64(st.Idle-1)/(1<<20), "heap-MiB/added-instance")
		c.Close(context.Background())
	}
}

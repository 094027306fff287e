//go:build linux

package wasmrt

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmbudget"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

var startPlugins = []string{"obv", "ori", "tk", "opentk", "obk", "rechtspraak", "openarchivaris"}

// TestStartupPhases times each phase of loading the seven connectors one
// after the other, with the compilation cache warm: wall and thread CPU
// per phase, summed over the modules, median of the rounds.
//
//	BESLUITBRON_STARTUP_PROFILE=1 go test -run TestStartupPhases -v .
func TestStartupPhases(t *testing.T) {
	if os.Getenv("BESLUITBRON_STARTUP_PROFILE") == "" {
		t.Skip("set BESLUITBRON_STARTUP_PROFILE=1")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx := context.Background()
	mods := map[string][]byte{}
	for _, id := range startPlugins {
		mods[id] = wasmbuild.Bytes(t, "./plugins/"+id+"/cmd")
	}
	dir := os.Getenv("BESLUITBRON_STARTUP_CACHE") // a directory kept between runs
	if dir == "" {
		dir = t.TempDir()
	}
	cc, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range startPlugins { // fill the cache
		c, err := Load(ctx, Options{ID: id, Wasm: mods[id], CompilationCache: cc})
		if err != nil {
			t.Fatal(err)
		}
		c.Close(ctx)
	}
	type dur struct{ wall, cpu time.Duration }
	var order []string
	rounds := map[string][]dur{}
	for r := 0; r < 5; r++ {
		sum := map[string]dur{}
		for _, id := range startPlugins {
			t0, c0 := time.Now(), threadCPU()
			lap := func(name string) {
				t1, c1 := time.Now(), threadCPU()
				d := sum[name]
				d.wall += t1.Sub(t0)
				d.cpu += time.Duration(c1 - c0)
				sum[name] = d
				if r == 0 && id == startPlugins[0] {
					order = append(order, name)
				}
				t0, c0 = t1, c1
			}
			sha256.Sum256(mods[id])
			lap("sha256")
			wasm, _, err := wasmbudget.Instrument(mods[id], checkBudget)
			if err != nil {
				t.Fatal(err)
			}
			lap("instrument")
			cfg := wazero.NewRuntimeConfig().WithMemoryLimitPages(256 * 16).WithCompilationCache(cc)
			rt := wazero.NewRuntimeWithConfig(ctx, cfg)
			lap("new runtime")
			wasi_snapshot_preview1.Instantiate(ctx, rt)
			lap("wasi module")
			instantiateHostModule(ctx, rt)
			lap("host module")
			compiled, err := rt.CompileModule(ctx, wasm)
			if err != nil {
				t.Fatal(err)
			}
			lap("compile (cache hit)")
			c := &Connector{id: id, runtime: rt, compiled: compiled, opts: Options{MemoryLimitMB: 256, MaxOutputBytes: 16 << 20, Logger: slog.New(slog.DiscardHandler)}}
			cfgm := wazero.NewModuleConfig().WithName("").WithStartFunctions().
				WithEnv("GOMEMLIMIT", "192MiB")
			mod, err := rt.InstantiateModule(withReservedMemory(ctx), compiled, cfgm)
			if err != nil {
				t.Fatal(err)
			}
			lap("instantiate")
			if _, err := mod.ExportedFunction("_initialize").Call(ctx); err != nil {
				t.Fatal(err)
			}
			lap("_initialize")
			res, err := mod.ExportedFunction("besluitbron_abi_version").Call(ctx)
			if err != nil {
				t.Fatal(err)
			}
			c.abi = uint32(res[0])
			lap("abi version")
			out, err := c.invokeFn(ctx, mod.ExportedFunction("besluitbron_describe"), "besluitbron_describe", nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			lap("describe (guest)")
			var m connector.Manifest
			if err := json.Unmarshal(out, &m); err != nil {
				t.Fatal(err)
			}
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
			lap("manifest decode+validate")
			rt.Close(ctx)
			lap("close")
		}
		for k, v := range sum {
			rounds[k] = append(rounds[k], v)
		}
	}
	med := func(ds []dur) dur {
		w := make([]time.Duration, len(ds))
		c := make([]time.Duration, len(ds))
		for i, d := range ds {
			w[i], c[i] = d.wall, d.cpu
		}
		sort.Slice(w, func(i, j int) bool { return w[i] < w[j] })
		sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
		return dur{w[len(w)/2], c[len(c)/2]}
	}
	var tw, tc time.Duration
	fmt.Printf("%-26s %10s %10s   (seven modules, one after the other, median of %d)\n", "phase", "wall ms", "cpu ms", len(rounds[order[0]]))
	for _, k := range order {
		d := med(rounds[k])
		tw += d.wall
		tc += d.cpu
		fmt.Printf("%-26s %10.1f %10.1f\n", k, ms(d.wall), ms(d.cpu))
	}
	fmt.Printf("%-26s %10.1f %10.1f\n", "total", ms(tw), ms(tc))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// TestStartupPaths compares, with the compilation cache warm, a full load
// (no record) and a load from the record, the seven connectors loaded in
// parallel as the host does: the time until every Load returned, until
// every first instance is made (ready), the mean of the seven times until
// each is, and the process's CPU time until all are. Rounds alternate the two; medians.
//
//	BESLUITBRON_STARTUP_PROFILE=1 BESLUITBRON_STARTUP_CACHE=/tmp/cc go test -run TestStartupPaths -v .
func TestStartupPaths(t *testing.T) {
	if os.Getenv("BESLUITBRON_STARTUP_PROFILE") == "" {
		t.Skip("set BESLUITBRON_STARTUP_PROFILE=1")
	}
	ctx := context.Background()
	mods := map[string][]byte{}
	for _, id := range startPlugins {
		mods[id] = wasmbuild.Bytes(t, "./plugins/"+id+"/cmd")
	}
	dir := os.Getenv("BESLUITBRON_STARTUP_CACHE")
	if dir == "" {
		dir = t.TempDir()
	}
	cc, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	load := func(record, check bool) (loaded, ready, meanReady, cpu time.Duration) {
		cacheDir := ""
		if record {
			cacheDir = dir
		}
		runtime.GC()
		t0, c0 := time.Now(), procCPU()
		conns := make([]*Connector, len(startPlugins))
		done := make(chan struct{}, len(startPlugins))
		for i, id := range startPlugins {
			go func() {
				c, err := Load(ctx, Options{ID: id, Wasm: mods[id], CompilationCache: cc, CacheDir: cacheDir})
				if err != nil {
					t.Error(err)
				} else if check && c.loadedFromRecord != record {
					t.Errorf("%s: from record %v", id, c.loadedFromRecord)
				}
				conns[i] = c
				done <- struct{}{}
			}()
		}
		for range startPlugins {
			<-done
		}
		loaded = time.Since(t0)
		readies := make(chan time.Duration, len(conns))
		for _, c := range conns {
			go func() {
				if c != nil {
					c.Ready(ctx)
				}
				readies <- time.Since(t0)
			}()
		}
		for range conns {
			meanReady += <-readies / time.Duration(len(conns))
		}
		ready, cpu = time.Since(t0), time.Duration(procCPU()-c0)
		for _, c := range conns {
			if c != nil {
				c.Close(ctx)
			}
		}
		return loaded, ready, meanReady, cpu
	}
	load(true, false) // fill the compilation cache and the records
	load(true, true)
	var res [2][4][]time.Duration
	for r := 0; r < 7; r++ {
		for i, record := range []bool{false, true} {
			l, rd, mr, c := load(record, true)
			res[i][0] = append(res[i][0], l)
			res[i][1] = append(res[i][1], rd)
			res[i][2] = append(res[i][2], mr)
			res[i][3] = append(res[i][3], c)
		}
	}
	med := func(ds []time.Duration) float64 {
		ds = append([]time.Duration(nil), ds...)
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ms(ds[len(ds)/2])
	}
	fmt.Printf("seven connectors in parallel, compilation cache warm, median of %d alternating rounds\n", len(res[0][0]))
	fmt.Printf("%-12s %10s %10s %14s %10s\n", "", "loaded ms", "ready ms", "mean ready ms", "cpu ms")
	for i, name := range []string{"full load", "from record"} {
		fmt.Printf("%-12s %10.1f %10.1f %14.1f %10.1f\n", name, med(res[i][0]), med(res[i][1]), med(res[i][2]), med(res[i][3]))
	}
}

// TestStartupBurst: the time from the start of Load to the answers of a
// first burst of eight concurrent calls (obv list_sources, answered from
// memory) on a pool of four, after a full load and after a load from the
// record. Rounds alternate; medians.
//
//	BESLUITBRON_STARTUP_PROFILE=1 BESLUITBRON_STARTUP_CACHE=/tmp/cc go test -run TestStartupBurst -v .
func TestStartupBurst(t *testing.T) {
	if os.Getenv("BESLUITBRON_STARTUP_PROFILE") == "" {
		t.Skip("set BESLUITBRON_STARTUP_PROFILE=1")
	}
	ctx := context.Background()
	wasm := wasmbuild.Bytes(t, "./plugins/obv/cmd")
	dir := os.Getenv("BESLUITBRON_STARTUP_CACHE")
	if dir == "" {
		dir = t.TempDir()
	}
	cc, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := sdktest.NewHost(t).HandleBody("https://openbesluitvorming.nl/api/sources?*", 200, []byte(`{"sources":[]}`))
	burst := func(record bool) (first, all time.Duration) {
		cacheDir := ""
		if record {
			cacheDir = dir
		}
		runtime.GC()
		t0 := time.Now()
		c, err := Load(ctx, Options{ID: "obv", Wasm: wasm, CompilationCache: cc, CacheDir: cacheDir, PoolSize: 4})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		done := make(chan time.Duration, 8)
		for range 8 {
			go func() {
				if _, err := c.Call(ctx, connector.CallRequest{Tool: "list_sources", Arguments: json.RawMessage(`{}`)}, h); err != nil {
					t.Error(err)
				}
				done <- time.Since(t0)
			}()
		}
		first = <-done
		for range 7 {
			all = <-done
		}
		return first, all
	}
	burst(true)
	var res [2][2][]time.Duration
	for r := 0; r < 7; r++ {
		for i, record := range []bool{false, true} {
			f, a := burst(record)
			res[i][0] = append(res[i][0], f)
			res[i][1] = append(res[i][1], a)
		}
	}
	med := func(ds []time.Duration) float64 {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ms(ds[len(ds)/2])
	}
	fmt.Printf("obv, pool of 4, eight calls at once right after Load is called; median of %d alternating rounds\n", len(res[0][0]))
	fmt.Printf("%-12s %16s %16s\n", "", "first answer ms", "all eight ms")
	for i, name := range []string{"full load", "from record"} {
		fmt.Printf("%-12s %16.1f %16.1f\n", name, med(res[i][0]), med(res[i][1]))
	}
}

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

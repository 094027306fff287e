//go:build linux

// Where a WebAssembly call's time goes (docs/RATIONALE.md): the tools that
// measured it, kept to measure again. Two workloads, as
// connectortest's BenchmarkCallRatio: "small" (example stats) and
// "document" (obv get_document), on a pool of one instance with a host
// that answers every fetch from memory.
//
//	BESLUITBRON_WASM_PROFILE=small go test -run TestProfileSegments -v .
//	    time between the guest's host calls (wazero's function listener
//	    on the imported functions only)
//	BESLUITBRON_WASM_PROFILE=small go test -run TestProfileCount -v .
//	    guest function calls per call, the most called first
//	BESLUITBRON_WASM_PROFILE=small BESLUITBRON_WASM_PROFILE_FUNCS=encoding_json.Marshal,sdk.collect \
//	    go test -run TestProfileTime -v .
//	    inclusive time of the guest functions whose names end so
//	BESLUITBRON_WASM_PROFILE=small go test -run TestProfileGrowth -v .
//	    when the instance's linear memory grows
//	go test -run '^$' -bench BenchmarkProfileCall .
//	    time and thread CPU time per call

package wasmrt

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

type profileHost struct{ resp connector.FetchResponse }

func (h profileHost) Fetch(context.Context, connector.FetchRequest) (connector.FetchResponse, error) {
	return h.resp, nil
}
func (profileHost) Log(context.Context, int, string) {}

type profileWork struct{ id, tool, args, file string }

var profileWorks = map[string]profileWork{
	"small":    {"example", "stats", `{}`, "obv/obv-stats.json"},
	"document": {"obv", "get_document", `{"entity_id":"document:notubiz:gemeente:soest:12345"}`, "obv/obv-entity-document.json"},
}

func profileSetup(t testing.TB, name string, ctx context.Context) (*Connector, connector.Host, connector.CallRequest) {
	w, ok := profileWorks[name]
	if !ok {
		t.Skip("set BESLUITBRON_WASM_PROFILE to small or document")
	}
	b, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "testdata", w.file))
	if err != nil {
		t.Fatal(err)
	}
	o := Options{ID: w.id, Wasm: wasmbuild.Bytes(t, "./plugins/"+w.id+"/cmd"), PoolSize: 1}
	if os.Getenv("BESLUITBRON_WASM_PROFILE_CC") != "" {
		cc, _ := wazero.NewCompilationCacheWithDir(filepath.Join(os.TempDir(), "besluitbron-connectortest-wazero"))
		o.CompilationCache = cc
	}
	c, err := Load(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c, profileHost{connector.FetchResponse{Status: 200, Body: b}}, connector.CallRequest{Tool: w.tool, Arguments: json.RawMessage(w.args)}
}

// timing listener: inclusive time of selected functions.
type timer struct {
	names map[string]bool
	start map[string][]time.Time
	total map[string]time.Duration
	count map[string]int
}

func (tm *timer) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	n := def.DebugName()
	for k := range tm.names {
		if strings.HasSuffix(n, k) {
			return tm
		}
	}
	return nil
}
func (tm *timer) Before(_ context.Context, _ api.Module, def api.FunctionDefinition, _ []uint64, _ experimental.StackIterator) {
	n := def.DebugName()
	tm.start[n] = append(tm.start[n], time.Now())
}
func (tm *timer) After(_ context.Context, _ api.Module, def api.FunctionDefinition, _ []uint64) {
	n := def.DebugName()
	s := tm.start[n]
	tm.total[n] += time.Since(s[len(s)-1])
	tm.start[n] = s[:len(s)-1]
	tm.count[n]++
}
func (tm *timer) Abort(_ context.Context, _ api.Module, def api.FunctionDefinition, _ error) {}

func TestProfileTime(t *testing.T) {
	names := strings.Split(os.Getenv("BESLUITBRON_WASM_PROFILE_FUNCS"), ",")
	tm := &timer{names: map[string]bool{}, start: map[string][]time.Time{}, total: map[string]time.Duration{}, count: map[string]int{}}
	for _, n := range names {
		tm.names[n] = true
	}
	name := os.Getenv("BESLUITBRON_WASM_PROFILE")
	ctx := experimental.WithFunctionListenerFactory(context.Background(), tm)
	c, h, req := profileSetup(t, name, ctx)
	for range 50 {
		c.Call(context.Background(), req, h)
	}
	clear(tm.total)
	clear(tm.count)
	const N = 500
	t0 := time.Now()
	for range N {
		if _, err := c.Call(context.Background(), req, h); err != nil {
			t.Fatal(err)
		}
	}
	el := time.Since(t0)
	fmt.Printf("%s: %.1f µs/call\n", name, float64(el.Microseconds())/N)
	var keys []string
	for k := range tm.total {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return tm.total[keys[i]] > tm.total[keys[j]] })
	for _, k := range keys {
		fmt.Printf("  %-60s %8.2f calls/call %9.1f µs/call\n", k, float64(tm.count[k])/N, float64(tm.total[k].Nanoseconds())/N/1000)
	}
}

// counting listener: calls per function.
type counter struct{ n map[string]int }

func (cn *counter) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	return cn
}
func (cn *counter) Before(_ context.Context, _ api.Module, def api.FunctionDefinition, _ []uint64, _ experimental.StackIterator) {
	cn.n[def.DebugName()]++
}
func (cn *counter) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}
func (cn *counter) Abort(context.Context, api.Module, api.FunctionDefinition, error)    {}

func TestProfileCount(t *testing.T) {
	cn := &counter{n: map[string]int{}}
	name := os.Getenv("BESLUITBRON_WASM_PROFILE")
	ctx := experimental.WithFunctionListenerFactory(context.Background(), cn)
	c, h, req := profileSetup(t, name, ctx)
	for range 20 {
		c.Call(context.Background(), req, h)
	}
	clear(cn.n)
	const N = 100
	for range N {
		if _, err := c.Call(context.Background(), req, h); err != nil {
			t.Fatal(err)
		}
	}
	var keys []string
	tot := 0
	for k, v := range cn.n {
		keys = append(keys, k)
		tot += v
	}
	sort.Slice(keys, func(i, j int) bool { return cn.n[keys[i]] > cn.n[keys[j]] })
	fmt.Printf("%s: %.0f function calls/call\n", name, float64(tot)/N)
	for _, k := range keys {
		fmt.Printf("  %-70s %10.1f\n", k, float64(cn.n[k])/N)
	}
}

type segL struct{ f func(string) }

func (l segL) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	if def.ModuleName() == "besluitbron" && def.Name() != "interrupt_check" {
		return l
	}
	return nil
}
func (l segL) Before(_ context.Context, _ api.Module, def api.FunctionDefinition, _ []uint64, _ experimental.StackIterator) {
	l.f(def.Name())
}
func (segL) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}
func (segL) Abort(context.Context, api.Module, api.FunctionDefinition, error)    {}

func TestProfileSegments(t *testing.T) {
	name := os.Getenv("BESLUITBRON_WASM_PROFILE")
	var last time.Time
	var lastName string
	seg := map[string]time.Duration{}
	var order []string
	expTrace := func(n string) {
		now := time.Now()
		k := lastName + "→" + n
		if _, ok := seg[k]; !ok {
			order = append(order, k)
		}
		seg[k] += now.Sub(last)
		last, lastName = now, n
	}
	c, h, req := profileSetup(t, name, experimental.WithFunctionListenerFactory(context.Background(), segL{func(n string) { expTrace(n) }}))
	for range 50 {
		c.Call(context.Background(), req, h)
	}
	clear(seg)
	order = nil
	const N = 1000
	var total time.Duration
	for range N {
		last, lastName = time.Now(), "start"
		t0 := last
		if _, err := c.Call(context.Background(), req, h); err != nil {
			t.Fatal(err)
		}
		expTrace("end")
		total += time.Since(t0)
	}
	fmt.Printf("%s: %.1f µs/call\n", name, float64(total.Nanoseconds())/N/1000)
	for _, k := range order {
		fmt.Printf("  %-30s %8.1f µs\n", k, float64(seg[k].Nanoseconds())/N/1000)
	}
}

func threadCPU() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

func procCPU() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkProfileCall is one workload's call, plain, with its CPU time.
func BenchmarkProfileCall(b *testing.B) {
	for _, name := range []string{"small", "document"} {
		b.Run(name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			c, h, req := profileSetup(b, name, context.Background())
			for range 20 {
				c.Call(context.Background(), req, h)
			}
			b.ResetTimer()
			t0, p0 := threadCPU(), procCPU()
			for range b.N {
				if _, err := c.Call(context.Background(), req, h); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(threadCPU()-t0)/float64(b.N), "thread-cpu-ns/op")
			b.ReportMetric(float64(procCPU()-p0)/float64(b.N), "proc-cpu-ns/op")
		})
	}
}

func TestProfileGrowth(t *testing.T) {
	name := os.Getenv("BESLUITBRON_WASM_PROFILE")
	c, h, req := profileSetup(t, name, context.Background())
	var sizes []uint32
	last := uint32(0)
	for i := range 3000 {
		if _, err := c.Call(context.Background(), req, h); err != nil {
			t.Fatal(err)
		}
		in := <-c.idle
		if s := in.mod.Memory().Size(); s != last {
			sizes = append(sizes, uint32(i), s>>20)
			last = s
		}
		c.idle <- in
	}
	fmt.Println(name, "call, MiB:", sizes)
}

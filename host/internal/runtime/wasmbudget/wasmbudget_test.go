package wasmbudget_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmbudget"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// module assembles a binary module from its sections (id, body).
func module(sections ...[]byte) []byte {
	m := []byte("\x00asm\x01\x00\x00\x00")
	for _, s := range sections {
		m = append(m, s[0])
		m = append(m, byte(len(s)-1)) // bodies here stay under 128 bytes
		m = append(m, s[1:]...)
	}
	return m
}

var (
	// () -> i32, (i32) -> i32
	typeSec = []byte{1, 2, 0x60, 0, 1, 0x7F, 0x60, 1, 0x7F, 1, 0x7F}
	// besluitbron.interrupt_check: type 0
	importSec = append(append([]byte{2, 1, 11}, "besluitbron"...), append(append([]byte{15}, "interrupt_check"...), 0x00, 0)...)
	// one function of type 1 (function index 1, after the import)
	funcSec = []byte{3, 1, 1}
	// one mutable i32 global = 0 (so the new global is index 1)
	globalSec = []byte{6, 1, 0x7F, 0x01, 0x41, 0, 0x0B}
	exportSec = append(append([]byte{7, 1, 5}, "count"...), 0x00, 1)
)

// countBody counts a local up to its argument in a loop, touching the
// existing global on every iteration, and returns the count.
func countBody(extra ...byte) []byte {
	body := []byte{1, 1, 0x7F, // one i32 local (index 1)
		0x03, 0x40, // loop
		0x20, 1, 0x41, 1, 0x6A, 0x21, 1, // local1 += 1
		0x23, 0, 0x41, 1, 0x6A, 0x24, 0, // global0 += 1
	}
	body = append(body, extra...)
	body = append(body,
		0x20, 1, 0x20, 0, 0x49, 0x0D, 0, // br_if 0 while local1 < arg
		0x0B,    // end loop
		0x20, 1, // local1
		0x0B) // end function
	return append([]byte{byte(len(body))}, body...)
}

func codeSec(body []byte) []byte { return append([]byte{10, 1}, body...) }

func counter() []byte {
	return module(typeSec, importSec, funcSec, globalSec, exportSec, codeSec(countBody()))
}

// run instantiates wasm with an interrupt check that answers budget, or
// fails once it has been called stopAfter times (0: never), and calls
// count(n).
func run(t *testing.T, wasm []byte, n uint64, budget uint32, stopAfter int) (result uint64, checks int, err error) {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(false))
	defer r.Close(ctx)
	_, err = r.NewHostModuleBuilder(wasmbudget.ImportModule).NewFunctionBuilder().
		WithFunc(func(context.Context) uint32 {
			checks++
			if stopAfter > 0 && checks >= stopAfter {
				panic(errors.New("stopped by the interrupt check"))
			}
			return budget
		}).Export(wasmbudget.ImportName).Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := r.Instantiate(ctx, wasm)
	if err != nil {
		t.Fatalf("the rewritten module does not instantiate: %v", err)
	}
	res, err := mod.ExportedFunction("count").Call(ctx, api.EncodeU32(uint32(n)))
	if err != nil {
		return 0, checks, err
	}
	return res[0], checks, nil
}

func TestLoopsCountDownTheirBudget(t *testing.T) {
	out, st, err := wasmbudget.Instrument(counter(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if st.Functions != 1 || st.Loops != 1 {
		t.Fatalf("stats %+v, want 1 function with 1 loop", st)
	}
	got, checks, err := run(t, out, 1000, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got != 1000 {
		t.Fatalf("count(1000) = %d after the rewrite", got)
	}
	// The function's entry and 1000 loop headers spend the budget; it
	// starts at 10, so the 11th asks for a new one, then every 10th.
	if checks != 100 {
		t.Fatalf("%d interrupt checks in 1000 iterations with a budget of 10, want 100", checks)
	}
}

func TestARunawayLoopIsStopped(t *testing.T) {
	out, _, err := wasmbudget.Instrument(counter(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	// 4 billion iterations would take seconds; the check stops it at its
	// fifth call, after about 5000.
	_, checks, err := run(t, out, 1<<32-1, 1000, 5)
	if err == nil || !strings.Contains(err.Error(), "stopped by the interrupt check") {
		t.Fatalf("runaway loop: err = %v", err)
	}
	if checks != 5 {
		t.Fatalf("%d checks, want 5", checks)
	}
}

func TestModulesInstrumentedOrRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		wasm []byte
		want string // error text; "" = instrumented
	}{
		{"counter", counter(), ""},
		{"not wasm", []byte("hello, world"), "not a WebAssembly"},
		{"truncated", counter()[:30], "unexpected end"},
		{"no import", module(typeSec, funcSec, globalSec, append(append([]byte{7, 1, 5}, "count"...), 0x00, 0), codeSec(countBody())), wasmbudget.ErrNoImport.Error()},
		{"import of the wrong type", module(typeSec, append(append([]byte(nil), importSec[:len(importSec)-1]...), 1), funcSec, globalSec, exportSec, codeSec(countBody())), "wrong type"},
		{"code that sets the budget", module(typeSec, importSec, funcSec, globalSec, exportSec, codeSec(countBody(0x41, 5, 0x24, 1))), "global 1 does not exist"},
		{"SIMD", module(typeSec, importSec, funcSec, globalSec, exportSec, codeSec(countBody(0xFD, 12))), "0xFD is not supported"},
		{"exceptions", module(typeSec, importSec, funcSec, globalSec, exportSec, codeSec(countBody(0x06, 0x40, 0x0B))), "0x06 is not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := wasmbudget.Instrument(tc.wasm, 10)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestARunawayRecursionIsStopped: a call tree without loops (each call
// making two more, 2^40 in all) is stopped too: function entries spend
// the budget like loop headers.
func TestARunawayRecursionIsStopped(t *testing.T) {
	body := []byte{0, // no locals
		0x20, 0, 0x45, 0x04, 0x7F, 0x41, 1, // if n == 0: 1
		0x05, 0x20, 0, 0x41, 1, 0x6B, 0x10, 1, // else count(n-1)
		0x20, 0, 0x41, 1, 0x6B, 0x10, 1, 0x6A, // + count(n-1)
		0x0B, 0x0B}
	wasm := module(typeSec, importSec, funcSec, exportSec, codeSec(append([]byte{byte(len(body))}, body...)))
	out, st, err := wasmbudget.Instrument(wasm, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if st.Loops != 0 {
		t.Fatalf("stats %+v: the module has no loop", st)
	}
	if got, _, err := run(t, out, 10, 1000, 0); err != nil || got != 1024 {
		t.Fatalf("count(10) = %d, %v; want 1024", got, err)
	}
	_, checks, err := run(t, out, 40, 1000, 5)
	if err == nil || !strings.Contains(err.Error(), "stopped by the interrupt check") || checks != 5 {
		t.Fatalf("runaway recursion: %d checks, err = %v", checks, err)
	}
}

// TestModuleWithoutGlobalsGetsOne: the budget global needs a global
// section; one is made, in its place before the exports.
func TestModuleWithoutGlobalsGetsOne(t *testing.T) {
	body := []byte{1, 1, 0x7F, 0x03, 0x40, 0x20, 1, 0x41, 1, 0x6A, 0x21, 1, 0x20, 1, 0x20, 0, 0x49, 0x0D, 0, 0x0B, 0x20, 1, 0x0B}
	wasm := module(typeSec, importSec, funcSec, exportSec, codeSec(append([]byte{byte(len(body))}, body...)))
	out, _, err := wasmbudget.Instrument(wasm, 7)
	if err != nil {
		t.Fatal(err)
	}
	got, checks, err := run(t, out, 100, 7, 0)
	if err != nil || got != 100 || checks != 14 {
		// 101 probes (the entry and 100 loop headers) on a budget of 7.
		t.Fatalf("count(100) = %d, %d checks, err %v; want 100, 14, nil", got, checks, err)
	}
}

// TestConnectorsInstrument: a real connector built with the sdk imports
// the check, every one of its function bodies decodes, and wazero accepts
// the rewritten module.
func TestConnectorsInstrument(t *testing.T) {
	if raceEnabled {
		t.Skip("compiles two 4.5 MB modules in one goroutine: -race adds nothing, the plain run covers it")
	}
	ctx := context.Background()
	for _, pkg := range []string{"./plugins/obv/cmd", "./plugins/tk/cmd"} {
		wasm := wasmbuild.Bytes(t, pkg)
		out, st, err := wasmbudget.Instrument(wasm, 1<<16)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		if st.Functions < 1000 || st.Loops < st.Functions/2 {
			t.Fatalf("%s: %+v: a Go module has thousands of functions, most with a loop", pkg, st)
		}
		r := wazero.NewRuntime(ctx)
		if _, err := r.CompileModule(ctx, out); err != nil {
			t.Fatalf("%s: the rewritten module does not compile: %v", pkg, err)
		}
		r.Close(ctx)
		t.Logf("%s: %d functions, %d loops, %d → %d bytes", pkg, st.Functions, st.Loops, len(wasm), len(out))
	}
}

// FuzzInstrument: no input makes the rewriter panic, and a module wazero
// accepts stays one it accepts after the rewrite.
func FuzzInstrument(f *testing.F) {
	f.Add(counter())
	f.Add(module(typeSec, importSec, funcSec, exportSec, codeSec(countBody())))
	f.Add(counter()[:40])
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	f.Fuzz(func(t *testing.T, wasm []byte) {
		out, _, err := wasmbudget.Instrument(wasm, 3)
		if err != nil {
			return
		}
		if _, err := r.CompileModule(ctx, wasm); err != nil {
			return
		}
		if _, err := r.CompileModule(ctx, out); err != nil {
			t.Fatalf("a valid module no longer compiles after the rewrite: %v", err)
		}
	})
}

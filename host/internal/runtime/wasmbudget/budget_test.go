package wasmbudget_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"pgregory.net/rapid"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmbudget"
)

// runaways is a module of three calls that never end by themselves. Each
// counts its steps in the exported global "steps".
//
//	spin(_)     loops forever, one step per iteration
//	nested(k)   an endless loop around a loop of k iterations, one step per inner iteration
//	tree(n)     recurses without looping: tree(n-1) + tree(n-1), one step per call
func runaways() []byte {
	var m []byte
	m = append(m, "\x00asm\x01\x00\x00\x00"...)
	m = section(m, 1, vec(2, []byte{0x60, 0, 1, 0x7F}, []byte{0x60, 1, 0x7F, 1, 0x7F}))
	imp := append(name(wasmbudget.ImportModule), name(wasmbudget.ImportName)...)
	m = section(m, 2, vec(1, append(imp, 0x00, 0)))
	m = section(m, 3, vec(3, []byte{1}, []byte{1}, []byte{1})) // spin 1, nested 2, tree 3
	m = section(m, 6, vec(1, []byte{0x7F, 0x01, 0x41, 0, 0x0B}))
	m = section(m, 7, vec(4,
		append(name("spin"), 0x00, 1), append(name("nested"), 0x00, 2),
		append(name("tree"), 0x00, 3), append(name("steps"), 0x03, 0)))
	step := []byte{0x23, 0, 0x41, 1, 0x6A, 0x24, 0} // steps += 1
	spin := []byte{0, 0x03, 0x40}
	spin = append(spin, step...)
	spin = append(spin, 0x0C, 0, 0x0B, 0x41, 0, 0x0B) // br 0; end; i32.const 0; end
	nested := []byte{1, 1, 0x7F, 0x03, 0x40, 0x20, 0, 0x21, 1, 0x03, 0x40}
	nested = append(nested, step...)
	nested = append(nested, 0x20, 1, 0x41, 1, 0x6B, 0x22, 1, 0x0D, 0, 0x0B, // k -= 1; br_if 0; end
		0x0C, 0, 0x0B, 0x41, 0, 0x0B) // br 0; end; i32.const 0; end
	tree := append([]byte{0}, step...)
	tree = append(tree, 0x20, 0, 0x45, 0x04, 0x7F, 0x41, 1, // if n == 0: 1
		0x05, 0x20, 0, 0x41, 1, 0x6B, 0x10, 3, // else tree(n-1)
		0x20, 0, 0x41, 1, 0x6B, 0x10, 3, 0x6A, // + tree(n-1)
		0x0B, 0x0B)
	return section(m, 10, vec(3, withSize(spin), withSize(nested), withSize(tree)))
}

var errStop = errors.New("stopped by the interrupt check")

// TestRunawaysStopWithinBudget: with the interrupt check answering a
// budget of b for its first n calls and stopping the guest at the next,
// an endless loop, an endless loop around a finite one, and a recursion
// 2^n calls wide all trap with the check's error, after exactly n+1
// checks, having run at most (n+1)*b steps (the endless loop exactly
// (n+1)*b-1: its entry spends one unit of the first budget). It runs on
// the interpreter and on the compiler. It catches a loop or a function
// entry left without its probe (the call then runs until the test's
// deadline, and fails saying so), a probe that asks the host too often or
// too rarely, and a budget not renewed with the check's answer.
func TestRunawaysStopWithinBudget(t *testing.T) {
	wasm := runaways()
	rapid.Check(t, func(rt *rapid.T) {
		budget := rapid.Uint32Range(1, 5000).Draw(rt, "budget")
		n := rapid.IntRange(0, 20).Draw(rt, "continues")
		fn := rapid.SampledFrom([]string{"spin", "nested", "tree"}).Draw(rt, "function")
		arg := uint32(50)
		if fn == "nested" {
			arg = rapid.Uint32Range(1, 300).Draw(rt, "inner iterations")
		}
		interpreter := rapid.Bool().Draw(rt, "interpreter")

		out, _, err := wasmbudget.Instrument(wasm, budget)
		if err != nil {
			rt.Fatal(err)
		}
		// The runtime's own deadline is the safety net of the test: a
		// probe missing would otherwise spin for ever.
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		cfg := wazero.NewRuntimeConfigCompiler()
		if interpreter {
			cfg = wazero.NewRuntimeConfigInterpreter()
		}
		r := wazero.NewRuntimeWithConfig(ctx, cfg.WithCloseOnContextDone(true))
		defer r.Close(context.Background())
		checks := 0
		_, err = r.NewHostModuleBuilder(wasmbudget.ImportModule).NewFunctionBuilder().
			WithFunc(func(context.Context) uint32 {
				checks++
				if checks > n {
					panic(errStop)
				}
				return budget
			}).Export(wasmbudget.ImportName).Instantiate(ctx)
		if err != nil {
			rt.Fatal(err)
		}
		mod, err := r.Instantiate(ctx, out)
		if err != nil {
			rt.Fatal(err)
		}
		start := time.Now()
		_, err = mod.ExportedFunction(fn).Call(ctx, api.EncodeU32(arg))
		took := time.Since(start)
		steps := uint64(api.DecodeU32(mod.ExportedGlobal("steps").Get()))
		limit := uint64(n+1) * uint64(budget)
		switch {
		case err == nil:
			rt.Fatalf("%s returned; it never ends by itself", fn)
		case ctx.Err() != nil:
			rt.Fatalf("%s ran until the test's deadline (%v, %d checks, %d steps): the budget did not stop it", fn, took, checks, steps)
		case !strings.Contains(err.Error(), errStop.Error()):
			rt.Fatalf("%s: %v, want the interrupt check's error", fn, err)
		case checks != n+1:
			rt.Fatalf("%s: %d interrupt checks, want %d", fn, checks, n+1)
		case steps > limit:
			rt.Fatalf("%s: %d steps on %d budgets of %d", fn, steps, n+1, budget)
		case fn == "spin" && steps != limit-1:
			rt.Fatalf("spin: %d iterations, want %d: the entry and each loop header spend one unit", steps, limit-1)
		case fn == "tree" && steps != limit:
			rt.Fatalf("tree: %d calls, want %d: each entry spends one unit", steps, limit)
		}
	})
}

package wasmbudget_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmbudget"
)

// outcome is what one call of an exported function did.
type outcome struct {
	results []uint64
	trap    string // the error's first line ("" when the call returned)
	memory  []byte // the first words of memory after the call, if any
}

func (o outcome) String() string {
	if o.trap != "" {
		return "trap: " + o.trap
	}
	return fmt.Sprint("results ", o.results)
}

// runAll instantiates wasm on wazero's interpreter once per exported
// function, calls it with its argument, and reports what each call did
// and how often the interrupt check ran (it answers renew each time).
func runAll(t *testing.T, wasm []byte, m genModule, renew uint32) ([]outcome, int) {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	checks := 0
	_, err := r.NewHostModuleBuilder(wasmbudget.ImportModule).NewFunctionBuilder().
		WithFunc(func(context.Context) uint32 { checks++; return renew }).
		Export(wasmbudget.ImportName).Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := r.CompileModule(ctx, wasm)
	if err != nil {
		return nil, -1
	}
	var outs []outcome
	for i, name := range m.exports {
		mod, err := r.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName(""))
		if err != nil {
			t.Fatalf("instantiate: %v", err)
		}
		res, err := mod.ExportedFunction(name).Call(ctx, api.EncodeU32(m.args[i]))
		o := outcome{results: res}
		if err != nil {
			o.trap, _, _ = strings.Cut(err.Error(), "\n")
			o.results = nil
		}
		if m.memory {
			b, _ := mod.Memory().Read(0, 32)
			o.memory = bytes.Clone(b)
		}
		outs = append(outs, o)
		mod.Close(ctx)
	}
	return outs, checks
}

// differential checks that the rewritten module behaves as the original:
// every exported function returns the same results, or traps for the
// same reason, and leaves memory the same. It returns the outcomes and
// the interrupt checks the rewritten module made.
func differential(t *testing.T, code []byte, budget, renew uint32) ([]outcome, int) {
	t.Helper()
	m := generate(code)
	orig, origChecks := runAll(t, m.wasm, m, renew)
	if origChecks < 0 {
		t.Fatalf("the generator made a module wazero refuses (a bug in gen_test.go); input %x", code)
	}
	if origChecks != 0 {
		t.Fatalf("the original module called the interrupt check %d times; it never should", origChecks)
	}
	out, _, err := wasmbudget.Instrument(m.wasm, budget)
	if err != nil {
		t.Fatalf("a generated module is refused: %v", err)
	}
	got, checks := runAll(t, out, m, renew)
	if checks < 0 {
		t.Fatalf("the rewritten module does not compile")
	}
	for i := range orig {
		o, g := orig[i], got[i]
		if o.trap != g.trap || !equalU64(o.results, g.results) || !bytes.Equal(o.memory, g.memory) {
			t.Fatalf("%s(%d): original %v, memory %x; rewritten %v, memory %x (budget %d, renew %d, input %x)",
				m.exports[i], m.args[i], o, o.memory, g, g.memory, budget, renew, code)
		}
	}
	return orig, checks
}

func equalU64(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// genSeeds are fixed inputs for the generator: a few by hand, the rest
// pseudo-random with a fixed seed, so the set is the same on every run.
func genSeeds() [][]byte {
	seeds := [][]byte{
		nil,
		{0, 0, 0},
		{3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 3}, // nested counted loops
		{1, 0, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, // calls
		{0, 1, 1, 2, 2, 7, 7, 7, 7, 7, 7, 7, 7, 2, 2, 2, 2},    // traps
	}
	rng := rand.New(rand.NewPCG(16, 16))
	for i := 0; i < 96; i++ {
		b := make([]byte, 16+rng.IntN(400))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzInstrumentDifferential: a generated module (loops, blocks, branches,
// direct and indirect calls, recursion, traps) gives the same results and
// the same traps on wazero's interpreter before and after the rewrite,
// with the interrupt check answering "continue". It catches a probe that
// is not stack neutral, lands inside an instruction's immediates or in
// the wrong place, or a global or function index the rewrite shifts.
func FuzzInstrumentDifferential(f *testing.F) {
	for i, s := range genSeeds() {
		f.Add(uint16(i%5), uint16(1000*i), s)
	}
	f.Fuzz(func(t *testing.T, budget, renew uint16, code []byte) {
		differential(t, code, uint32(budget), uint32(renew)+1)
	})
}

// TestDifferentialGeneratorCoverage: the seed set exercises what the
// differential test is for. A generator that stopped making loops, calls
// or traps, or whose modules never spend their budget, would pass the
// comparison vacuously.
func TestDifferentialGeneratorCoverage(t *testing.T) {
	var modules, loops, calls, traps, returns, checked int
	for _, s := range genSeeds() {
		m := generate(s)
		_, st, err := wasmbudget.Instrument(m.wasm, 1)
		if err != nil {
			t.Fatal(err)
		}
		modules++
		loops += st.Loops
		if bytes.Contains(m.wasm, []byte{0x10, firstFunc}) {
			calls++
		}
		outs, checks := differential(t, s, 3, 5)
		if checks > 0 {
			checked++
		}
		for _, o := range outs {
			if o.trap != "" {
				traps++
			} else {
				returns++
			}
		}
	}
	t.Logf("%d modules: %d loops; calls %d; %d calls returned, %d trapped; %d spent their budget", modules, loops, calls, returns, traps, checked)
	if loops < modules || traps == 0 || returns < traps || checked < modules/2 {
		t.Fatalf("the generated seed modules do not exercise loops, traps and budget renewals enough")
	}
}

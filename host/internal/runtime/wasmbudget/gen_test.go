package wasmbudget_test

import "github.com/besluitbron/besluitbron/host/internal/runtime/wasmbudget"

// This file is a small generator of valid WebAssembly modules that import
// the interrupt check and always terminate: the differential fuzz test
// runs them before and after the rewrite, and the golden test pins the
// rewrite's output on a fixed set of them.
//
// Every generated function has the type (i32) -> i32 and the locals
// 0 (the argument), 1 (an accumulator, the function's result) and
// 2..2+maxLoops-1 (loop counters, one per loop nesting level). Every
// function starts by spending one unit of fuel (a global, or the i32 at
// address 0 of memory) and returns at once when there is none left, so
// calls and recursion end; every loop counts its own counter down from a
// small constant, so loops end. Within those bounds the code branches out
// of blocks (br, br_if, br_table), returns early, calls any function
// (itself too) directly and through a table, and may trap (unreachable,
// division by zero, a table index out of range).

const (
	genMaxFuncs  = 4
	genMaxLoops  = 3  // nesting levels of counted loops
	genMaxDepth  = 5  // nesting of blocks and expressions
	genMaxNodes  = 60 // statements and expressions per function body
	genFuel      = 150
	genMaxTrips  = 4 // iterations of one loop
	typeCheck    = 0 // () -> i32, the interrupt check
	typeFunc     = 1 // (i32) -> i32, every generated function
	typeMulti    = 2 // (i32) -> (i32, i32), a block type given by index
	firstFunc    = 1 // function index of the first generated function (after the import)
	localArg     = 0
	localAcc     = 1
	localCounter = 2
)

// genSource hands out the fuzz input's bytes; past its end it answers 0,
// which every choice maps to its simplest, ending case.
type genSource struct {
	b []byte
	i int
}

func (s *genSource) byte() byte {
	if s.i >= len(s.b) {
		return 0
	}
	c := s.b[s.i]
	s.i++
	return c
}

// n picks a number in [0, k).
func (s *genSource) n(k int) int { return int(s.byte()) % k }

func (s *genSource) exhausted() bool { return s.i >= len(s.b) }

// genModule is a generated module and what the test needs to run it.
type genModule struct {
	wasm    []byte
	exports []string // the functions, exported as f0, f1, ...
	args    []uint32 // an argument for each call of the test
	memory  bool     // the module has a memory (and keeps its fuel there)
}

type label struct {
	branchable bool // a block or if without results: br may target it
}

type genFunc struct {
	s        *genSource
	nfuncs   int
	inMemory bool // fuel lives in memory, and the module has no globals
	nodes    int
	labels   []label // innermost last
	loops    int     // counted loops open
}

// generate builds a module from fuzz bytes.
func generate(b []byte) genModule {
	s := &genSource{b: b}
	nfuncs := 1 + s.n(genMaxFuncs)
	inMemory := s.n(2) == 1
	withTable := s.n(2) == 1

	var m []byte
	m = append(m, "\x00asm\x01\x00\x00\x00"...)
	// Types.
	m = section(m, 1, vec(3,
		[]byte{0x60, 0, 1, 0x7F},
		[]byte{0x60, 1, 0x7F, 1, 0x7F},
		[]byte{0x60, 1, 0x7F, 2, 0x7F, 0x7F},
	))
	// Imports: the interrupt check.
	imp := append(name(wasmbudget.ImportModule), name(wasmbudget.ImportName)...)
	imp = append(imp, 0x00, typeCheck)
	m = section(m, 2, vec(1, imp))
	// Functions.
	var funcs [][]byte
	for i := 0; i < nfuncs; i++ {
		funcs = append(funcs, []byte{typeFunc})
	}
	m = section(m, 3, vec(nfuncs, funcs...))
	if withTable {
		m = section(m, 4, vec(1, []byte{0x70, 0x00, byte(nfuncs)})) // funcref, min nfuncs
	}
	if inMemory {
		m = section(m, 5, vec(1, []byte{0x00, 1})) // one page
	} else {
		// The fuel: a mutable i32.
		g := append([]byte{0x7F, 0x01, 0x41}, sleb(genFuel)...)
		m = section(m, 6, vec(1, append(g, 0x0B)))
	}
	var exps [][]byte
	var names []string
	for i := 0; i < nfuncs; i++ {
		n := "f" + string(rune('0'+i))
		names = append(names, n)
		exps = append(exps, append(name(n), 0x00, byte(firstFunc+i)))
	}
	m = section(m, 7, vec(nfuncs, exps...))
	if withTable {
		seg := []byte{0x00, 0x41, 0x00, 0x0B, byte(nfuncs)}
		for i := 0; i < nfuncs; i++ {
			seg = append(seg, byte(firstFunc+i))
		}
		m = section(m, 9, vec(1, seg))
	}
	var bodies [][]byte
	for i := 0; i < nfuncs; i++ {
		g := &genFunc{s: s, nfuncs: nfuncs, inMemory: inMemory}
		bodies = append(bodies, withSize(g.body(withTable)))
	}
	m = section(m, 10, vec(nfuncs, bodies...))
	if inMemory {
		seg := []byte{0x00, 0x41, 0x00, 0x0B, 4}
		seg = append(seg, byte(genFuel), 0, 0, 0)
		m = section(m, 11, vec(1, seg))
	}
	// A custom section the rewrite keeps, and one it drops.
	m = section(m, 0, append(name("note"), "kept"...))
	m = section(m, 0, append(name(".debug_info"), 1, 2, 3))

	args := make([]uint32, nfuncs)
	for i := range args {
		args[i] = uint32(s.n(8)) // small arguments
	}
	return genModule{wasm: m, exports: names, args: args, memory: inMemory}
}

func (g *genFunc) body(withTable bool) []byte {
	// Locals: one i32 accumulator, then a counter per loop level.
	out := []byte{1, byte(1 + genMaxLoops), 0x7F}
	// Spend one unit of fuel; with none left, return the argument.
	out = append(out, g.fuelGet()...)
	out = append(out, 0x45, 0x04, 0x40, 0x20, localArg, 0x0F, 0x0B) // i32.eqz; if; local.get 0; return; end
	out = append(out, g.fuelSet(append(g.fuelGet(), 0x41, 1, 0x6B))...)
	g.labels = []label{{branchable: false}} // the function's own label has a result
	n := 1 + g.s.n(6)
	for i := 0; i < n; i++ {
		out = append(out, g.stmt(0, withTable)...)
	}
	out = append(out, 0x20, localAcc, 0x0B)
	return out
}

func (g *genFunc) fuelGet() []byte {
	if g.inMemory {
		return []byte{0x41, 0, 0x28, 2, 0} // i32.const 0; i32.load align=2 offset=0
	}
	return []byte{0x23, 0}
}

// fuelSet stores the i32 that value pushes.
func (g *genFunc) fuelSet(value []byte) []byte {
	if g.inMemory {
		out := append([]byte{0x41, 0}, value...)
		return append(out, 0x36, 2, 0) // i32.store
	}
	return append(append([]byte(nil), value...), 0x24, 0)
}

// stmt is stack neutral.
func (g *genFunc) stmt(depth int, withTable bool) []byte {
	g.nodes++
	if depth >= genMaxDepth || g.nodes > genMaxNodes || g.s.exhausted() {
		return append(g.expr(depth+1, withTable), 0x21, localAcc)
	}
	switch g.s.n(12) {
	case 0: // block
		return g.nested(0x02, 0x40, depth, withTable)
	case 1: // a counted loop
		if g.loops >= genMaxLoops {
			break
		}
		c := byte(localCounter + g.loops)
		out := []byte{0x41, byte(1 + g.s.n(genMaxTrips)), 0x21, c, 0x03, 0x40}
		g.loops++
		g.labels = append(g.labels, label{}) // br to a loop's label restarts it: never target it
		for i, n := 0, 1+g.s.n(3); i < n; i++ {
			out = append(out, g.stmt(depth+1, withTable)...)
		}
		g.labels = g.labels[:len(g.labels)-1]
		g.loops--
		// counter -= 1; br_if 0 while it is not 0
		return append(out, 0x20, c, 0x41, 1, 0x6B, 0x22, c, 0x0D, 0, 0x0B)
	case 2: // if / else
		out := g.expr(depth+1, withTable)
		out = append(out, 0x04, 0x40)
		g.labels = append(g.labels, label{branchable: true})
		out = append(out, g.stmt(depth+1, withTable)...)
		if g.s.n(2) == 1 {
			out = append(out, 0x05)
			out = append(out, g.stmt(depth+1, withTable)...)
		}
		g.labels = g.labels[:len(g.labels)-1]
		return append(out, 0x0B)
	case 3: // br_if to an enclosing block
		if t, ok := g.target(); ok {
			return append(g.expr(depth+1, withTable), 0x0D, t)
		}
	case 4: // br (what follows is unreachable, and still valid)
		if t, ok := g.target(); ok {
			return []byte{0x0C, t}
		}
	case 5: // br_table over enclosing blocks
		var ts []byte
		for i, n := 0, 1+g.s.n(3); i < n; i++ {
			if t, ok := g.target(); ok {
				ts = append(ts, t)
			}
		}
		if len(ts) == 0 {
			break
		}
		out := append(g.expr(depth+1, withTable), 0x0E)
		out = append(out, uleb(uint32(len(ts)-1))...)
		return append(out, ts...)
	case 6: // return early
		return append(g.expr(depth+1, withTable), 0x0F)
	case 7: // trap when a condition holds
		return append(g.expr(depth+1, withTable), 0x04, 0x40, 0x00, 0x0B)
	case 8: // store to memory (the fuel's page) or to the fuel global
		if g.inMemory {
			out := append([]byte{0x41, byte(4 + 4*g.s.n(4))}, g.expr(depth+1, withTable)...)
			return append(out, 0x36, 2, 0)
		}
		// Only ever less fuel, so calls still end.
		return g.fuelSet(append(g.fuelGet(), 0x41, 1, 0x76)) // fuel >>= 1 (shr_u)
	case 9: // a block typed by index: (i32) -> (i32, i32), then drop one
		out := append(g.expr(depth+1, withTable), 0x02, typeMulti)
		g.labels = append(g.labels, label{})
		out = append(out, 0x21, localAcc) // consume the parameter
		out = append(out, g.stmt(depth+1, withTable)...)
		out = append(out, g.expr(depth+1, withTable)...)
		out = append(out, g.expr(depth+1, withTable)...)
		g.labels = g.labels[:len(g.labels)-1]
		return append(out, 0x0B, 0x1A, 0x21, localAcc) // end; drop; local.set 1
	case 10: // a loop typed (result i32), which does not branch back
		g.labels = append(g.labels, label{})
		out := append([]byte{0x03, 0x7F}, g.stmt(depth+1, withTable)...)
		out = append(out, g.expr(depth+1, withTable)...)
		g.labels = g.labels[:len(g.labels)-1]
		return append(out, 0x0B, 0x21, localAcc)
	}
	return append(g.expr(depth+1, withTable), 0x21, localAcc)
}

func (g *genFunc) nested(op, bt byte, depth int, withTable bool) []byte {
	out := []byte{op, bt}
	g.labels = append(g.labels, label{branchable: true})
	for i, n := 0, 1+g.s.n(3); i < n; i++ {
		out = append(out, g.stmt(depth+1, withTable)...)
	}
	g.labels = g.labels[:len(g.labels)-1]
	return append(out, 0x0B)
}

// target picks an enclosing label br may take (relative depth).
func (g *genFunc) target() (byte, bool) {
	var ok []byte
	for i := len(g.labels) - 1; i >= 0; i-- {
		if g.labels[i].branchable {
			ok = append(ok, byte(len(g.labels)-1-i))
		}
	}
	if len(ok) == 0 {
		return 0, false
	}
	return ok[g.s.n(len(ok))], true
}

// expr pushes one i32.
func (g *genFunc) expr(depth int, withTable bool) []byte {
	g.nodes++
	if depth >= genMaxDepth || g.nodes > genMaxNodes || g.s.exhausted() {
		return []byte{0x20, byte(g.s.n(2))} // local.get 0 or 1
	}
	switch g.s.n(13) {
	case 0:
		return append([]byte{0x41}, sleb(int64(int8(g.s.byte())))...)
	case 1:
		return []byte{0x20, byte(g.s.n(2 + g.loops))}
	case 2: // binary operators, division and remainder included (they may trap)
		ops := []byte{0x6A, 0x6B, 0x6C, 0x6D, 0x6E, 0x6F, 0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x46, 0x48}
		out := g.expr(depth+1, withTable)
		out = append(out, g.expr(depth+1, withTable)...)
		return append(out, ops[g.s.n(len(ops))])
	case 3: // a call (recursion too)
		out := g.expr(depth+1, withTable)
		return append(out, 0x10, byte(firstFunc+g.s.n(g.nfuncs)))
	case 4: // a call through the table; the index may be out of range
		if !withTable {
			return g.fuelGet()
		}
		out := g.expr(depth+1, withTable)
		out = append(out, 0x41, byte(g.s.n(g.nfuncs+1)))
		return append(out, 0x11, typeFunc, 0x00)
	case 5:
		return append(g.expr(depth+1, withTable), 0x45) // i32.eqz
	case 6: // select
		out := g.expr(depth+1, withTable)
		out = append(out, g.expr(depth+1, withTable)...)
		out = append(out, g.expr(depth+1, withTable)...)
		if g.s.n(2) == 1 {
			return append(out, 0x1C, 1, 0x7F) // select (result i32)
		}
		return append(out, 0x1B)
	case 7: // through i64, with a multi-byte constant
		out := append(g.expr(depth+1, withTable), 0xAC, 0x42) // i64.extend_i32_s; i64.const
		out = append(out, sleb(int64(g.s.byte())<<40-int64(g.s.byte()))...)
		return append(out, 0x7E, 0xA7) // i64.mul; i32.wrap_i64
	case 8: // through f32 and a saturating truncation (0xFC 0)
		out := append(g.expr(depth+1, withTable), 0xB2, 0x43, 0, 0, 0xC0, 0x3F) // f32.convert_i32_s; f32.const 1.5
		return append(out, 0x94, 0xFC, 0x00)                                    // f32.mul; i32.trunc_sat_f32_s
	case 9: // through f64
		out := append(g.expr(depth+1, withTable), 0xB7, 0x44, 0, 0, 0, 0, 0, 0, 0xE0, 0xBF) // f64.convert_i32_s; f64.const -0.5
		return append(out, 0xA0, 0xAA)                                                      // f64.add; i32.trunc_f64_s
	case 10: // if with a result
		out := g.expr(depth+1, withTable)
		out = append(out, 0x04, 0x7F)
		g.labels = append(g.labels, label{})
		out = append(out, g.expr(depth+1, withTable)...)
		out = append(out, 0x05)
		out = append(out, g.expr(depth+1, withTable)...)
		g.labels = g.labels[:len(g.labels)-1]
		return append(out, 0x0B)
	case 11: // the fuel left, or a word of memory
		if g.inMemory {
			return []byte{0x41, byte(4 * g.s.n(5)), 0x28, 2, 0}
		}
		return g.fuelGet()
	case 12: // memory.size, or a local.tee
		if g.inMemory {
			return []byte{0x3F, 0x00}
		}
		return append(g.expr(depth+1, withTable), 0x22, localAcc)
	}
	return []byte{0x20, localArg}
}

func section(m []byte, id byte, body []byte) []byte {
	m = append(m, id)
	m = append(m, uleb(uint32(len(body)))...)
	return append(m, body...)
}

func vec(n int, items ...[]byte) []byte {
	out := uleb(uint32(n))
	for _, it := range items {
		out = append(out, it...)
	}
	return out
}

func name(s string) []byte { return append(uleb(uint32(len(s))), s...) }

func withSize(b []byte) []byte { return append(uleb(uint32(len(b))), b...) }

func uleb(v uint32) []byte {
	var out []byte
	for {
		c := byte(v & 0x7F)
		v >>= 7
		if v == 0 {
			return append(out, c)
		}
		out = append(out, c|0x80)
	}
}

func sleb(v int64) []byte {
	var out []byte
	for {
		c := byte(v & 0x7F)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(out, c)
		}
		out = append(out, c|0x80)
	}
}

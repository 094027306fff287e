package wasmbudget

import (
	"errors"
	"fmt"
)

// plan is the rewrite, worked out: the indices the probe names, and where
// every probe goes.
type plan struct {
	checkFunc    uint32 // the interrupt check's function index
	budgetGlobal uint32 // the new global's index, after every other global
	// code holds, for each code section by its position in the module's
	// sections, its function bodies and where their probes go.
	code  map[int][]funcBody
	stats Stats
}

// funcBody is a function body (without its size) and the offsets in it
// where a probe goes: after its locals, then after each loop's block type.
type funcBody struct {
	body   []byte
	probes []int
}

// index finds the interrupt check among the imports, gives the budget the
// next global index, and decodes every function body to find where the
// probes go. It refuses code that names the budget's global (a guest must
// not reset its own budget) or that it cannot decode. On an error the
// returned plan's stats count what was decoded before it.
func index(m *wasmModule) (*plan, error) {
	p := &plan{code: map[int][]funcBody{}}
	found := false
	for i, f := range m.funcImports {
		if f.module == ImportModule && f.name == ImportName {
			if f.typ != "\x00\x01\x7F" {
				return p, fmt.Errorf("wasmbudget: %s.%s has the wrong type; want () -> i32", ImportModule, ImportName)
			}
			p.checkFunc, found = uint32(i), true
		}
	}
	if !found {
		return p, ErrNoImport
	}
	// The index space of globals starts with the imports.
	p.budgetGlobal = uint32(m.importedGlobals + m.globals)

	// Every body's probe offsets share one backing array.
	var offsets []int
	for i, s := range m.sections {
		if s.id != secCode {
			continue
		}
		r := &reader{b: s.body}
		n := r.u32()
		var bodies []funcBody
		for f := uint32(0); f < n; f++ {
			size := r.u32()
			fn := r.bytes(int(size))
			if r.err != nil {
				return p, fmt.Errorf("wasmbudget: function body %d: %w", f, r.err)
			}
			start := len(offsets)
			var err error
			offsets, err = indexBody(offsets, fn, p.budgetGlobal, &p.stats)
			if err != nil {
				return p, fmt.Errorf("wasmbudget: function body %d: %w", f, err)
			}
			p.stats.Functions++
			bodies = append(bodies, funcBody{body: fn, probes: offsets[start:len(offsets):len(offsets)]})
		}
		if !r.done() {
			return p, errors.New("wasmbudget: bytes after the last function body")
		}
		p.code[i] = bodies
	}
	return p, nil
}

// indexBody decodes the function body fn and appends to offsets where its
// probes go: at its entry, after the locals (a call tree that recurses
// without looping, each call making two more, is as endless as a loop),
// and at the start of every loop body, after the loop's block type.
func indexBody(offsets []int, fn []byte, budgetGlobal uint32, st *Stats) ([]int, error) {
	r := &reader{b: fn}
	groups := r.u32()
	for g := uint32(0); g < groups && r.err == nil; g++ {
		r.u32()
		r.valtype()
	}
	if r.err != nil {
		return offsets, r.err
	}
	offsets = append(offsets, r.pos)
	depth := 1 // the function's own block
	for depth > 0 {
		if r.done() {
			return offsets, errors.New("body ends before its last end")
		}
		op := r.byte()
		switch {
		case op == 0x02 || op == 0x04: // block, if
			r.blocktype()
			depth++
		case op == 0x03: // loop
			r.blocktype()
			depth++
			if r.err == nil {
				offsets = append(offsets, r.pos)
				st.Loops++
			}
		case op == 0x0B: // end
			depth--
		case op == 0x00 || op == 0x01 || op == 0x05 || op == 0x0F || op == 0x1A || op == 0x1B || op == 0xD1 ||
			(op >= 0x45 && op <= 0xC4):
			// no immediates
		case op == 0x0C || op == 0x0D || op == 0x10 || op == 0x12 || op == 0xD2 ||
			(op >= 0x20 && op <= 0x22) || op == 0x25 || op == 0x26 || op == 0x3F || op == 0x40:
			r.u32()
		case op == 0x23 || op == 0x24: // global.get, global.set
			if idx := r.u32(); r.err == nil && idx >= budgetGlobal {
				return offsets, fmt.Errorf("global %d does not exist", idx)
			}
		case op == 0x0E: // br_table
			n := r.u32()
			for i := uint32(0); i <= n && r.err == nil; i++ {
				r.u32()
			}
		case op == 0x11 || op == 0x13: // call_indirect, return_call_indirect
			r.u32()
			r.u32()
		case op == 0x1C: // select t*
			n := r.u32()
			for i := uint32(0); i < n && r.err == nil; i++ {
				r.valtype()
			}
		case op >= 0x28 && op <= 0x3E: // loads and stores
			r.memarg()
		case op == 0x41:
			r.s64()
		case op == 0x42:
			r.s64()
		case op == 0x43:
			r.bytes(4)
		case op == 0x44:
			r.bytes(8)
		case op == 0xD0: // ref.null
			r.byte()
		case op == 0xFC:
			switch sub := r.u32(); {
			case sub <= 7: // saturating truncations
			case sub == 8 || sub == 10 || sub == 12 || sub == 14: // memory.init, memory.copy, table.init, table.copy
				r.u32()
				r.u32()
			case sub == 9 || sub == 11 || sub == 13 || (sub >= 15 && sub <= 17):
				r.u32()
			default:
				return offsets, fmt.Errorf("unknown instruction 0xFC %d", sub)
			}
		default:
			return offsets, fmt.Errorf("instruction 0x%02X is not supported", op)
		}
		if r.err != nil {
			return offsets, r.err
		}
	}
	if !r.done() {
		return offsets, errors.New("bytes after the body's end")
	}
	return offsets, nil
}

package wasmcheck

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// ImportModule and ImportName name the host function the rewritten loops
// call when their budget runs out. Its type is () -> i32: the new budget.
const (
	ImportModule = "besluitbron"
	ImportName   = "interrupt_check"
)

// ErrNoImport means the module does not import the interrupt check: it
// was not built with the sdk, and is not rewritten.
var ErrNoImport = errors.New("wasmcheck: the module does not import " + ImportModule + "." + ImportName)

// Stats describe one rewrite.
type Stats struct {
	Functions int // function bodies decoded
	Loops     int // loop headers instrumented
}

const (
	secCustom = 0
	secType   = 1
	secImport = 2
	secGlobal = 6
	secCode   = 10
)

type section struct {
	id   byte
	body []byte
}

// Instrument returns module with every loop and function entry counting
// down a budget that starts at budget (and is renewed by each call of the
// interrupt check).
// It returns ErrNoImport when the module does not import the check, and
// another error when it cannot rewrite the module safely; either way the
// caller runs the module as it is, with wazero's own termination checks.
func Instrument(module []byte, budget uint32) ([]byte, Stats, error) {
	var st Stats
	if len(module) < 8 || !bytes.Equal(module[:4], []byte("\x00asm")) || !bytes.Equal(module[4:8], []byte{1, 0, 0, 0}) {
		return nil, st, errors.New("wasmcheck: not a WebAssembly 1.0 binary module")
	}
	var secs []section
	r := &reader{b: module, pos: 8}
	for !r.done() {
		id := r.byte()
		size := r.u32()
		body := r.bytes(int(size))
		if r.err != nil {
			return nil, st, fmt.Errorf("wasmcheck: section %d: %w", id, r.err)
		}
		secs = append(secs, section{id: id, body: body})
	}

	// The index space of functions and globals starts with the imports.
	checkFunc, importedFuncs, importedGlobals := -1, 0, 0
	var types []string // each function type, as its encoded params and results
	globals := 0
	for _, s := range secs {
		r := &reader{b: s.body}
		switch s.id {
		case secType:
			n := r.u32()
			for i := uint32(0); i < n && r.err == nil; i++ {
				if r.byte() != 0x60 {
					return nil, st, errors.New("wasmcheck: a type that is not a function type")
				}
				start := r.pos
				r.bytes(int(r.u32()))
				r.bytes(int(r.u32()))
				if r.err == nil {
					types = append(types, string(r.b[start:r.pos]))
				}
			}
		case secImport:
			n := r.u32()
			for i := uint32(0); i < n && r.err == nil; i++ {
				mod, name := r.name(), r.name()
				switch kind := r.byte(); kind {
				case 0x00:
					ti := r.u32()
					if mod == ImportModule && name == ImportName {
						if int(ti) >= len(types) || types[ti] != "\x00\x01\x7F" {
							return nil, st, fmt.Errorf("wasmcheck: %s.%s has the wrong type; want () -> i32", ImportModule, ImportName)
						}
						checkFunc = importedFuncs
					}
					importedFuncs++
				case 0x01:
					r.byte()
					r.limits()
				case 0x02:
					r.limits()
				case 0x03:
					r.byte()
					r.byte()
					importedGlobals++
				default:
					return nil, st, fmt.Errorf("wasmcheck: import of unknown kind %d", kind)
				}
			}
		case secGlobal:
			globals = int(r.u32())
		case 13:
			// Tags (exceptions) sit between memories and globals; with
			// them the new global's place is not settled here.
			return nil, st, errors.New("wasmcheck: modules with exception tags are not supported")
		}
		if r.err != nil {
			return nil, st, fmt.Errorf("wasmcheck: section %d: %w", s.id, r.err)
		}
	}
	if checkFunc < 0 {
		return nil, st, ErrNoImport
	}
	budgetGlobal := uint32(importedGlobals + globals)

	// The new global: a mutable i32 holding the budget.
	newGlobal := []byte{0x7F, 0x01, 0x41}
	newGlobal = appendS32(newGlobal, int32(budget))
	newGlobal = append(newGlobal, 0x0B)

	// The inserted check, at the start of every function body and every
	// loop body: when the budget is spent, ask the host for a new one (or
	// a trap); then spend one. Stack-neutral, so it is valid under any
	// block type.
	var probe []byte
	probe = append(probe, 0x23)
	probe = appendU32(probe, budgetGlobal) // global.get
	probe = append(probe, 0x45, 0x04, 0x40, 0x10)
	probe = appendU32(probe, uint32(checkFunc)) // i32.eqz; if; call
	probe = append(probe, 0x24)
	probe = appendU32(probe, budgetGlobal) // global.set
	probe = append(probe, 0x0B, 0x23)      // end; global.get
	probe = appendU32(probe, budgetGlobal)
	probe = append(probe, 0x41, 0x01, 0x6B, 0x24) // i32.const 1; i32.sub; global.set
	probe = appendU32(probe, budgetGlobal)

	// The probes add a few percent; room for them up front spares the
	// copies of a growing buffer.
	out := make([]byte, 0, len(module)+len(module)/8+64)
	out = append(out, module[:8]...)
	wroteGlobal := false
	writeSection := func(id byte, body []byte) {
		out = append(out, id)
		out = appendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	for _, s := range secs {
		switch {
		case s.id == secCustom:
			// DWARF describes code offsets the rewrite moves: drop it
			// rather than let it mislead a stack trace.
			if name := (&reader{b: s.body}).name(); strings.HasPrefix(name, ".debug_") {
				continue
			}
			writeSection(s.id, s.body)
		case s.id == secGlobal:
			r := &reader{b: s.body}
			n := r.u32()
			body := appendU32(nil, n+1)
			body = append(body, s.body[r.pos:]...)
			body = append(body, newGlobal...)
			writeSection(s.id, body)
			wroteGlobal = true
		case s.id > secGlobal: // exports, start, elements, data count, code, data
			if !wroteGlobal {
				// No global section: one goes before what follows globals.
				writeSection(secGlobal, append(appendU32(nil, 1), newGlobal...))
				wroteGlobal = true
			}
			if s.id != secCode {
				writeSection(s.id, s.body)
				continue
			}
			body, err := rewriteCode(s.body, probe, budgetGlobal, &st)
			if err != nil {
				return nil, st, err
			}
			writeSection(s.id, body)
		default:
			writeSection(s.id, s.body)
		}
	}
	if !wroteGlobal {
		writeSection(secGlobal, append(appendU32(nil, 1), newGlobal...))
	}
	return out, st, nil
}

// rewriteCode inserts probe at the entry of every function body in a code
// section and after the block type of each of its loops.
func rewriteCode(sec []byte, probe []byte, budgetGlobal uint32, st *Stats) ([]byte, error) {
	r := &reader{b: sec}
	n := r.u32()
	out := make([]byte, 0, len(sec)+len(sec)/8)
	out = appendU32(out, n)
	var body []byte // one function's rewritten body, reused
	for i := uint32(0); i < n; i++ {
		size := r.u32()
		fn := r.bytes(int(size))
		if r.err != nil {
			return nil, fmt.Errorf("wasmcheck: function body %d: %w", i, r.err)
		}
		var err error
		body, err = rewriteBody(body[:0], fn, probe, budgetGlobal, st)
		if err != nil {
			return nil, fmt.Errorf("wasmcheck: function body %d: %w", i, err)
		}
		st.Functions++
		out = appendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	if !r.done() {
		return nil, errors.New("wasmcheck: bytes after the last function body")
	}
	return out, nil
}

// rewriteBody appends fn, rewritten, to out.
func rewriteBody(out, fn []byte, probe []byte, budgetGlobal uint32, st *Stats) ([]byte, error) {
	r := &reader{b: fn}
	groups := r.u32()
	for g := uint32(0); g < groups && r.err == nil; g++ {
		r.u32()
		r.valtype()
	}
	if r.err != nil {
		return nil, r.err
	}
	out = append(out, fn[:r.pos]...)
	// At the function's entry too: a call tree that recurses without
	// looping (each call making two more) is as endless as a loop.
	out = append(out, probe...)
	copied := r.pos
	depth := 1 // the function's own block
	for depth > 0 {
		if r.done() {
			return nil, errors.New("body ends before its last end")
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
				out = append(out, fn[copied:r.pos]...)
				out = append(out, probe...)
				copied = r.pos
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
				return nil, fmt.Errorf("global %d does not exist", idx)
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
				return nil, fmt.Errorf("unknown instruction 0xFC %d", sub)
			}
		default:
			return nil, fmt.Errorf("instruction 0x%02X is not supported", op)
		}
		if r.err != nil {
			return nil, r.err
		}
	}
	if !r.done() {
		return nil, errors.New("bytes after the body's end")
	}
	return append(out, fn[copied:]...), nil
}

// reader decodes the binary format; the first error sticks.
type reader struct {
	b   []byte
	pos int
	err error
}

var errShort = errors.New("unexpected end")

func (r *reader) done() bool { return r.err != nil || r.pos >= len(r.b) }

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.pos >= len(r.b) {
		r.err = errShort
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.pos {
		r.err = errShort
		return nil
	}
	b := r.b[r.pos : r.pos+n]
	r.pos += n
	return b
}

// leb reads an unsigned LEB128 of at most bits bits.
func (r *reader) leb(bits uint) uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if shift >= bits || (shift+7 > bits && uint64(c&0x7F)>>(bits-shift) != 0) {
			r.err = errors.New("integer too long")
			return 0
		}
		v |= uint64(c&0x7F) << shift
		if c&0x80 == 0 {
			return v
		}
	}
}

func (r *reader) u32() uint32 { return uint32(r.leb(32)) }

// s64 skips a signed LEB128 of up to 64 bits (the value is not needed).
func (r *reader) s64() {
	for i := 0; i < 10; i++ {
		if r.byte()&0x80 == 0 {
			return
		}
	}
	r.err = errors.New("integer too long")
}

func (r *reader) name() string { return string(r.bytes(int(r.u32()))) }

func (r *reader) limits() {
	flags := r.byte()
	if flags > 0x07 {
		r.err = fmt.Errorf("limits flags 0x%02X", flags)
		return
	}
	r.leb(64)
	if flags&0x01 != 0 {
		r.leb(64)
	}
}

func (r *reader) valtype() {
	switch t := r.byte(); t {
	case 0x7F, 0x7E, 0x7D, 0x7C, 0x7B, 0x70, 0x6F:
	default:
		if r.err == nil {
			r.err = fmt.Errorf("value type 0x%02X is not supported", t)
		}
	}
}

// blocktype reads an empty type, a value type, or a type index (s33).
func (r *reader) blocktype() {
	if r.pos < len(r.b) {
		switch r.b[r.pos] {
		case 0x40, 0x7F, 0x7E, 0x7D, 0x7C, 0x7B, 0x70, 0x6F:
			r.pos++
			return
		}
	}
	// A type index: a non-negative s33, whose first byte has bit 6 clear
	// unless more bytes follow.
	start := r.pos
	r.s64()
	if r.err == nil && r.b[r.pos-1]&0x40 != 0 {
		r.err = fmt.Errorf("block type at %d is not supported", start)
	}
}

func (r *reader) memarg() {
	align := r.u32()
	if align&0x40 != 0 { // multi-memory: a memory index follows
		r.u32()
	}
	r.leb(64)
}

func appendU32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7F)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7F)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

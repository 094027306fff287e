package wasmbudget

import (
	"bytes"
	"errors"
	"fmt"
)

const (
	secCustom = 0
	secType   = 1
	secImport = 2
	secGlobal = 6
	secTag    = 13
	secCode   = 10
)

// wasmModule is a module read into its sections, with what the rewrite
// needs to know of them. Every byte slice points into the input.
type wasmModule struct {
	header   []byte // the magic number and the version
	sections []section
	// funcImports are the imported functions, in the order of their
	// function indices.
	funcImports     []funcImport
	importedGlobals int
	globals         int // globals the module defines
}

type section struct {
	id   byte
	body []byte
	// name is a custom section's name.
	name string
	// globals and globalsAt are a global section's count of globals and
	// where the first one starts in body.
	globals   uint32
	globalsAt int
}

type funcImport struct {
	module, name string
	// typ is the function's type, its encoded params and results; ""
	// when the type index names no type read before the import.
	typ string
}

// parse reads the module's sections, and from them the function types,
// the imports and the number of globals. It does not decode code: that
// is index's work.
func parse(module []byte) (*wasmModule, error) {
	if len(module) < 8 || !bytes.Equal(module[:4], []byte("\x00asm")) || !bytes.Equal(module[4:8], []byte{1, 0, 0, 0}) {
		return nil, errors.New("wasmbudget: not a WebAssembly 1.0 binary module")
	}
	m := &wasmModule{header: module[:8]}
	r := &reader{b: module, pos: 8}
	for !r.done() {
		id := r.byte()
		size := r.u32()
		body := r.bytes(int(size))
		if r.err != nil {
			return nil, fmt.Errorf("wasmbudget: section %d: %w", id, r.err)
		}
		m.sections = append(m.sections, section{id: id, body: body})
	}

	var types []string // each function type, as its encoded params and results
	for i := range m.sections {
		s := &m.sections[i]
		r := &reader{b: s.body}
		switch s.id {
		case secCustom:
			// A name that does not decode is no name: the section is kept.
			s.name = r.name()
			continue
		case secType:
			n := r.u32()
			for i := uint32(0); i < n && r.err == nil; i++ {
				if r.byte() != 0x60 {
					return nil, errors.New("wasmbudget: a type that is not a function type")
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
					f := funcImport{module: mod, name: name}
					if ti := r.u32(); int(ti) < len(types) {
						f.typ = types[ti]
					}
					m.funcImports = append(m.funcImports, f)
				case 0x01:
					r.byte()
					r.limits()
				case 0x02:
					r.limits()
				case 0x03:
					r.byte()
					r.byte()
					m.importedGlobals++
				default:
					return nil, fmt.Errorf("wasmbudget: import of unknown kind %d", kind)
				}
			}
		case secGlobal:
			s.globals = r.u32()
			s.globalsAt = r.pos
			m.globals = int(s.globals)
		case secTag:
			// Tags (exceptions) sit between memories and globals; with
			// them the new global's place is not settled here.
			return nil, errors.New("wasmbudget: modules with exception tags are not supported")
		}
		if r.err != nil {
			return nil, fmt.Errorf("wasmbudget: section %d: %w", s.id, r.err)
		}
	}
	return m, nil
}

package wasmbudget

import "strings"

// emit writes the module m rewritten as p says: a new global holding the
// budget, and a probe at every offset p found. It decodes nothing.
func emit(m *wasmModule, p *plan, budget uint32) []byte {
	// The new global: a mutable i32 holding the budget.
	newGlobal := []byte{0x7F, 0x01, 0x41}
	newGlobal = appendS32(newGlobal, int32(budget))
	newGlobal = append(newGlobal, 0x0B)
	probe := probe(p.checkFunc, p.budgetGlobal)

	size := len(m.header) + len(newGlobal) + 16
	for _, s := range m.sections {
		size += 6 + len(s.body)
	}
	for _, bodies := range p.code {
		for _, b := range bodies {
			size += 5 + len(b.probes)*len(probe)
		}
	}
	out := make([]byte, 0, size)
	out = append(out, m.header...)
	wroteGlobal := false
	writeSection := func(id byte, body []byte) {
		out = append(out, id)
		out = appendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	for i, s := range m.sections {
		switch {
		case s.id == secCustom:
			// DWARF describes code offsets the rewrite moves: drop it
			// rather than let it mislead a stack trace.
			if strings.HasPrefix(s.name, ".debug_") {
				continue
			}
			writeSection(s.id, s.body)
		case s.id == secGlobal:
			body := appendU32(nil, s.globals+1)
			body = append(body, s.body[s.globalsAt:]...)
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
			out = appendCode(out, p.code[i], probe)
		default:
			writeSection(s.id, s.body)
		}
	}
	if !wroteGlobal {
		writeSection(secGlobal, append(appendU32(nil, 1), newGlobal...))
	}
	return out
}

// probe is the check inserted at the start of every function body and
// every loop body: when the budget is spent, ask the host for a new one
// (or a trap); then spend one. It is stack neutral, so it is valid under
// any block type.
func probe(checkFunc, budgetGlobal uint32) []byte {
	var b []byte
	b = append(b, 0x23)
	b = appendU32(b, budgetGlobal) // global.get
	b = append(b, 0x45, 0x04, 0x40, 0x10)
	b = appendU32(b, checkFunc) // i32.eqz; if; call
	b = append(b, 0x24)
	b = appendU32(b, budgetGlobal) // global.set
	b = append(b, 0x0B, 0x23)      // end; global.get
	b = appendU32(b, budgetGlobal)
	b = append(b, 0x41, 0x01, 0x6B, 0x24) // i32.const 1; i32.sub; global.set
	return appendU32(b, budgetGlobal)
}

// appendCode appends a code section holding bodies with probe inserted at
// each of their offsets.
func appendCode(out []byte, bodies []funcBody, probe []byte) []byte {
	size := sizeU32(uint32(len(bodies)))
	for _, b := range bodies {
		n := len(b.body) + len(b.probes)*len(probe)
		size += sizeU32(uint32(n)) + n
	}
	out = append(out, secCode)
	out = appendU32(out, uint32(size))
	out = appendU32(out, uint32(len(bodies)))
	for _, b := range bodies {
		out = appendU32(out, uint32(len(b.body)+len(b.probes)*len(probe)))
		copied := 0
		for _, at := range b.probes {
			out = append(out, b.body[copied:at]...)
			out = append(out, probe...)
			copied = at
		}
		out = append(out, b.body[copied:]...)
	}
	return out
}

package wasmbudget

import (
	"errors"
	"fmt"
)

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

// sizeU32 is the length of v's encoding by appendU32.
func sizeU32(v uint32) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
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

//go:build linux || darwin

package wasmrt

import (
	"testing"
	"unsafe"
)

// A reserved memory grows in place, keeps what was written, reads zero
// where it grew, and refuses to grow past its limit.
func TestReservedMemory(t *testing.T) {
	const page = 64 << 10
	m := reserveMemory(page, 4*page)
	defer m.Free()
	if _, ok := m.(*reservedMemory); !ok {
		t.Fatalf("got %T, want a reservation", m)
	}
	b := m.Reallocate(page)
	b[page-1] = 7
	c := m.Reallocate(3 * page)
	if len(c) != 3*page || unsafe.SliceData(b) != unsafe.SliceData(c) {
		t.Fatalf("grew to %d bytes at %p, want %d at %p", len(c), unsafe.SliceData(c), 3*page, unsafe.SliceData(b))
	}
	if c[page-1] != 7 || c[2*page] != 0 {
		t.Fatal("contents not kept, or new pages not zero")
	}
	c[3*page-1] = 1
	if m.Reallocate(4*page+1) != nil {
		t.Fatal("grew past its limit")
	}
	if d := m.Reallocate(4 * page); len(d) != 4*page {
		t.Fatalf("got %d bytes, want the whole limit", len(d))
	}
}

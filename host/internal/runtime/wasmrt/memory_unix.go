//go:build linux || darwin

package wasmrt

import (
	"context"
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// withReservedMemory makes the instances instantiated with ctx reserve
// their whole memory limit as address space, outside the Go heap, and
// grow in place: wazero's default grows a linear memory by appending to a
// Go slice, which copies the whole memory whenever its capacity runs out
// (a Go guest's heap grows a little over thousands of calls), and keeps
// every instance's memory in the host's heap. Only the pages the guest
// uses take memory; the limit still holds, as a growth past it fails.
func withReservedMemory(ctx context.Context) context.Context {
	return experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(reserveMemory))
}

// reservedMemory is a linear memory: max bytes of address space mapped
// without access, of which the first len(buf) are readable and writable.
type reservedMemory struct {
	all []byte // the whole reservation
	buf []byte // the part in use
}

func reserveMemory(_, max uint64) experimental.LinearMemory {
	if max == 0 || max > 1<<32 {
		return &sliceMemory{max: max}
	}
	all, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
	if err != nil {
		return &sliceMemory{max: max}
	}
	return &reservedMemory{all: all}
}

func (m *reservedMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.all)) {
		return nil
	}
	if n := uint64(len(m.buf)); size > n {
		// Wasm pages are 64 KiB, a multiple of the OS page, and n is a
		// whole number of them: the new part starts on a page boundary.
		if err := syscall.Mprotect(m.all[n:size], syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
			return nil
		}
	}
	m.buf = m.all[:size:size]
	return m.buf
}

func (m *reservedMemory) Free() {
	if m.all != nil {
		syscall.Munmap(m.all)
		m.all, m.buf = nil, nil
	}
}

// sliceMemory is wazero's own way, for when no reservation could be made.
type sliceMemory struct {
	buf []byte
	max uint64
}

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if m.max != 0 && size > m.max {
		return nil
	}
	if c := uint64(cap(m.buf)); size > c {
		m.buf = append(m.buf[:c], make([]byte, size-c)...)
	}
	m.buf = m.buf[:size]
	return m.buf
}

func (m *sliceMemory) Free() {}

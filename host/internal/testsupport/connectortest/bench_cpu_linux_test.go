//go:build linux

package connectortest_test

import (
	"syscall"
	"unsafe"
)

// threadCPU is the CPU time of the calling thread, in nanoseconds.
func threadCPU() int64 {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3 /* CLOCK_THREAD_CPUTIME_ID */, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

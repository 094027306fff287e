//go:build !linux

package connectortest_test

// threadCPU is -1 where the thread's CPU time is not read.
func threadCPU() int64 { return -1 }

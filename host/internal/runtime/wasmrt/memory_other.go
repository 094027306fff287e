//go:build !linux && !darwin

package wasmrt

import "context"

// withReservedMemory leaves wazero's own linear memories where no
// reservation is made.
func withReservedMemory(ctx context.Context) context.Context { return ctx }

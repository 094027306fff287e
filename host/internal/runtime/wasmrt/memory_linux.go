package wasmrt

import "syscall"

// mapNoReserve keeps a reservation out of the kernel's overcommit
// accounting: only pages touched count.
const mapNoReserve = syscall.MAP_NORESERVE

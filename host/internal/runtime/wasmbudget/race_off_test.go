//go:build !race

package wasmbudget_test

// raceEnabled: the race detector is on. Single-goroutine tests that only
// compile large modules skip under it: it adds nothing there, and the
// plain run covers them.
const raceEnabled = false

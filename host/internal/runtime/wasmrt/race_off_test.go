//go:build !race

package wasmrt_test

const raceEnabled = false

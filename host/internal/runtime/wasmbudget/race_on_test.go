//go:build race

package wasmbudget_test

// raceEnabled: the race detector is on (see race_off_test.go).
const raceEnabled = true

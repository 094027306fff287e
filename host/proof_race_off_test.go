//go:build !race

package host_test

// proofRace: see proof_race_on_test.go.
const proofRace = false

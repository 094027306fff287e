//go:build !race

package host

// RaceBuild: see race_on_test.go.
const RaceBuild = false

//go:build !race

package host_test

// raceDetector is false: see runtime_race_test.go.
const raceDetector = false

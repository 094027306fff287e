//go:build race

package cache

// raceEnabled shortens the slowest tests under the race detector, which
// adds nothing to single-goroutine code.
const raceEnabled = true

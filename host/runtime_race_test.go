//go:build race

package host_test

// raceDetector skips the tests whose cost under the race detector is
// compiling WebAssembly, not concurrency.
const raceDetector = true

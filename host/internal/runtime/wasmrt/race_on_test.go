//go:build race

package wasmrt_test

// raceEnabled: the hostile-guest tests (memory exhaustion, stack
// overflow) run single-threaded guests for seconds; under the race
// detector they take minutes and test no concurrency, so they run only in
// the plain test run. The hammer test covers concurrency under -race.
const raceEnabled = true

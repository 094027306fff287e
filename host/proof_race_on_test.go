//go:build race

package host_test

// proofRace: under -race the load test runs shorter (the detector slows
// every call) and skips its heap bound (the detector's own bookkeeping
// grows with the run); its point there is the race check itself.
const proofRace = true

// Command platformsim serves the seven platforms BesluitBron reaches from
// recorded data, offline, on one loopback address: `make demo` points
// BesluitBron at it (demo.toml), and it is handy for trying faults by hand.
//
//	platformsim -addr 127.0.0.1:9100 -data testdata -fault obv:latency=2s -fault tk:hang
//
// Faults can also be changed while it runs: curl -X PUT -d '{"hang":true}'
// http://127.0.0.1:9100/_sim/faults/ori; counters at /_sim/stats.
package main

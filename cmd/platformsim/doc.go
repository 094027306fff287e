// Command platformsim serves the seven platforms BesluitBron reaches from
// recorded data, offline, on one loopback address: `make demo` points
// BesluitBron at it (demo.toml), and it is handy for trying faults by hand.
//
//	platformsim -addr 127.0.0.1:9100 -data testdata -fault obv:latency=2s -fault tk:hang
//
// With -env FILE it writes, once listening, the BESLUITBRON_ environment
// overrides that point every connector at the address it listens on (its
// base_url, and obk's and tk's url_rewrites of the zoek host): `make demo
// SIM_ADDR=…` sources them over demo.toml, so the simulator may listen
// anywhere, -addr 127.0.0.1:0 (any free port) included.
//
// Faults can also be changed while it runs: curl -X PUT -d '{"hang":true}'
// http://127.0.0.1:9100/_sim/faults/ori; counters at /_sim/stats.
package main

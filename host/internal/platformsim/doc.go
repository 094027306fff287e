// Package platformsim is an offline stand-in for the seven platforms
// BesluitBron reaches. One [Sim] serves every platform's API on one HTTP
// handler, each under its own path prefix that stands for the platform's
// host (/obv for openbesluitvorming.nl, /tk for gegevensmagazijn.tweedekamer.nl,
// …; [BaseURLs] gives the base_url per connector). Answers come from the
// recorded responses in the repository's testdata/<id>/ and the extra
// recorded-shape data in testdata/<id>/sim/: searches filter those records by
// the query's words, organisation, dates and type, page through them, and
// full texts are served by id, in each platform's own format and with its
// own error shapes.
//
//	sim, err := platformsim.New(platformsim.Options{DataDir: "testdata"})
//	srv := httptest.NewServer(sim.Handler())
//	defer srv.Close()
//	defer sim.Close()
//	urls := platformsim.BaseURLs(srv.URL) // connectors.<id>.base_url
//
// OpenBesluitvorming's own token bucket is simulated as the platform runs
// it: capacity 60 units refilled at 1 unit per second per client address,
// a search costing max(1, ceil(limit/24)) units and anything else 1; every
// API answer carries RateLimit-Limit, RateLimit-Remaining and
// RateLimit-Reset, and an exhausted bucket answers 429 with Retry-After
// and the platform's JSON body.
//
// Faults are injected per platform ([Fault]: latency, hanging, 5xx in the
// platform's error shape, connection resets, malformed bodies, 429 storms),
// from flags ([ParseFault]), from the admin endpoint /_sim/faults/{id} or
// from Go ([Sim.SetFault]) while requests run. Every request is logged
// (time, platform, method, path, cost, status) and counted ([Sim.Stats]:
// requests and 429s per platform, and the most units admitted in any
// window, to check that a client kept to a limit).
//
// A Sim is safe for concurrent use. Its clock is Options.Now; the bucket
// and the window counter take the time as an argument ([Bucket.Take]), so
// tests step time without sleeping.
package platformsim

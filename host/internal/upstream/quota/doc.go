// Package quota connects the connectors' declared services to the fair
// scheduler (package sched): one [Limiter] per quota, which the fetch gates
// consult before every upstream request and inform of every answer (a
// 429's Retry-After pauses the quota; RateLimit-* headers correct the
// local bucket downward).
//
// A quota belongs to whoever enforces the limit, usually an upstream host,
// not to a connector: two connectors (one for parliamentary papers, one
// for publication files) may both fetch from one host, such as
// zoek.officielebekendmakingen.nl, which allows 10 requests per 30 s to
// them together. Each service names its quota in its manifest
// (connector.Service's Host or Quota); [Build] gives the services of all
// connectors that name one quota one Limiter, so one process never sends
// a host more than its limit, a 429 pauses every connector that reaches
// it, and in Redis mode the replicas share one bucket per quota. When the
// services' limits differ (manifests, or the admin's
// connectors.<id>.limits.<service>), the strictest applies: the lowest
// rate, then the lowest capacity. Each service reaches its quota through a
// [Use], which counts the service's own calls for the metrics.
//
// The session a call counts against is the MCP session; the search page and
// maintenance share sched.PublicSession, whose usage is not counted.
//
// Each limiter holds its quota with two buckets at one local limit: the
// fair scheduler's, charged when it grants a call (who goes next, in what
// order), and a departure pacer's, charged when the request is about to be
// written to the connection ([Limiter.Depart], called by the fetch gate),
// so that time between grant and departure cannot bunch requests; after
// each departure the scheduler's bucket is lowered to the pacer's. The
// local limit keeps a headroom below the declared capacity sized by the
// path (headroom.go, [Limiter.Headroom]): ceil(rate × spread) of the
// measured time from departure to the platform's answer over the latest
// answers, at least the floor min(1, capacity/10), at most
// sched.HeadroomCap of the capacity, a spread of StartSpread assumed until
// MinPathSamples answers are measured, one more unit per 429 (decaying);
// the local limit for a headroom is sched.Headroom, the computation the
// property tests of sched and the cluster's departure script share. The metrics
// (metrics.go) and the Laadstatus show it and why. Fairness does not see
// it: the schedulers get the declared capacity as
// sched.Options.PlatformUnits, so a session's weight is 60/(60+used),
// exactly 1/2 of a new session's after 60 units and 1/3 after 120, as the
// requirement has it, and a call costing more than the bucket is charged
// the platform's whole quota of 60.
//
// A call retried after a 429 waits at the scheduler, and is charged to
// its session, once; each of its departures is counted by the pacer.
//
// A Limiter is safe for concurrent use.
package quota

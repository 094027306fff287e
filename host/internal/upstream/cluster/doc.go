// Package cluster lets several BesluitBron replicas behind a load balancer
// share each platform's limit exactly and stay fair between sessions, on
// Redis (or Valkey). It owns the Redis client wiring, the scheduler's Lua
// script, the replicas' leases, the fallback to a conservative local share
// when Redis is unreachable, and the second cache tier for full texts.
//
// Without [cluster] redis_url nothing here runs: each process schedules on
// its own (package sched) and needs no server.
//
// # The shared scheduler
//
// Every quota's state lives in Redis under one hash tag, keyed by the
// quota's name (an upstream host such as zoek.officielebekendmakingen.nl,
// which two connectors may share, or a named quota): the
// token bucket (as the instant it is empty), the virtual time, each
// waiting session's queue of calls, its fair-queuing tags, its usage and
// last call, the waiting sessions in order of waiting (a sorted set) and
// by start tag (a sorted set), and the grants made for other replicas.
// One Lua script (package sched/schedlua, next to the policy it ports)
// applies the policy of package sched to it
// atomically: start-time fair queueing weighted by K/(K+used), K the
// platform's declared capacity (60 at OpenBesluitvorming, while the bucket
// keeps the floor's headroom, 59), the longest-waiting-first guard
// against starvation, oversized calls served on a full bucket and charged
// the platform's whole quota (min(cost, K), never a debt beyond it), usage
// forgotten 30 minutes after a session's last call, one uncounted public
// session for the whole cluster. So the guarantees of one process hold
// across replicas; schedlua's differential test runs the script and
// sched.Scheduler on the same calls and requires the same grants. This
// package runs the script on Redis under its keys; schedlua owns the
// script's text, its arguments and its reply.
//
// # Departures
//
// A granted request is counted again when it is about to be written
// ([SharedQuota.Depart]): a second, small script (schedlua's
// DepartScript) keeps a shared departure bucket at the declared capacity
// less the widest headroom any live replica reports (each measures its own
// path; a replica's report lapses after a lease), says when the request
// may leave, holds it during a 429's pause, and lowers the shared
// scheduler's bucket to its own so that grants cannot run ahead of
// departures. The shared scheduler itself keeps the floor's headroom (one
// unit): a limit that changed with each replica's measurement would be
// rewritten in Redis at every run.
//
// A call costs one script run when there is room (the grant comes back in
// the reply). When no session waits, no fence stands and the bucket has
// room, the script takes a fast path at its top: seven commands instead
// of reading and rewriting every queue, with the same decisions and the
// same writes as the general path (schedlua's fastpath_test.go runs both
// on random operations and compares every key). A call that waits is
// granted by whichever replica runs the script when the bucket allows: the
// replica that computed that instant arms a timer for it. A grant for another replica's call is handed over on
// that replica's channel (PUBLISH) and kept in its pending-grants hash
// until it collects it, so a lost message costs a heartbeat of delay, not
// the call. Time comes from Redis's clock (TIME inside the script), the one
// clock all replicas share; tests pass virtual time instead.
//
// # Leases
//
// Each replica renews a lease (a sorted set of replica → expiry) every
// Lease/3. The script drops the waiting calls of a replica whose lease has
// lapsed, so a dead replica holds nobody up and reserves no refill. Grants
// already made for it are spent: the platform may have received them.
//
// # Redis unreachable
//
// A replica that cannot reach Redis falls back to its quota's local
// limiter on the limit divided by the live replicas it last saw, starting
// empty, and says so in its log, in /metrics
// (besluitbron_cluster_mode) and at /status/cluster.json. When Redis
// answers again it hands in what is left of its share; shared grants wait
// behind a fence until every replica has done so (or a lease has passed).
// fallback.go explains why no moment exceeds the limit.
//
// # The full-text tier
//
// [Tier] puts a second cache level in Redis behind a platform's fastcache
// for the classes it is given (full texts, the most expensive call), with
// the same version stamps, so that a new or restarted replica starts warm.
package cluster

// Package loadstatus owns the Laadstatus: BesluitBron's own maintenance
// job that asks each platform, every few minutes, whether it answers, how
// fast, and how fresh its data is. Its results feed /status, /status.json,
// the besluitbron_status tool and the search page's warnings.
//
// The package knows no platform. The host gives it one [Target] per
// connector: a light reachability probe ([Target.Reach]) and, where the
// platform's API tells, a freshness probe ([Target.Freshness]). Both run
// through the same connectors, cache and scheduler as the MCP tools, as the
// shared public session (sched.PublicSession), whose usage the scheduler
// does not count; spending platform quota is why the interval is minutes
// and configurable ([status] interval).
//
// Beside the platforms, a snapshot carries the limits BesluitBron keeps
// per upstream host ([Quota], from [Options.Quotas]): which connectors
// share each, where each limit comes from ([Quota.LimitFrom]: published
// by the platform, measured, BesluitBron's own polite choice, the admin's
// [LimitAdmin], or unknown, which is not "no limit"; the words are the
// manifests'), the calls waiting, a pause after a 429. They are read when
// the snapshot is taken, not by the rounds, and cost no platform anything.
// A [Sampler] ([Job.StartHistory]) reads them every 10 s and keeps, per
// limited quota, one point a minute for the last hour (units granted,
// the peak of calls waiting, 429s: the counters /metrics exports) in a
// ring buffer, on the job's clock; the snapshot carries it as
// [Quota.History] for the Laadstatus charts.
//
// # Usage
//
//	job := loadstatus.New(targets, &loadstatus.Options{Interval: 5 * time.Minute})
//	stop := job.Start(ctx) // first round at once, then every Interval
//	defer stop()
//	snap := job.Snapshot() // for pages and tools
//
// # States
//
// A check ends in one of [Up], [Slow] (answered, but slower than
// Options.SlowAfter), [Busy] (the platform answered 429, or its limit left
// no room within the check's deadline), [Down] (no answer, or a 5xx) or
// [Unknown] (not yet checked). A failed freshness probe does not change
// the state: the last good freshness is kept with the error beside it.
//
// # Concurrency
//
// A *Job is safe for concurrent use. Time comes from an injected
// sched.Clock, so tests drive rounds with a fake clock and never sleep.
package loadstatus

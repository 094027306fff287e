// Package schedtest holds test helpers for package sched that production
// code never imports: a fake clock, an exact model of a platform's own
// token bucket, an oracle for fair shares, a no-restraint FIFO baseline,
// and a scenario harness that runs minutes of traffic in virtual time.
//
// The harness describes traffic as data ([Scenario], [Group]): sessions with
// a number of calls, a cost, a queue depth, a think time and an arrival
// time, under one [sched.Limit]. [Run] plays a scenario against a [Queue]
// (the real scheduler, [NewSched], or as the host runs it, [NewSchedFor];
// or the baseline, [NewFIFO]) in virtual time and measures each session's
// share, the waits, the units charged per sliding window and whether the
// platform model ever refused a grant.
// [Result.Violations] compares the measurements with the scenario's
// expectations and with [FairShares], an oracle computed independently of
// the scheduler's arithmetic. The baseline is expected to fail them; a
// fairness check that cannot fail proves nothing.
package schedtest

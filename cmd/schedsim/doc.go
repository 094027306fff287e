// Command schedsim plays the scheduler's scenarios (package
// sched/schedtest) in virtual time, next to a no-restraint FIFO baseline,
// and prints how each did: newcomer waits, each session's share against
// the fair-share oracle, utilisation of the limit, the most units sent in
// any window, and the longest wait without a grant. The scenarios run at
// OpenBesluitvorming's limit as the host runs it: a bucket of 59 units per
// 59 s, one unit of headroom below the platform's 60 per minute, with the
// weights and an oversized call's charge on the declared 60.
//
// Usage:
//
//	schedsim [-json] [-run substring] [-baseline=false]
//
// It exits 1 if the scheduler misses an expectation, or if the baseline
// passes a scenario that makes a fairness claim (the check could not fail).
package main

package schedtest_test

import (
	"testing"

	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// TestScenarios runs every scenario against the scheduler, which must meet
// all expectations, and against the FIFO baseline, which must break at
// least one in every scenario that makes a fairness claim.
func TestScenarios(t *testing.T) {
	for _, sc := range schedtest.Scenarios() {
		t.Run(sc.Name, func(t *testing.T) {
			r := schedtest.Run(sc, "sched", schedtest.NewSchedFor(sc))
			t.Logf("sched: newcomer %+v dev %.4f util %.3f maxW %.1f gap %v (%s) calls %d unserved %d ops %d wall %v",
				r.Newcomer, r.ShareDev, r.Utilisation, r.MaxWindow, r.MaxGap, r.MaxGapSession, r.Calls, r.Unserved, r.Ops, r.Wall)
			for _, s := range r.Shares {
				if len(r.Shares) <= 10 {
					t.Logf("  %+v", s)
				}
			}
			for _, v := range r.Violations {
				t.Errorf("sched: %s", v)
			}
			b := schedtest.Run(sc, "fifo", schedtest.NewFIFO(sc.Limit))
			t.Logf("fifo: newcomer %+v dev %.4f util %.3f maxW %.1f gap %v violations %q", b.Newcomer, b.ShareDev, b.Utilisation, b.MaxWindow, b.MaxGap, b.Violations)
			if b.Refused > 0 {
				t.Errorf("fifo: the baseline went over the limit: %v", b.Violations)
			}
			if sc.Claims() && b.Fair() {
				t.Errorf("fifo: the baseline passed every fairness check; the checks cannot fail")
			}
		})
	}
}

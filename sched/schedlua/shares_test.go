package schedlua

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// clusterQueue is the shared scheduler as schedtest's harness drives it:
// the Lua script on one Redis, run by three replicas in virtual time. Each
// session sticks to one replica, as the load balancer keeps an MCP session
// on the replica that created it (sessions are spread over the replicas in
// order of arrival); the public session, one for the whole cluster, asks
// from every replica in turn. A grant made by one replica's run for
// another replica's call is collected by that replica's next run, as in
// production, and keeps the instant the script granted it at.
type clusterQueue struct {
	t       testing.TB
	rdb     *redis.Client
	prefix  string
	args    [3]Args
	home    map[string]int // session → replica index
	public  int            // next replica for the public session
	tickets map[string]*clusterTicket
	seq     int
	turn    int // replica that runs the next advance first
}

type clusterTicket struct {
	at  time.Time
	seq uint64
	ok  bool
}

func (k *clusterTicket) Granted() (time.Time, uint64, bool) { return k.at, k.seq, k.ok }

// newClusterQueue runs sc's traffic as the host would: on sc's bucket
// (the headroom below the platform's limit, when sc has one) with the
// platform's declared units as K.
func newClusterQueue(t testing.TB, sc schedtest.Scenario) *clusterQueue {
	l, forget := sc.SchedBucket(), sc.Forget
	lim := FromSched(l, 0)
	lim.K = sc.Limit.Units
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { rdb.Close() })
	if forget == 0 {
		forget = sched.DefaultForget
	}
	q := &clusterQueue{t: t, rdb: rdb, prefix: quotaPrefix("obv/api"), home: map[string]int{}, tickets: map[string]*clusterTicket{}}
	for i := range q.args {
		// A lease longer than any scenario: no replica lapses in virtual
		// time.
		q.args[i] = Args{Replica: fmt.Sprintf("replica-%d", i+1), Limit: lim, Forget: forget, Lease: 24 * time.Hour}
		q.op(i, schedtest.Epoch, "hb", "0", "0", "0", "1")
	}
	return q
}

// op runs the script as replica i at t and records the grants it reports.
func (q *clusterQueue) op(i int, t time.Time, op string, args ...any) Reply {
	q.t.Helper()
	a := q.args[i]
	a.Now = US(t)
	r, err := run(context.Background(), q.rdb, q.prefix, a, op, args...)
	if err != nil {
		q.t.Fatalf("%s on %s at %v: %v", op, a.Replica, t.Sub(schedtest.Epoch), err)
	}
	for _, g := range r.Grants {
		k := q.tickets[g.ID]
		if k == nil || k.ok {
			q.t.Fatalf("%s on %s: grant of unknown or granted call %s", op, a.Replica, g.ID)
		}
		k.at, k.seq, k.ok = Time(g.At).UTC(), g.Seq, true
	}
	return r
}

func (q *clusterQueue) Reserve(t time.Time, session string, cost float64) schedtest.Ticket {
	i, ok := q.home[session]
	switch {
	case session == sched.PublicSession:
		i = q.public
		q.public = (q.public + 1) % len(q.args)
	case !ok:
		i = len(q.home) % len(q.args)
		q.home[session] = i
	}
	q.seq++
	id := fmt.Sprintf("c%d", q.seq)
	k := &clusterTicket{}
	q.tickets[id] = k
	l := q.args[i].Limit
	q.op(i, t, "enq", session, id, Float(cost), l.Charge(cost, true), l.Charge(cost, false), "0", "0")
	return k
}

func (q *clusterQueue) Advance(t time.Time) time.Time {
	// One replica's timer fires and grants what is due; the others then
	// collect what it granted for them.
	var next int64
	for j := range q.args {
		next = q.op((q.turn+j)%len(q.args), t, "adv").Next
	}
	q.turn = (q.turn + 1) % len(q.args)
	if next == 0 {
		return time.Time{}
	}
	return Time(next).UTC()
}

// spreadScenario: three sessions with different usage, each on its own
// replica, and the uncounted public session asking from all three, all
// waiting throughout the window, on the host's bucket for
// OpenBesluitvorming (59 units, weights on the declared 60).
func spreadScenario() schedtest.Scenario {
	l := schedtest.OBV
	return schedtest.Scenario{
		Name:  "spread",
		About: "three sessions arriving 0, 90 s and 3 min apart on three replicas share by weight K/(K+used); the public session from every replica keeps weight 1",
		Limit: l, Bucket: schedtest.OBVHost, Duration: 10 * time.Minute,
		Groups: []schedtest.Group{
			{Name: "heavy", Threads: 8, Cost: 1},
			{Name: "medium", Arrive: 90 * time.Second, Threads: 8, Cost: 1},
			{Name: "light", Arrive: 3 * time.Minute, Threads: 8, Cost: 2},
			{Name: "public", Public: true, Arrive: 2 * time.Minute, Threads: 6, Cost: 1},
		},
		Fair: []string{"heavy", "medium", "light", "public"}, From: 3 * time.Minute, To: 10 * time.Minute,
		Expect: schedtest.Expect{ShareMargin: 0.02, MaxGap: l.Per + 10*time.Millisecond},
	}
}

// TestSharesAcrossReplicasMatchOracle: sessions with different usage spread
// over three replicas get the shares of schedtest.FairShares (computed
// independently of the scheduler's tags) within each scenario's margin,
// and the platform model never refuses a grant. The no-restraint baseline
// on the same traffic comes out unfair, so the check can fail.
func TestSharesAcrossReplicasMatchOracle(t *testing.T) {
	if raceEnabled {
		t.Skip("sequential and deterministic in virtual time: the race detector adds nothing; the plain run covers it")
	}
	scs := []schedtest.Scenario{spreadScenario()}
	for _, sc := range schedtest.Scenarios() {
		if sc.Name == "usage" || sc.Name == "ratios" {
			scs = append(scs, sc)
		}
	}
	for _, sc := range scs {
		t.Run(sc.Name, func(t *testing.T) {
			res := schedtest.Run(sc, "cluster", newClusterQueue(t, sc))
			for _, s := range res.Shares {
				t.Logf("%-10s used %6.1f  got %5.1f units  share %.4f  oracle %.4f", s.Session, s.Used, s.Units, s.Share, s.Oracle)
			}
			if len(res.Shares) < 2 {
				t.Fatalf("%d sessions measured: the scenario compares nothing", len(res.Shares))
			}
			if res.Refused != 0 {
				t.Errorf("the platform model refused %d grants", res.Refused)
			}
			if !res.Fair() {
				t.Errorf("across three replicas: %v (max |share − oracle| %.4f, margin %.4f)", res.Violations, res.ShareDev, sc.Expect.ShareMargin)
			}
			t.Logf("max |share − oracle| %.4f (margin %.4f), %d calls, utilisation %.3f", res.ShareDev, sc.Expect.ShareMargin, res.Calls, res.Utilisation)

			base := schedtest.Run(sc, "fifo", schedtest.NewFIFO(sc.Limit))
			if base.ShareDev <= sc.Expect.ShareMargin {
				t.Errorf("the FIFO baseline's shares are within the margin (%.4f ≤ %.4f): the check cannot fail", base.ShareDev, sc.Expect.ShareMargin)
			}
			if base.Fair() {
				t.Error("the FIFO baseline meets every expectation: the scenario cannot tell fair from unfair")
			}
			t.Logf("FIFO baseline: max |share − oracle| %.4f", base.ShareDev)
		})
	}
}

// TestOversizedAcrossReplicas: schedtest's oversized scenario on three
// replicas, on the host's bucket of 59 with K = 60: every call costing 90
// is served on a full bucket and uses up the platform's quota, 60, and no
// more, so the platform model refuses nothing and the saturating session
// waits no longer than the single scheduler lets it (a window for the
// call's full bucket, plus two seconds for its next unit; the old debt of
// 30 units made it 1 min 31 s).
func TestOversizedAcrossReplicas(t *testing.T) {
	if raceEnabled {
		t.Skip("sequential and deterministic in virtual time: the race detector adds nothing; the plain run covers it")
	}
	for _, sc := range schedtest.Scenarios() {
		if sc.Name != "oversized" {
			continue
		}
		res := schedtest.Run(sc, "cluster", newClusterQueue(t, sc))
		if !res.Fair() || res.Refused != 0 {
			t.Fatalf("across three replicas: %v", res.Violations)
		}
		if res.MaxGap > 61*time.Second {
			t.Fatalf("the saturating session (%s) waited up to %v; want ≤ 61 s", res.MaxGapSession, res.MaxGap)
		}
		// Each call costing 90 was charged 60.
		if res.Units-res.Charged != 3*30 {
			t.Fatalf("%v units granted, %v charged; want 90 apart", res.Units, res.Charged)
		}
		t.Logf("%d calls, %v units, %v charged, max gap %v", res.Calls, res.Units, res.Charged, res.MaxGap)
		return
	}
	t.Fatal("no oversized scenario")
}

package schedtest

import (
	"math"
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

// Group is one or more sessions that behave alike.
type Group struct {
	Name    string
	Count   int           // sessions in the group, named Name-1, Name-2…; 0 means one, named Name
	Arrive  time.Duration // arrival of the first session
	Every   time.Duration // between the arrivals of the group's sessions
	Threads int           // calls a session has in flight at once (its queue depth); 0 means 1
	Calls   int           // calls per session; 0 means until the scenario ends
	Cost    float64       // units per call
	Think   time.Duration // after a grant, before the same thread's next call
	Public  bool          // the sessions are sched.PublicSession (so Count must be ≤ 1)
}

// Expect is what a fair scheduler must achieve in a scenario; zero fields
// are not checked. Guarantee 1 (the platform never refuses a grant) is
// always checked.
type Expect struct {
	// ShareMargin is the largest allowed |share − oracle share| for the
	// sessions of Scenario.Fair.
	ShareMargin float64
	// NewcomerMax bounds every wait of the Scenario.Newcomers sessions.
	NewcomerMax time.Duration
	// MaxGap bounds how long any session may wait without a grant.
	MaxGap time.Duration
	// Served names a group every call of which must be granted before the
	// end.
	Served string
}

// Scenario is traffic as data.
type Scenario struct {
	Name  string
	About string
	// Limit is the platform's own limit: the Platform model, the baseline,
	// the oracle's weights and the utilisation use it.
	Limit sched.Limit
	// Bucket, if set, is the scheduler's own bucket when it keeps a safety
	// margin below Limit, as the host does (OBVHost); the scheduler then
	// gets Limit.Units as its sched.Options.PlatformUnits. Zero: Limit.
	Bucket   sched.Limit
	Forget   time.Duration // 0: the scheduler's default
	Duration time.Duration
	Groups   []Group

	// Fair lists the groups whose sessions' shares are compared with
	// FairShares over [From, To); they must be waiting throughout.
	Fair     []string
	From, To time.Duration
	// Newcomers is the group whose waits are reported as newcomer waits.
	Newcomers string
	Expect    Expect
}

// Claims reports whether the scenario makes a fairness claim, one that the
// no-restraint baseline is expected to break.
func (sc Scenario) Claims() bool {
	return len(sc.Fair) > 0 || sc.Expect.NewcomerMax > 0 || sc.Expect.MaxGap > 0
}

// OBV is OpenBesluitvorming's limit: a token bucket of 60 units refilling
// one unit a second.
var OBV = sched.Limit{Units: 60, Per: time.Minute}

// OBVHost is the bucket the host runs for OBV: one unit of headroom, the
// same rate (sched.Headroom at sched.HeadroomFloor, whose tests check that
// the two agree). The weights still use OBV's 60.
var OBVHost = sched.Limit{Units: 59, Per: 59 * time.Second}

// SchedBucket is the bucket the scheduler runs in sc: Bucket, or Limit.
func (sc Scenario) SchedBucket() sched.Limit {
	if sc.Bucket != (sched.Limit{}) {
		return sc.Bucket
	}
	return sc.Limit
}

// SearchCost is what OpenBesluitvorming charges for a search asking for
// limit results: max(1, ceil(limit/24)).
func SearchCost(limit int) float64 { return max(1, math.Ceil(float64(limit)/24)) }

// refill is the time the limit needs to refill units.
func refill(l sched.Limit, units float64) time.Duration {
	return time.Duration(units / l.Units * float64(l.Per))
}

// overhead is the scheduling overhead allowed on top of the physical limit.
const overhead = 10 * time.Millisecond

// Scenarios returns the scenarios that cmd/schedsim prints and the tests
// check, all at OpenBesluitvorming's limit, run as the host runs it: on a
// bucket of 59 units per 59 s, with weights 60/(60+used).
func Scenarios() []Scenario {
	scs := scenarios()
	for i := range scs {
		scs[i].Bucket = OBVHost
	}
	return scs
}

func scenarios() []Scenario {
	search := SearchCost(24)
	return []Scenario{
		{
			Name:  "newcomer",
			About: "seed: one session keeps 100 searches queued; 50 newcomers arrive one by one and ask one search each",
			Limit: OBV, Duration: 10 * time.Minute,
			Groups: []Group{
				{Name: "heavy", Threads: 100, Cost: search},
				{Name: "new", Count: 50, Arrive: 61 * time.Second, Every: 10*time.Second + 370*time.Millisecond, Calls: 1, Cost: search},
			},
			Newcomers: "new",
			Expect:    Expect{NewcomerMax: refill(OBV, search) + overhead},
		},
		{
			Name:  "equal",
			About: "three sessions with equal usage but queue depths 1, 5 and 25 get equal shares",
			Limit: OBV, Duration: 10 * time.Minute,
			Groups: []Group{
				{Name: "d1", Threads: 1, Cost: search},
				{Name: "d5", Threads: 5, Cost: search},
				{Name: "d25", Threads: 25, Cost: search},
			},
			Fair: []string{"d1", "d5", "d25"}, From: 2 * time.Minute, To: 10 * time.Minute,
			Expect: Expect{ShareMargin: 0.02, MaxGap: OBV.Per + overhead},
		},
		{
			Name:  "usage",
			About: "a session that used 3 minutes of the limit shares with a new one by weight K/(K+used), K = 60",
			Limit: OBV, Duration: 10 * time.Minute,
			Groups: []Group{
				{Name: "heavy", Threads: 10, Cost: search},
				{Name: "light", Arrive: 3 * time.Minute, Threads: 10, Cost: search},
			},
			Fair: []string{"heavy", "light"}, From: 3 * time.Minute, To: 10 * time.Minute,
			Expect: Expect{ShareMargin: 0.02, MaxGap: OBV.Per + overhead},
		},
		{
			Name:  "ratios",
			About: "seed: sessions that used 120, 60 and 0 units share the next 12 units from weights 1/3, 1/2 and 1 (60/(60+used))",
			Limit: OBV, Duration: 4*time.Minute + 12*time.Second,
			Groups: []Group{
				{Name: "used120", Calls: 120, Cost: 1},
				{Name: "used60", Calls: 60, Cost: 1},
				{Name: "empty", Arrive: 4*time.Minute - time.Millisecond, Calls: 1, Cost: 59},
				{Name: "used120", Arrive: 4 * time.Minute, Threads: 8, Cost: 1.0 / 64},
				{Name: "used60", Arrive: 4 * time.Minute, Threads: 8, Cost: 1.0 / 64},
				{Name: "new", Arrive: 4 * time.Minute, Threads: 8, Cost: 1.0 / 64},
			},
			Fair: []string{"used120", "used60", "new"}, From: 4 * time.Minute, To: 4*time.Minute + 12*time.Second,
			Expect: Expect{ShareMargin: 0.002},
		},
		{
			Name:  "starving",
			About: "a session that used 20 minutes of the limit still gets a call every minute among 8 new ones",
			Limit: OBV, Duration: 28 * time.Minute,
			Groups: []Group{
				{Name: "heavy", Threads: 5, Cost: search},
				{Name: "light", Count: 8, Arrive: 20 * time.Minute, Threads: 3, Cost: search},
			},
			Fair: []string{"heavy", "light"}, From: 21 * time.Minute, To: 28 * time.Minute,
			Expect: Expect{ShareMargin: 0.02, MaxGap: OBV.Per + overhead},
		},
		{
			Name:  "crowd",
			About: "90 sessions wait, more than one window serves; the longest waiting goes first",
			Limit: OBV, Duration: 10 * time.Minute,
			Groups: []Group{
				{Name: "one", Count: 45, Every: 200 * time.Millisecond, Threads: 1, Cost: search},
				{Name: "three", Count: 45, Arrive: 100 * time.Millisecond, Every: 200 * time.Millisecond, Threads: 3, Cost: search},
			},
			Fair: []string{"one", "three"}, From: 3 * time.Minute, To: 10 * time.Minute,
			Expect: Expect{ShareMargin: 0.005, MaxGap: refill(OBV, 90*search) + overhead},
		},
		{
			Name:  "oversized",
			About: "three calls costing 90 (> 60) are each served on a full bucket and use up the platform's whole quota, 60, while another session saturates",
			Limit: OBV, Duration: 10 * time.Minute,
			Groups: []Group{
				{Name: "busy", Threads: 2, Cost: search},
				{Name: "bulk", Arrive: time.Minute, Calls: 3, Cost: SearchCost(2160), Think: 10 * time.Second},
			},
			Expect: Expect{Served: "bulk"},
		},
	}
}

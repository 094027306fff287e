package schedlua

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/sched"
)

// replicaScript is one replica driving the script in explicit time.
func replicaScript(t testing.TB, rdb *redis.Client, id string, l sched.Limit, lease time.Duration) *luaSched {
	s := newLuaSched(t, rdb, l, sched.DefaultForget)
	s.a.Replica, s.a.Lease = id, lease
	return s
}

func (s *luaSched) tokens(at time.Time) float64 {
	s.t.Helper()
	r := s.op(at, "stats")
	f, err := strconv.ParseFloat(r.Rest[0], 64)
	if err != nil {
		s.t.Fatalf("stats %q: %v", r.Rest, err)
	}
	return f
}

func grantIDs(r Reply) []string {
	var ids []string
	for _, g := range r.Grants {
		ids = append(ids, g.ID)
	}
	return ids
}

func TestScriptHandsGrantsToTheirReplica(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()
	ctx := context.Background()
	l := sched.Limit{Units: 10, Per: 10 * time.Second}
	t0 := time.Unix(1_700_000_000, 0)
	r1 := replicaScript(t, rdb, "r1", l, time.Minute)
	r2 := replicaScript(t, rdb, "r2", l, time.Minute)
	r1.op(t0, "hb", "0", "0", "0", "1")
	r2.op(t0, "hb", "0", "0", "0", "1")
	sub := rdb.Subscribe(ctx, testChannels+"r2")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	// The bucket starts empty; r2's call waits one second.
	if r := r2.enqueue(t0, "s2", "call-b", 1, false); len(r.Grants) != 0 || r.Next != US(t0.Add(time.Second)) {
		t.Fatalf("first call: grants %v next %v, want none and t0+1s", grantIDs(r), Time(r.Next).Sub(t0))
	}
	// r1 runs the script at that instant: the grant is r2's.
	r := r1.op(t0.Add(time.Second), "adv")
	if len(r.Grants) != 0 {
		t.Fatalf("r1 received r2's grant: %v", grantIDs(r))
	}
	msg, err := sub.ReceiveMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	prefix, rec, _ := cutLine(msg.Payload)
	g, err := ParseGrant(rec)
	if prefix != r1.prefix || err != nil || g.ID != "call-b" || g.At != US(t0.Add(time.Second)) || g.Queued != time.Second.Microseconds() {
		t.Fatalf("message %q: %+v %v", msg.Payload, g, err)
	}
	// The grant also waits in r2's pending hash until r2 runs the script.
	if r := r2.op(t0.Add(time.Second), "adv"); len(r.Grants) != 1 || r.Grants[0].ID != "call-b" {
		t.Fatalf("r2 collected %v, want call-b", grantIDs(r))
	}
	if r := r2.op(t0.Add(time.Second), "adv"); len(r.Grants) != 0 {
		t.Fatalf("r2 collected %v twice", grantIDs(r))
	}
}

func cutLine(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func TestScriptDropsCallsOfADeadReplica(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()
	l := sched.Limit{Units: 10, Per: 10 * time.Second}
	lease := 5 * time.Second
	t0 := time.Unix(1_700_000_000, 0)
	r1 := replicaScript(t, rdb, "r1", l, lease)
	r2 := replicaScript(t, rdb, "r2", l, lease)
	r1.op(t0, "hb", "0", "0", "0", "1")
	r2.op(t0, "hb", "0", "0", "0", "1")
	// r2 queues a deep queue (the bucket starts empty), then dies.
	for i := range 8 {
		r2.enqueue(t0, "s2", "dead"+strconv.Itoa(i), 1, false)
	}
	// r1 keeps its lease; r2's lapses at t0+5s.
	r1.op(t0.Add(4*time.Second), "hb", "0", "0", "0", "1")
	r := r1.op(t0.Add(4*time.Second), "adv")
	if len(r.Grants) != 0 {
		t.Fatalf("r1 got %v", grantIDs(r))
	}
	// Before the lapse, r2's calls were being granted (they were first).
	granted := len(hgetall(t, rdb, r1.prefix+"g:r2"))
	if granted == 0 {
		t.Fatal("r2's calls were never granted while it lived")
	}
	at := t0.Add(6 * time.Second) // r2's lease has lapsed
	r = r1.enqueue(at, "s1", "alive", 1, false)
	if len(r.Grants) != 1 || r.Grants[0].ID != "alive" {
		t.Fatalf("after r2's lease lapsed, r1's call got %v (next %v): r2's calls still hold the bucket", grantIDs(r), Time(r.Next).Sub(t0))
	}
	if n, _ := rdb.LLen(context.Background(), r1.prefix+"q:s2").Result(); n != 0 {
		t.Fatalf("%d calls of the dead replica are still queued", n)
	}
	if got := len(hgetall(t, rdb, r1.prefix+"g:r2")); got != granted {
		t.Fatalf("grants for the dead replica went from %d to %d after its lease lapsed", granted, got)
	}
}

func hgetall(t testing.TB, rdb *redis.Client, key string) map[string]string {
	t.Helper()
	m, err := rdb.HGetAll(context.Background(), key).Result()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestScriptFenceHoldsUntilEveryShareIsHandedIn(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()
	l := sched.Limit{Units: 30, Per: 30 * time.Second} // 1 unit a second
	lease := 10 * time.Second
	t0 := time.Unix(1_700_000_000, 0)
	r1 := replicaScript(t, rdb, "r1", l, lease)
	r2 := replicaScript(t, rdb, "r2", l, lease)
	r3 := replicaScript(t, rdb, "r3", l, lease)
	for _, r := range []*luaSched{r1, r2, r3} {
		r.op(t0, "hb", "0", "0", "0", "1")
	}
	// A full shared bucket: 30 units.
	if got := r1.tokens(t0.Add(time.Minute)); got != 30 {
		t.Fatalf("bucket %v, want full", got)
	}
	// Redis lost everything (a restart without persistence) while the
	// replicas ran on their shares of 10 units each.
	mr.FlushAll()
	at := t0.Add(2 * time.Minute)
	// r1 comes back with 4 units left of its share and r2 in its list of
	// live replicas; r3 is still away.
	r := r1.op(at, "hb", "1", "4", "10", FromSched(l, 0).Per, "r1", "r2", "r3")
	if r.Lapsed || r.Live != 1 {
		t.Fatalf("rejoin Reply %+v", r)
	}
	if r := r1.enqueue(at, "s1", "fenced", 1, false); len(r.Grants) != 0 {
		t.Fatal("a call was granted while two replicas had not handed in their shares")
	}
	// r2 never fell back (it reached Redis all along): its first script
	// takes it off the fence; r3 hands in 2 units one second later.
	r2.op(at, "adv")
	r = r3.op(at.Add(time.Second), "hb", "1", "2", "10", FromSched(l, 0).Per, "r1", "r2", "r3")
	// The fence opened: the bucket holds the shares, refilled since their
	// hand-in (r1: 4 + 1/3, r3: 2), minus the call granted at once.
	if len(r.Grants) != 0 {
		t.Fatalf("r3 received %v", grantIDs(r))
	}
	r = r1.op(at.Add(time.Second), "stats")
	if len(r.Grants) != 1 || r.Grants[0].ID != "fenced" {
		t.Fatalf("the fenced call: %v", grantIDs(r))
	}
	want := 4 + 1.0/3 + 2 - 1
	if got, _ := strconv.ParseFloat(r.Rest[0], 64); got > want+1e-6 || got < want-0.001 {
		t.Fatalf("after the fence: %v units, want %v", got, want)
	}
}

func TestScriptFenceOpensAfterALease(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()
	l := sched.Limit{Units: 30, Per: 30 * time.Second}
	lease := 10 * time.Second
	t0 := time.Unix(1_700_000_000, 0)
	r1 := replicaScript(t, rdb, "r1", l, lease)
	r1.op(t0, "hb", "1", "30", "30", FromSched(l, 0).Per, "r1", "gone")
	if r := r1.enqueue(t0, "s", "c", 1, false); len(r.Grants) != 0 || r.Next != US(t0.Add(lease)) {
		t.Fatalf("grants %v next %v, want none before t0+lease", grantIDs(r), Time(r.Next).Sub(t0))
	}
	if r := r1.op(t0.Add(lease), "adv"); len(r.Grants) != 1 {
		t.Fatal("the fence did not open one lease after it went up")
	}
}

func TestScriptNewBucketStartsEmpty(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer rdb.Close()
	t0 := time.Unix(1_700_000_000, 0)
	r1 := replicaScript(t, rdb, "r1", sched.Limit{Units: 60, Per: time.Minute}, time.Minute)
	r1.op(t0, "hb", "0", "0", "0", "1")
	if got := r1.tokens(t0); got != 0 {
		t.Fatalf("a bucket Redis did not know holds %v units; want 0", got)
	}
	if got := r1.tokens(t0.Add(90 * time.Second)); got != 60 {
		t.Fatalf("after a window: %v, want 60", got)
	}
}

// TestDurIntegersMatchRationals checks the integer shortcut of dur against
// the exact rational computation, rounding both ways, on whole and
// fractional costs and limits, including the overflow edges.
func TestDurIntegersMatchRationals(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	limits := []Limit{{60, 60_000_000, 0}, {10, 10_000_000, 0}, {1e6, 1_000_000, 0}, {7, 3, 0}, {2.5, 1_000_000, 0}, {1, math.MaxInt64 / 2, 0}, {3, 1 << 40, 0}}
	costs := []float64{1, 2, 59, 60, 61, 0.5, 1.125, 1e9, 1 << 53, 1<<53 + 2, 3e18, math.MaxInt64 / 1e6}
	for i := 0; i < 2000; i++ {
		costs = append(costs, float64(1+rng.IntN(1000)), float64(rng.IntN(4000))/8)
	}
	shortcut := 0
	for _, l := range limits {
		for _, c := range costs {
			for _, up := range []bool{true, false} {
				if got, want := l.Dur(c, up), l.durRat(c, up); got != want {
					t.Fatalf("dur(%v, up=%v) on %+v = %d, rationals say %d", c, up, l, got, want)
				}
				if u := int64(c); float64(u) == c && float64(int64(l.Units)) == l.Units {
					shortcut++
				}
			}
		}
	}
	if shortcut < 1000 {
		t.Fatalf("only %d cases took the integer shortcut", shortcut)
	}
}

// TestScriptOversizedUsesUpTheQuota: a call costing more than the bucket
// is granted on a full bucket and charged the platform's whole quota and
// no more: the bucket is empty (0), not in debt, and the next unit is
// there one unit's refill later; the session is charged its whole cost as
// usage. With the host's headroom (a bucket of 59, K = 60) the quota is
// the declared 60: the bucket goes to -1 as the platform's goes to 0.
func TestScriptOversizedUsesUpTheQuota(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	for _, tt := range []struct {
		l      sched.Limit
		k      float64
		cost   float64
		tokens string
		next   time.Duration
	}{
		{sched.Limit{Units: 10, Per: 10 * time.Second}, 0, 25, "0.000000", time.Second},
		{sched.Limit{Units: 59, Per: 59 * time.Second}, 60, 60, "-1.000000", 2 * time.Second},
		{sched.Limit{Units: 59, Per: 59 * time.Second}, 60, 90, "-1.000000", 2 * time.Second},
	} {
		t.Run(fmt.Sprintf("%gper%v_K%g_cost%g", tt.l.Units, tt.l.Per, tt.k, tt.cost), func(t *testing.T) {
			mr := miniredis.RunT(t)
			rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
			defer rdb.Close()
			s := replicaScript(t, rdb, "r1", tt.l, time.Hour)
			s.a.Limit.K = tt.k
			s.op(t0, "hb", "0", "0", "0", "1")
			at := t0.Add(tt.l.Per) // a bucket Redis did not know starts empty; now it is full
			if r := s.enqueue(at, "bulk", "big", tt.cost, false); len(r.Grants) != 1 {
				t.Fatalf("the oversized call on a full bucket: grants %v, next %v", grantIDs(r), Time(r.Next).Sub(at))
			}
			if got := s.op(at, "stats").Rest[0]; got != tt.tokens {
				t.Fatalf("after the oversized call the bucket holds %s; want %s", got, tt.tokens)
			}
			if r := s.enqueue(at, "other", "next", 1, false); r.Next != US(at.Add(tt.next)) {
				t.Fatalf("next unit at %v; want %v", Time(r.Next).Sub(at), tt.next)
			}
			if u := hgetall(t, rdb, s.prefix+"s:bulk")["u"]; u != Float(tt.cost) {
				t.Fatalf("the oversized session's usage %s; want its whole cost %v", u, tt.cost)
			}
		})
	}
}

// TestScriptWeightsUseDeclaredCapacity: on the host's bucket of 59 with
// K = 60, a session that used 60 units weighs exactly 1/2 and after 120
// units 1/3, so its waiting call's finish tag lies 2 and 3 cost units
// past its start (a new session's: 1). On the bucket's 59 they would be
// 119/59 and 179/59.
func TestScriptWeightsUseDeclaredCapacity(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	for _, tt := range []struct {
		k    float64
		want map[string]float64 // finish − start of the waiting call, per session
	}{
		{60, map[string]float64{"used60": 2, "used120": 3, "new": 1}},
		{0, map[string]float64{"used60": 119.0 / 59, "used120": 179.0 / 59, "new": 1}},
	} {
		t.Run(fmt.Sprintf("K%g", tt.k), func(t *testing.T) {
			mr := miniredis.RunT(t)
			rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
			defer rdb.Close()
			l := sched.Limit{Units: 59, Per: 59 * time.Second}
			s := replicaScript(t, rdb, "r1", l, time.Hour)
			s.a.Limit.K = tt.k
			s.op(t0, "hb", "0", "0", "0", "1")
			// used60 and used120 take 60 and 120 units, one at a time, as
			// the bucket refills; then a second call of each and of a new
			// session waits on an empty bucket.
			at := t0
			n := 0
			for _, u := range []struct {
				session string
				units   int
			}{{"used60", 60}, {"used120", 120}} {
				for range u.units {
					n++
					r := s.enqueue(at, u.session, fmt.Sprintf("c%d", n), 1, false)
					for len(r.Grants) == 0 {
						at = Time(r.Next)
						r = s.op(at, "adv")
					}
				}
			}
			for _, ses := range []string{"used60", "used120", "new"} {
				n++
				if r := s.enqueue(at, ses, fmt.Sprintf("c%d", n), 1, false); len(r.Grants) != 0 {
					t.Fatalf("%s was granted on an empty bucket", ses)
				}
			}
			for ses, want := range tt.want {
				h := hgetall(t, rdb, s.prefix+"s:"+ses)
				st, _ := strconv.ParseFloat(h["s"], 64)
				fi, _ := strconv.ParseFloat(h["f"], 64)
				if got := fi - st; math.Abs(got-want) > 1e-12 {
					t.Errorf("%s (used %s): finish − start %v; want %v", ses, h["u"], got, want)
				}
			}
		})
	}
}

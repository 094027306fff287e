package schedlua

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/sched"
)

const fastGuard = "if op == 'enq' then\n\t-- nw and fd mirror"

// scriptVariants returns the scheduler with its fast path counting each
// time it is taken (in the key fastpath:taken), and the scheduler with its
// fast path switched off.
func scriptVariants(t testing.TB) (counting, general *redis.Script) {
	t.Helper()
	if strings.Count(Script, fastGuard) != 1 {
		t.Fatal("sched.lua: the fast path's guard is not where this test expects it")
	}
	const ret = "\t\tout[#out + 1] = '0'\n\t\tout[#out + 1] = ''\n"
	if strings.Count(Script, ret) != 1 {
		t.Fatal("sched.lua: the fast path's Reply is not where this test expects it")
	}
	counting = redis.NewScript(strings.Replace(Script, ret, "\t\tredis.call('INCR', 'fastpath:taken')\n"+ret, 1))
	general = redis.NewScript(strings.Replace(Script, fastGuard, "if false then\n\t-- nw and fd mirror", 1))
	return counting, general
}

// keyspace is every key of a Redis with its type, content and expiry.
func keyspace(t testing.TB, rdb *redis.Client) map[string]string {
	t.Helper()
	ctx := context.Background()
	keys, err := rdb.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, k := range keys {
		if k == "fastpath:taken" {
			continue
		}
		var v any
		switch typ := rdb.Type(ctx, k).Val(); typ {
		case "hash":
			v = rdb.HGetAll(ctx, k).Val()
		case "list":
			v = rdb.LRange(ctx, k, 0, -1).Val()
		case "zset":
			v = rdb.ZRangeWithScores(ctx, k, 0, -1).Val()
		case "set":
			m := rdb.SMembers(ctx, k).Val()
			sort.Strings(m)
			v = m
		default:
			v = typ
		}
		out[k] = fmt.Sprintf("%v ttl=%v", v, rdb.PTTL(ctx, k).Val())
	}
	return out
}

// TestFastPathMatchesGeneralPath runs random calls from two replicas
// through the scheduler with and without its fast path, on two Redis
// servers, and requires the same Reply to every op and the same keys,
// values and expiries after it. It fails if the fast path was rarely
// taken: the limits are tight enough that both paths run often.
func TestFastPathMatchesGeneralPath(t *testing.T) {
	counting, general := scriptVariants(t)
	for seed := uint64(1); seed <= 6; seed++ {
		l := []sched.Limit{{Units: 4, Per: 2 * time.Second}, {Units: 60, Per: time.Minute}}[seed%2]
		// Seeds 4 to 6 declare a capacity K one unit above the bucket, as
		// the host's headroom does: the weights and the charges use it.
		lim := FromSched(l, 0)
		if seed > 3 {
			lim.K = l.Units + 1
		}
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			ctx := context.Background()
			fast := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
			slow := redis.NewClient(&redis.Options{Addr: miniredis.RunT(t).Addr()})
			defer fast.Close()
			defer slow.Close()
			rng := rand.New(rand.NewPCG(seed, 11))
			prefix := quotaPrefix("test/search")
			forget := 3 * l.Per
			args := func(replica string, at time.Time) Args {
				return Args{Now: US(at), Replica: replica, Limit: lim, Forget: forget, Lease: time.Hour}
			}
			now := time.Unix(1_700_000_000, 0)
			step := 0
			do := func(replica, op string, a ...any) {
				t.Helper()
				rf, errF := runRaw(ctx, counting, fast, prefix, args(replica, now), op, a...)
				rs, errS := runRaw(ctx, general, slow, prefix, args(replica, now), op, a...)
				if fmt.Sprint(errF) != fmt.Sprint(errS) || !reflect.DeepEqual(rf, rs) {
					t.Fatalf("step %d: %s %s %v: fast path answered %v (%v), general path %v (%v)", step, replica, op, a, rf, errF, rs, errS)
				}
				kf, ks := keyspace(t, fast), keyspace(t, slow)
				if !reflect.DeepEqual(kf, ks) {
					for k := range ks {
						if kf[k] != ks[k] {
							t.Errorf("key %s: fast path %s, general path %s", k, kf[k], ks[k])
						}
					}
					for k := range kf {
						if _, ok := ks[k]; !ok {
							t.Errorf("key %s: only the fast path wrote it: %s", k, kf[k])
						}
					}
					t.Fatalf("step %d: %s %s %v: the paths left different state", step, replica, op, a)
				}
			}
			replicas := []string{"r1", "r2"}
			for _, r := range replicas {
				do(r, "hb", "0", "0", "0", "1")
			}
			sessions := []string{"a", "b", "c", sched.PublicSession}
			type pending struct{ replica, session, id string }
			var open []pending
			enqs := 0
			for step = 0; step < 400; step++ {
				switch k := rng.IntN(12); {
				case k < 7:
					// Arrivals near the limit's rate: the queue builds and drains.
					now = now.Add(time.Duration(rng.IntN(12)) * l.Per / time.Duration(4*l.Units))
					if rng.IntN(10) == 0 {
						now = now.Add(l.Per) // the bucket refills
					}
					if rng.IntN(25) == 0 {
						now = now.Add(forget) // usage is forgotten
					}
					r, s := replicas[rng.IntN(2)], sessions[rng.IntN(len(sessions))]
					cost := float64(1+rng.IntN(16)) / 8
					if rng.IntN(30) == 0 {
						cost = l.Units + 1
					}
					if rng.IntN(30) == 0 {
						cost = 2*l.Units + 2 // oversized for K too
					}
					id := fmt.Sprintf("c%d", step)
					do(r, "enq", s, id, Float(cost), lim.Charge(cost, true), lim.Charge(cost, false), Flag(rng.IntN(8) == 0), Flag(rng.IntN(2) == 0))
					open = append(open, pending{r, s, id})
					enqs++
				case k < 8 && len(open) > 0:
					i := rng.IntN(len(open))
					p := open[i]
					open = append(open[:i], open[i+1:]...)
					do(p.replica, "cancel", p.session, p.id, "1", "0.5")
				case k < 9:
					now = now.Add(l.Per / 8)
					do(replicas[rng.IntN(2)], "pause", US(now.Add(l.Per/4)))
				case k < 10:
					if rng.IntN(3) == 0 {
						// Back from a fallback: the hand-in raises a fence,
						// which stands until the other replica hands in too.
						do(replicas[rng.IntN(2)], "hb", "1", Float(float64(rng.IntN(3))), Float(l.Units/2), FromSched(l, 0).Per, "r1", "r2")
					} else {
						do(replicas[rng.IntN(2)], "hb", "0", "0", "0", "1")
					}
				default:
					now = now.Add(time.Duration(rng.IntN(16)) * l.Per / 16)
					do(replicas[rng.IntN(2)], "adv")
				}
			}
			taken, _ := fast.Get(ctx, "fastpath:taken").Int()
			if taken < enqs/5 || enqs-taken < 20 {
				t.Fatalf("the fast path was taken on %d of %d calls: the scenario does not exercise both paths", taken, enqs)
			}
			t.Logf("fast path taken on %d of %d calls", taken, enqs)
		})
	}
}

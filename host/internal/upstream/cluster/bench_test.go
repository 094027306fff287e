package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/quota"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedlua"
)

// roundTripLua answers like the scheduler does for a granted call (now,
// next, one grant, no projections, the tail) and does nothing else: one
// round trip of a script call, the least any shared decision costs.
const roundTripLua = `local tm = redis.call('TIME')
return { tm[1] .. tm[2], '0', '1', ARGV[9] .. '|1|' .. tm[1] .. '|0', '0', '', '0', '0' }`

// BenchmarkGrant measures one granted call with room in the bucket: the
// local scheduler alone (one process), the shared scheduler on a real
// redis-server, one round trip of a script call of the same shape that
// does nothing, and a bare PING. The four run interleaved, so the ratio
// is free of the drift of a shared machine:
//
//	go test -run '^$' -bench Grant -benchtime 3000x ./host/internal/upstream/cluster/
//
// added/roundtrip is the cost scaling out adds to a granted call
// (shared minus local) in round trips of a script call.
func BenchmarkGrant(b *testing.B) {
	limit := sched.Limit{Units: 1e6, Per: time.Second} // never the bottleneck
	infos := make([]*callinfo.Info, 8)
	for i := range infos {
		infos[i] = &callinfo.Info{Session: fmt.Sprintf("s%d", i)}
	}
	local, err := quota.New("obv", "OpenBesluitvorming", "search", limit, nil)
	if err != nil {
		b.Fatal(err)
	}
	rs := startRedis(b)
	r := newTestReplica(b, rs.Addr, "bench", limit, Options{}, nil)
	rt := redis.NewScript(roundTripLua)
	a := r.c.args(r.l.limit)
	ctx := context.Background()
	steps := []func(i int){
		func(i int) {
			if _, err := local.Wait(ctx, infos[i%len(infos)], 1, false); err != nil {
				b.Fatal(err)
			}
		},
		func(i int) {
			if _, err := r.l.Wait(ctx, infos[i%len(infos)], 1, false); err != nil {
				b.Fatal(err)
			}
		},
		func(i int) {
			v, err := runRaw(ctx, rt, r.c.rdb, r.l.prefix, a, "enq", infos[i%len(infos)].Session, newCallID(), "1",
				r.l.limit.Charge(1, true), r.l.limit.Charge(1, false), "0", "0")
			if err == nil {
				_, err = schedlua.ParseReply(v)
			}
			if err != nil {
				b.Fatal(err)
			}
		},
		func(int) {
			if err := r.c.rdb.Ping(ctx).Err(); err != nil {
				b.Fatal(err)
			}
		},
	}
	for i := range 50 { // warm: connections, script cache
		for _, s := range steps {
			s(i)
		}
	}
	spent := make([]time.Duration, len(steps))
	b.ResetTimer()
	for i := range b.N {
		for k := range steps {
			k = (k + i) % len(steps) // rotate, so no step always follows the same one
			start := time.Now()
			steps[k](i)
			spent[k] += time.Since(start)
		}
	}
	per := func(k int) float64 { return float64(spent[k].Nanoseconds()) / float64(b.N) }
	b.ReportMetric(per(0), "local-ns/call")
	b.ReportMetric(per(1), "redis-ns/call")
	b.ReportMetric(per(2), "roundtrip-ns/call")
	b.ReportMetric(per(3), "ping-ns/call")
	b.ReportMetric((per(1)-per(0))/per(2), "added/roundtrip")
}

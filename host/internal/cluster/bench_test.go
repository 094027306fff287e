package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/limits"
	"github.com/besluitbron/besluitbron/sched"
)

// BenchmarkGrant measures one granted call with room in the bucket: the
// local scheduler alone (one process), and the shared scheduler on a real
// redis-server (one script run, one round trip). The difference is the
// added cost per granted call of scaling out:
//
//	go test -run '^$' -bench Grant -benchtime 2000x ./host/internal/cluster/
func BenchmarkGrant(b *testing.B) {
	limit := sched.Limit{Units: 1e6, Per: time.Second} // never the bottleneck
	infos := make([]*callinfo.Info, 8)
	for i := range infos {
		infos[i] = &callinfo.Info{Session: fmt.Sprintf("s%d", i)}
	}
	b.Run("local", func(b *testing.B) {
		l, err := limits.New("obv", "OpenBesluitvorming", "search", limit, nil)
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := l.Wait(ctx, infos[i%len(infos)], 1, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("redis", func(b *testing.B) {
		rs := startRedis(b)
		r := newTestReplica(b, rs.addr, "bench", limit, Options{}, nil)
		ctx := context.Background()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := r.l.Wait(ctx, infos[i%len(infos)], 1, false); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("redis-ping", func(b *testing.B) {
		// One bare round trip, for scale.
		rs := startRedis(b)
		r := newTestReplica(b, rs.addr, "bench", limit, Options{}, nil)
		ctx := context.Background()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := r.c.rdb.Ping(ctx).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

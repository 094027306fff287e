package admission

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// BenchmarkAcquire measures a slot's round trip, Acquire and release.
// "free": one session, a slot always free, the path nearly every call
// takes. "waiting/n": n sessions share one slot, so every release hands
// the slot to a waiter chosen among up to n−1 waiting sessions: the cost
// of the fair choice, goroutine hand-offs included.
func BenchmarkAcquire(b *testing.B) {
	b.Run("free", func(b *testing.B) {
		a := New(4, nil)
		ctx := context.Background()
		for b.Loop() {
			rel, err := a.Acquire(ctx, "s")
			if err != nil {
				b.Fatal(err)
			}
			rel()
		}
	})
	for _, n := range []int{10, 100} {
		b.Run(fmt.Sprintf("waiting/%d", n), func(b *testing.B) {
			weights := map[string]float64{}
			for i := range n {
				weights[fmt.Sprintf("s%d", i)] = 1 / float64(1+i%3)
			}
			a := New(1, func(s string) float64 { return weights[s] })
			ctx := context.Background()
			per := max(1, b.N/n)
			b.ResetTimer()
			var wg sync.WaitGroup
			for s := range weights {
				wg.Go(func() {
					for range per {
						rel, err := a.Acquire(ctx, s)
						if err != nil {
							b.Error(err)
							return
						}
						rel()
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed())/float64(per*n), "ns/grant")
			if free, waiting := a.Stats(); free != 1 || waiting != 0 {
				b.Fatalf("free %d, waiting %d; want 1, 0", free, waiting)
			}
		})
	}
}

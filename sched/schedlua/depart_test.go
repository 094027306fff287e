package schedlua

import (
	"context"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/sched"
)

var departScript = redis.NewScript(DepartScript)

// TestDepartureBucket: the shared departure bucket lets a full burst of
// its capacity go at once, then one request per unit's refill, keeps the
// widest headroom any live replica asks for, forgets a replica's headroom
// after its time to live, and holds requests during a pause.
func TestDepartureBucket(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	ctx := context.Background()
	p := quotaPrefix("dep")
	l := Limit{Units: 10, Per: time.Second.Microseconds(), K: 10} // 10 units a second
	const t0 = int64(1_000_000_000_000)
	depart := func(now int64, replica string, h float64) Departure {
		t.Helper()
		v, err := departScript.Run(ctx, rdb, []string{p}, DepartArgv(now, replica, l, h, 1, time.Second)...).Result()
		if err != nil {
			t.Fatal(err)
		}
		d, err := ParseDepart(v)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// Replica a asks for 3 units of headroom, b for 1: 7 go at once.
	depart(t0, "a", 3)
	for i := 1; i < 7; i++ {
		if d := depart(t0, "b", 1); d.At != t0 || d.Headroom != 3 {
			t.Fatalf("departure %d at %d with headroom %v, want now with 3", i+1, d.At-t0, d.Headroom)
		}
	}
	// The eighth waits for one unit's refill, 100 ms; the ninth for two.
	if d := depart(t0, "b", 1); d.At != t0+100_000 {
		t.Fatalf("8th departure at +%d µs, want +100000", d.At-t0)
	}
	if d := depart(t0, "b", 1); d.At != t0+200_000 {
		t.Fatalf("9th departure at +%d µs, want +200000", d.At-t0)
	}
	// After a second and a half a's headroom has lapsed: b's 1 holds, and
	// the bucket (full again) lets 9 go.
	t1 := t0 + 1_500_000
	for i := range 9 {
		if d := depart(t1, "b", 1); d.At != t1 || d.Headroom != 1 {
			t.Fatalf("after the lapse, departure %d at +%d with headroom %v, want now with 1", i+1, d.At-t1, d.Headroom)
		}
	}
	// A pause (the scheduler's, after a 429) holds departures.
	t2 := t1 + 5_000_000
	if err := rdb.HSet(ctx, p+"st", "paused", t2+700_000).Err(); err != nil {
		t.Fatal(err)
	}
	if d := depart(t2, "b", 1); d.At != t2+700_000 {
		t.Fatalf("departure during a pause at +%d, want +700000", d.At-t2)
	}
}

// TestDepartureHeadroomCap: a replica asking for more headroom than
// sched.HeadroomCap of the capacity gets the cap, as its own buckets do
// (sched.Headroom), and no more.
func TestDepartureHeadroomCap(t *testing.T) {
	mr := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	l := Limit{Units: 10, Per: time.Second.Microseconds(), K: 10}
	const t0 = int64(1_000_000_000_000)
	v, err := departScript.Run(context.Background(), rdb, []string{quotaPrefix("cap")}, DepartArgv(t0, "a", l, 9, 1, time.Second)...).Result()
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseDepart(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := l.Units * sched.HeadroomCap; d.Headroom != want {
		t.Fatalf("headroom %v for a replica asking 9 of 10 units, want the cap %v", d.Headroom, want)
	}
}

package cluster

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/besluitbron/besluitbron/sched"
)

// sharedTokens is what the shared bucket holds now, by Redis's clock.
func sharedTokens(t *testing.T, l *SharedQuota) float64 {
	t.Helper()
	r, err := l.script(context.Background(), "stats")
	if err != nil {
		t.Fatal(err)
	}
	f, err := strconv.ParseFloat(r.Rest[0], 64)
	if err != nil {
		t.Fatalf("stats %q: %v", r.Rest, err)
	}
	return f
}

// TestObserveLowersSharedBucket: RateLimit headers read by
// sched.RateLimitBounds lower the shared bucket (and the local one) to
// what the platform says it holds; headers that are not plain numbers
// change nothing.
func TestObserveLowersSharedBucket(t *testing.T) {
	mr := miniredis.RunT(t)
	t0 := time.Unix(1_700_000_000, 0)
	mr.SetTime(t0)
	r := newTestReplica(t, mr.Addr(), "r1", sched.Limit{Units: 60, Per: time.Minute}, Options{}, nil)
	now := t0.Add(5 * time.Minute) // the bucket Redis did not know started empty; now it is full
	mr.SetTime(now)
	full := sharedTokens(t, r.l)
	if full < 58.9 {
		t.Fatalf("the shared bucket holds %v after five minutes; want it full (59)", full)
	}
	for _, h := range []map[string]string{
		{"RateLimit-Remaining": "3 units", "RateLimit-Reset": "57"},
		{"RateLimit-Remaining": "-3", "RateLimit-Reset": "57"},
		{"RateLimit-Reset": "57"},
	} {
		hdr := http.Header{}
		for k, v := range h {
			hdr.Set(k, v)
		}
		r.l.Observe(http.StatusOK, hdr, time.Time{}, now)
		time.Sleep(20 * time.Millisecond) // a correction, had one been sent, runs on its own goroutine
		if got := sharedTokens(t, r.l); got != full {
			t.Fatalf("headers %v changed the shared bucket from %v to %v", h, full, got)
		}
	}
	hdr := http.Header{}
	hdr.Set("RateLimit-Remaining", "3")
	hdr.Set("RateLimit-Reset", "57")
	r.l.Observe(http.StatusOK, hdr, time.Time{}, now)
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := sharedTokens(t, r.l)
		if got >= 3 && got <= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Remaining 3, Reset 57 the shared bucket holds %v; want 3 to 4", got)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := r.l.Local().Scheduler().TokensAt(now); got < 3 || got > 4 {
		t.Fatalf("the local bucket holds %v; want 3 to 4", got)
	}
}

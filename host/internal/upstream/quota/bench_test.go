package quota

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sched"
)

// steppingClock moves a second forward at every reading, so a limit of a
// unit per second always has room: the benchmark measures the check, never
// a wait.
type steppingClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *steppingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

type stdTimer struct{ *time.Timer }

func (c *steppingClock) AfterFunc(d time.Duration, f func()) sched.Timer {
	return stdTimer{time.AfterFunc(d, f)}
}

// BenchmarkWaitGranted is a platform limit's own cost on an upstream fetch
// when the limit has room: the scheduler's bookkeeping for the session,
// with no wait (OpenBesluitvorming's 60 units a minute).
func BenchmarkWaitGranted(b *testing.B) {
	l, err := New("obv", "OpenBesluitvorming", "api", sched.Limit{Units: 60, Per: time.Minute},
		&sched.Options{Clock: &steppingClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}})
	if err != nil {
		b.Fatal(err)
	}
	info := &callinfo.Info{Session: "bench"}
	ctx := context.Background()
	for b.Loop() {
		if q, err := l.Wait(ctx, info, 1, false); err != nil || q != 0 {
			b.Fatalf("queued %v: %v", q, err)
		}
	}
}

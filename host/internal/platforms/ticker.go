package platforms

import (
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/sched"
)

// clockTicker ticks every d on the set's clock (Options.Clock, else the
// real one), so that a test's fake clock drives the caches' saves and
// `cache clear` polls as it drives the schedulers and the TTLs. A tick
// that finds the previous one unread is dropped, as time.Ticker does.
type clockTicker struct {
	C       chan struct{}
	mu      sync.Mutex
	t       sched.Timer
	stopped bool
}

func (s *Set) newTicker(d time.Duration) *clockTicker {
	var clk sched.Clock = realClock{}
	if s.clock != nil {
		clk = s.clock
	}
	k := &clockTicker{C: make(chan struct{}, 1)}
	var arm func()
	arm = func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if k.stopped {
			return
		}
		k.t = clk.AfterFunc(d, func() {
			select {
			case k.C <- struct{}{}:
			default:
			}
			arm()
		})
	}
	arm()
	return k
}

// Stop ends the ticks.
func (k *clockTicker) Stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.stopped = true
	if k.t != nil {
		k.t.Stop()
	}
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) sched.Timer {
	return time.AfterFunc(d, f)
}

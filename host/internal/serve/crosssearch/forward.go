package crosssearch

import (
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// forwarder gives each platform call its own Info (so that each section
// has its own _meta) in the caller's session, and passes queue positions
// on to the caller's progress notifications, one at a time and never
// after the call has returned.
type forwarder struct {
	parent  *callinfo.Info
	mu      sync.Mutex
	stopped bool
}

func (f *forwarder) child() *callinfo.Info {
	c := &callinfo.Info{}
	if f.parent != nil {
		c.Session, c.Public = f.parent.Session, f.parent.Public
		if f.parent.OnQueued != nil {
			c.OnQueued = func(position int, eta time.Duration) {
				f.mu.Lock()
				defer f.mu.Unlock()
				if !f.stopped {
					f.parent.OnQueued(position, eta)
				}
			}
		}
	}
	return c
}

func (f *forwarder) stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
}

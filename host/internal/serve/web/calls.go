package web

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// calls runs the pages' platform calls as the public session. A call
// outlives the page that started it (its answer fills the cache); a page
// asking the same question meanwhile joins it.
type calls struct {
	invoke  invoke.Invoker
	timeout time.Duration
	slots   chan struct{}

	mu      sync.Mutex
	running map[string]*pending
}

// pending is one running call. done closes when ans is set.
type pending struct {
	done chan struct{}
	// stored closes when a list call's outcome is kept (lists.store).
	stored chan struct{}
	// ans is the connector's answer, with the call's summary (cache
	// outcome, queueing, the host's notes) and its error.
	ans invoke.Answer

	mu    sync.Mutex
	pos   int
	eta   time.Duration
	since time.Time
}

func newCalls(max int, timeout time.Duration, invoke invoke.Invoker) *calls {
	return &calls{invoke: invoke, timeout: timeout, slots: make(chan struct{}, max), running: map[string]*pending{}}
}

// errBusy is returned when MaxInFlight calls are already running.
var errBusy = &busyError{}

type busyError struct{}

func (*busyError) Error() string { return "web: too many platform calls at once" }

// start returns the running call for (tool, args), starting it if none
// runs. It fails with errBusy when every slot is taken.
func (c *calls) start(tool string, args json.RawMessage) (*pending, error) {
	key := tool + " " + string(args)
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.running[key]; ok {
		return p, nil
	}
	select {
	case c.slots <- struct{}{}:
	default:
		return nil, errBusy
	}
	p := &pending{done: make(chan struct{}), stored: make(chan struct{}), since: time.Now()}
	c.running[key] = p
	info := callinfo.Public()
	info.OnQueued = func(pos int, eta time.Duration) {
		p.mu.Lock()
		p.pos, p.eta = pos, eta
		p.mu.Unlock()
	}
	go func() {
		defer func() { <-c.slots }()
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		defer cancel()
		ans := c.invoke(ctx, info, tool, args)
		c.mu.Lock()
		delete(c.running, key)
		c.mu.Unlock()
		p.ans = ans
		close(p.done)
	}()
	return p, nil
}

// wait waits for p up to d or until ctx ends; it reports whether p is done.
func (p *pending) wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// queued returns the last queue position and expected wait, if the call
// is waiting at the platform's limit.
func (p *pending) queued() (int, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pos, p.eta
}

// Outcome kinds of one platform's answer, as the page shows them.
const (
	kindOK          = "ok"
	kindEmpty       = "empty"
	kindSlow        = "slow"
	kindQueued      = "queued"
	kindBusy        = "busy"
	kindDown        = "down"
	kindInvalid     = "invalid"
	kindError       = "error"
	kindUnsupported = "unsupported"
	// kindAmbiguous: the filter names several organisations; the
	// section lists them to choose from.
	kindAmbiguous = "ambiguous"
)

// classify names what went wrong in a tool error. The fetch gate's error
// kinds reach the text as "<kind>: message" (connector.FetchError).
func classify(text string) string {
	switch {
	case strings.Contains(text, "unavailable: "), strings.Contains(text, "did not answer within"):
		return kindDown
	case strings.Contains(text, "queue_timeout: "), strings.Contains(text, "instance of the connector is busy"):
		return kindBusy
	case strings.Contains(text, "invalid arguments"), strings.Contains(text, "argument \""):
		return kindInvalid
	case strings.Contains(text, "HTTP 502"), strings.Contains(text, "HTTP 503"), strings.Contains(text, "HTTP 504"):
		return kindDown // a gateway or the platform itself says it is not there
	}
	return kindError
}

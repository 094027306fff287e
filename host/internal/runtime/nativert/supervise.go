package nativert

import (
	"context"
	"fmt"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// process is one running connector process as the supervisor sees it.
type process interface {
	// Describe and Call run in the process.
	Describe(ctx context.Context) (connector.Manifest, error)
	Call(ctx context.Context, req connector.CallRequest, h connector.Host) (connector.CallResult, error)
	// exited is a cheap check, made before every call.
	exited() bool
	// ping asks a process whose call failed whether it still answers.
	ping() error
	// kill ends the process; it may block for go-plugin's grace period.
	kill()
	// pid identifies the process in logs.
	pid() int
}

// starter starts a process; the real one is [Connector.launch].
type starter func(ctx context.Context) (process, error)

// Backoff bounds: the first restart after a crash waits minBackoff, each
// further consecutive crash doubles the wait, up to maxBackoff. A call
// that succeeds resets the count.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 30 * time.Second
)

// backoff is the wait before the next start after n consecutive crashes or
// failed starts.
func backoff(n int) time.Duration {
	if n <= 0 {
		return 0
	}
	d := minBackoff
	for i := 1; i < n && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

// RestartError is returned when a call cannot get a process: the last
// start failed or the process crashed, and the backoff before the next
// start ends after the call's deadline.
type RestartError struct {
	// Crashes counts consecutive lost processes and failed starts.
	Crashes int
	// After is how long until the next start may begin.
	After time.Duration
	// Last is why the last process was lost or failed to start.
	Last error
}

func (e *RestartError) Error() string {
	return fmt.Sprintf("its process failed %d time(s) in a row (last: %v); the next start is in %s, after this call's deadline", e.Crashes, e.Last, e.After.Round(time.Millisecond))
}

// Unwrap returns the last failure.
func (e *RestartError) Unwrap() error { return e.Last }

// get returns the running process, starting one if none runs. One start
// runs at a time; concurrent callers wait for it. After a crash the start
// waits for the backoff, or fails at once with a *RestartError when the
// backoff outlasts ctx's deadline.
func (c *Connector) get(ctx context.Context) (process, error) {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return nil, fmt.Errorf("closed")
		}
		if p := c.cur; p != nil {
			if !p.exited() {
				c.mu.Unlock()
				return p, nil
			}
			c.lostLocked(p, fmt.Errorf("process %d exited while idle", p.pid()))
		}
		if ch := c.starting; ch != nil {
			c.mu.Unlock()
			return c.awaitStart(ctx, ch)
		}
		if wait := time.Until(c.retryAt); wait > 0 {
			if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
				err := &RestartError{Crashes: c.crashes, After: wait, Last: c.lastErr}
				c.mu.Unlock()
				return nil, err
			}
			c.mu.Unlock()
			t := time.NewTimer(wait)
			select {
			case <-t.C:
				continue
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		}
		ch := make(chan struct{})
		c.starting = ch
		c.mu.Unlock()
		// The start outlives the caller that triggered it: others wait for
		// it too, and a half-started process must be finished or killed.
		go c.runStart(context.WithoutCancel(ctx), ch)
		return c.awaitStart(ctx, ch)
	}
}

// awaitStart waits for the start in progress and returns its process, or
// the reason it failed: every caller that waited for a start shares its
// outcome rather than starting again.
func (c *Connector) awaitStart(ctx context.Context, done chan struct{}) (process, error) {
	select {
	case <-done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		return nil, fmt.Errorf("closed")
	case c.cur == nil:
		return nil, c.lastErr
	}
	return c.cur, nil
}

// runStart starts a process and publishes the outcome.
func (c *Connector) runStart(ctx context.Context, done chan struct{}) {
	ctx, cancel := context.WithTimeout(ctx, c.o.StartTimeout)
	defer cancel()
	p, err := c.start(ctx)
	c.mu.Lock()
	defer close(done)
	defer c.mu.Unlock()
	c.starting = nil
	switch {
	case err != nil:
		c.crashes++
		c.retryAt = time.Now().Add(backoff(c.crashes))
		c.lastErr = err
		c.o.Logger.Warn("connector process failed to start", "connector", c.id, "failures", c.crashes, "retry_in", backoff(c.crashes), "error", err)
	case c.closed:
		go p.kill()
	default:
		c.cur = p
		c.o.Logger.Info("connector process started", "connector", c.id, "pid", p.pid(), "restarts_after_failures", c.crashes)
	}
}

// lost records that p no longer serves and ends it, once however many
// calls notice.
func (c *Connector) lost(p process, why error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lostLocked(p, why)
}

func (c *Connector) lostLocked(p process, why error) {
	if c.cur != p {
		return // already replaced
	}
	c.cur = nil
	c.crashes++
	c.retryAt = time.Now().Add(backoff(c.crashes))
	c.lastErr = why
	c.o.Logger.Warn("connector process lost; restarting at the next call", "connector", c.id, "pid", p.pid(), "crashes", c.crashes, "retry_in", backoff(c.crashes), "error", why)
	go p.kill()
}

// succeeded resets the crash count after a call the process served.
func (c *Connector) succeeded(p process) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == p {
		c.crashes = 0
	}
}

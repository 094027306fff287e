package clientcall

import (
	"context"
	"sync"
	"time"
)

// WithDeadline returns a context that ends limit after now, like
// context.WithTimeout, except that its clock stops while the call waits
// for an answer from its client ([Pause]): a person's minutes do not count
// against the call's own budget, and the call resumes with the time it
// had left. Its Err is context.DeadlineExceeded when the limit ran out,
// and its Deadline is the current one (the parent's alone while paused),
// so the fetch path still sees how long a call may queue.
func WithDeadline(parent context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	c := &callCtx{parent: parent, done: make(chan struct{}), at: time.Now().Add(limit)}
	// Both functions may run at once (a parent already done, a limit of
	// zero); end waits for the lock, so they see the fields set.
	c.mu.Lock()
	c.timer = time.AfterFunc(limit, func() { c.end(context.DeadlineExceeded) })
	c.stop = context.AfterFunc(parent, func() { c.end(parent.Err()) })
	c.mu.Unlock()
	return c, func() { c.end(context.Canceled) }
}

// callCtx is the context of [WithDeadline]. It is not a child of a
// cancelCtx of the standard library (those cannot move their deadline), so
// it keeps its own done channel and error; children of it get that error.
type callCtx struct {
	parent context.Context
	done   chan struct{}

	mu     sync.Mutex
	timer  *time.Timer
	stop   func() bool // stops following the parent
	err    error
	at     time.Time     // the deadline, while not paused
	left   time.Duration // the time left, while paused
	paused int           // requests waiting for the client
}

type pauseKey struct{}

func (c *callCtx) Deadline() (time.Time, bool) {
	c.mu.Lock()
	paused, at := c.paused > 0, c.at
	c.mu.Unlock()
	pd, ok := c.parent.Deadline()
	if paused {
		return pd, ok
	}
	if ok && pd.Before(at) {
		return pd, true
	}
	return at, true
}

// Done is the call's done channel, closed first if the parent has ended
// (see Err): a context derived from the call now starts out ended.
func (c *callCtx) Done() <-chan struct{} {
	c.Err()
	return c.done
}

// Err is the call's error. A parent that has ended counts at once, before
// the callback that follows it has run: a check just before a platform is
// asked (the scheduler's, the fetch gate's) must see a call whose client
// has gone in the instant it went (issue 27).
func (c *callCtx) Err() error {
	c.mu.Lock()
	// A deadline that has passed counts at once too, before its timer's
	// callback has run: on a busy machine that callback can run well
	// after the deadline, and a call that finished in between would
	// otherwise pass for one that kept its bound.
	err, late := c.err, c.paused == 0 && !time.Now().Before(c.at)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if perr := c.parent.Err(); perr != nil {
		return c.end(perr)
	}
	if late {
		return c.end(context.DeadlineExceeded)
	}
	return nil
}

func (c *callCtx) Value(key any) any {
	if key == (pauseKey{}) {
		return c
	}
	return c.parent.Value(key)
}

// end ends the call with err, unless it has ended already, and returns
// the error it ended with.
func (c *callCtx) end(err error) error {
	c.mu.Lock()
	if c.err != nil {
		defer c.mu.Unlock()
		return c.err
	}
	c.err = err
	close(c.done)
	timer, stop := c.timer, c.stop
	c.mu.Unlock()
	timer.Stop()
	stop()
	return err
}

// Pause stops the clock of the [WithDeadline] context in ctx, if any, and
// returns the function that starts it again. Pauses may nest or overlap
// (a native connector may ask from several goroutines): the clock runs
// again when the last one resumes.
func Pause(ctx context.Context) (resume func()) {
	c, _ := ctx.Value(pauseKey{}).(*callCtx)
	if c == nil {
		return func() {}
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return func() {}
	}
	if c.paused == 0 {
		c.timer.Stop()
		c.left = max(time.Until(c.at), 0)
	}
	c.paused++
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.paused--
			if c.paused == 0 && c.err == nil {
				c.at = time.Now().Add(c.left)
				c.timer.Reset(c.left)
			}
		})
	}
}

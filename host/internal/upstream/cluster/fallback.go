package cluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedlua"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Why the fallback is safe, and how the way back is.
//
// Falling back. Every grant in Redis happened before Redis went away, so
// the platform's bucket then held at least what the shared bucket held,
// which is at least nothing. Each replica starts its own share empty when
// it notices: capacity C/n refilled at R/n, where n is the number of live
// replicas it last saw. The shares together never refill faster than the
// platform's bucket, so they never grant more than it accepts. A replica
// registered for less than a lease may be missing from the others' n, so
// it takes no share (its limited calls fail with a clear message until
// Redis answers).
//
// Coming back. A replica that reaches Redis again stops granting on its
// share, waits until its own local grants are over, and hands in what is
// left of its share (its level, and its capacity and window, from which
// the level later follows). The first hand-in raises a fence: no shared
// grant until every replica that may still grant on its own share has
// handed in, or one lease has passed (after which a replica that has not
// come back counts as dead; a live one retries every Lease/3). When the
// fence opens, the shared bucket is lowered to the sum of the handed-in
// shares, each refilled to that instant: the platform's bucket holds at
// least that much, because the shares never took more than the platform's
// refill. A replica that never fell back hands in nothing, with its first
// script after the fence went up.
//
// What this does not cover: a replica cut off from a Redis that the others
// still reach grants on its share while they use the whole limit. The
// per-replica headroom (one unit) and the 429 handling (a pause for every
// replica, the call retried at the head of its queue) absorb short cuts;
// docs/scale-out.md says to keep Redis next to the replicas.

// fail leaves the shared state after a failed script.
func (l *SharedQuota) fail(err error) {
	now := l.c.clock.Now()
	n, ok := l.c.share()
	l.mu.Lock()
	if l.mode != Shared {
		l.mu.Unlock()
		return
	}
	l.setMode(Fallback, now)
	l.lastErr = err.Error()
	l.falls++
	if !ok {
		n = 0
	}
	l.shareN = n
	if l.timer != nil {
		l.timer.Stop()
		l.timer, l.timerAt = nil, 0
	}
	l.timerGen++
	l.waiters = map[string]*waiter{}
	l.mu.Unlock()
	if n > 0 {
		s := l.local.Scheduler()
		s.SetLimitAt(now, l.shareLimit(n))
		s.LowerAt(now, 0)
		l.c.log.Warn("Redis unreachable: this replica now grants on its own share of the limit, starting empty",
			"quota", l.local.Name, "share", fmt.Sprintf("1/%d", n), "error", err)
	} else {
		l.c.log.Warn("Redis unreachable, and this replica joined the cluster less than a lease ago: it takes no share of the limit; limited calls fail until Redis answers",
			"quota", l.local.Name, "error", err)
	}
}

// setMode changes the mode; l.mu is held.
func (l *SharedQuota) setMode(m Mode, now time.Time) {
	l.mode, l.since = m, now
	close(l.changed)
	l.changed = make(chan struct{})
}

// shareLimit is the fallback limit: the limit divided by n, same window.
func (l *SharedQuota) shareLimit(n int) sched.Limit {
	return sched.Limit{Units: l.full.Units / float64(n), Per: l.full.Per}
}

// waitLocal waits at the local limiter on this replica's share. moved
// reports that the limiter went back to the shared state first.
func (l *SharedQuota) waitLocal(ctx context.Context, info *callinfo.Info, cost float64, front bool) (err error, moved bool) {
	l.mu.Lock()
	if l.mode != Fallback {
		l.mu.Unlock()
		return nil, true
	}
	if l.shareN == 0 {
		since := l.since
		l.mu.Unlock()
		return &connector.FetchError{Kind: connector.FetchUnavailable, Message: fmt.Sprintf(
			"BesluitBron's shared state (Redis) has been unreachable since %s, and this replica joined too recently to take a safe share of %s; try again shortly",
			since.UTC().Format(time.RFC3339), l.local.Phrase(false))}, false
	}
	lctx, cancel := context.WithCancelCause(ctx)
	lw := &localWait{cancel: cancel}
	l.locals[lw] = struct{}{}
	l.mu.Unlock()
	_, err = l.local.Wait(lctx, info, cost, front)
	l.mu.Lock()
	delete(l.locals, lw)
	l.idle.Broadcast()
	l.mu.Unlock()
	cancel(nil)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(lctx), errRejoin) {
		return nil, true
	}
	return err, false
}

// heartbeat renews this replica's lease for the service (in the shared
// state) or tries to return to the shared state (in fallback).
func (l *SharedQuota) heartbeat() {
	l.mu.Lock()
	m := l.mode
	l.mu.Unlock()
	if m == Shared {
		r, err := l.script(context.Background(), "hb", "0", "0", "0", "1")
		if err != nil {
			l.fail(err)
			return
		}
		l.c.heard(r)
		if r.Lapsed {
			l.requeueAll()
		}
		l.handle(r)
		return
	}
	if m == Fallback {
		l.rejoin()
	}
}

// requeueAll tells every shared wait that its call is no longer in Redis
// (this replica's lease had lapsed, and its calls were dropped).
func (l *SharedQuota) requeueAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, w := range l.waiters {
		close(w.requeue)
		delete(l.waiters, id)
	}
}

// rejoin hands in what is left of this replica's share and returns to the
// shared state; see the top of this file.
func (l *SharedQuota) rejoin() {
	ctx, cancel := context.WithTimeout(context.Background(), l.c.o.Timeout)
	err := l.c.rdb.Ping(ctx).Err()
	cancel()
	if err != nil {
		return // still unreachable: keep the share
	}
	now := l.c.clock.Now()
	l.mu.Lock()
	if l.mode != Fallback {
		l.mu.Unlock()
		return
	}
	n := l.shareN
	l.setMode(Rejoining, now)
	for lw := range l.locals {
		lw.cancel(errRejoin)
	}
	for len(l.locals) > 0 {
		l.idle.Wait()
	}
	l.mu.Unlock()
	// No local grant can happen now: what is left of the share is final.
	level, capUnits, per := 0.0, 0.0, l.full.Per
	if n > 0 {
		share := l.shareLimit(n)
		level, capUnits = max(0, l.local.Scheduler().TokensAt(l.c.clock.Now())), share.Units
	}
	args := []any{"1", schedlua.Float(level), schedlua.Float(capUnits), schedlua.FromSched(sched.Limit{Units: 1, Per: per}, 0).Per}
	for _, id := range l.c.lastSeen() {
		args = append(args, id)
	}
	r, err := l.script(context.Background(), "hb", args...)
	l.mu.Lock()
	if err != nil {
		l.setMode(Fallback, l.c.clock.Now())
		l.mu.Unlock()
		return
	}
	l.setMode(Shared, l.c.clock.Now())
	l.lastErr = ""
	l.mu.Unlock()
	l.c.heard(r)
	l.c.log.Info("Redis answers again: back to the shared state", "quota", l.local.Name, "handed_in_units", level)
	l.handle(r)
}

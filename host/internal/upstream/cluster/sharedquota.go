package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
	"github.com/besluitbron/besluitbron/host/internal/upstream/quota"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedlua"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Mode is where a limiter's decisions are made.
type Mode int

const (
	// Shared: in Redis, together with every other replica.
	Shared Mode = iota
	// Fallback: Redis is unreachable; this replica grants on its own
	// share of the limit (the limit divided by the replicas it last saw).
	Fallback
	// Rejoining: Redis answers again; this replica is handing in what is
	// left of its share before it returns to the shared state.
	Rejoining
)

func (m Mode) String() string {
	switch m {
	case Shared:
		return "shared"
	case Fallback:
		return "fallback"
	case Rejoining:
		return "rejoining"
	}
	return "unknown"
}

// SharedQuota keeps one quota under its limit across every replica: its
// bucket, its sessions' queues, fairness order and usage live in Redis
// under the quota's name, so the replicas share one bucket per upstream
// host (whichever connectors use it). It implements fetch.Limiter. When
// Redis is unreachable it falls back to the quota's local limiter
// ([quota.Limiter]) on a conservative share, and returns to the shared
// state when Redis is back.
type SharedQuota struct {
	c        *Cluster
	local    *quota.Limiter
	prefix   string
	full     sched.Limit    // the shared scheduler's limit: the declared one less the floor's headroom
	limit    schedlua.Limit // the shared bucket's limit, the same in µs, with the declared capacity K
	declared schedlua.Limit // the platform's declared limit in µs (K units), for the departure bucket

	mu       sync.Mutex
	mode     Mode
	since    time.Time     // mode since (local clock)
	changed  chan struct{} // closed and replaced at every mode change
	shareN   int           // fallback: replicas the limit is divided by (0: no share)
	lastErr  string
	waiters  map[string]*waiter
	locals   map[*localWait]struct{}
	idle     *sync.Cond // signalled when a local wait ends
	timer    sched.Timer
	timerAt  int64 // µs, Redis's clock
	timerGen uint64
	obsBusy  bool
	obsNext  func()
	falls    uint64 // times fallen back

	sharedHeadroom float64 // the departure bucket's last headroom

	// onGrant, when set (tests), sees every shared grant of this replica.
	onGrant func(g schedlua.Grant, session string, cost float64)
}

type waiter struct {
	granted chan schedlua.Grant // buffered 1
	notify  chan struct{}       // buffered 1: pos or eta changed noticeably
	requeue chan struct{}       // closed: the call was dropped from Redis; queue again
	watch   bool
	pos     int
	eta     int64
	sentPos int
	sentEta int64
}

type localWait struct{ cancel context.CancelCauseFunc }

// errRejoin cancels local waits when the limiter returns to the shared
// state; they queue again in Redis.
var errRejoin = errors.New("cluster: back to the shared state")

// SharedQuota returns the shared form of local's quota. Call it once per
// quota, before [Cluster.Start].
func (c *Cluster) SharedQuota(local *quota.Limiter) *SharedQuota {
	st := local.Scheduler().Stats()
	// The shared scheduler keeps the floor's headroom: the departure
	// bucket keeps the measured one (a limit that changed with each
	// replica's measurement would be rewritten in Redis at every run).
	full := sched.Headroom(local.Limit, sched.HeadroomFloor(local.Limit))
	lim := schedlua.FromSched(full, st.PlatformUnits) // K, the declared capacity: weights and oversized charges, as in sched
	l := &SharedQuota{c: c, local: local, prefix: quotaPrefix(local.Name), full: full, limit: lim, declared: schedlua.FromSched(local.Limit, local.Limit.Units),
		changed: make(chan struct{}), waiters: map[string]*waiter{}, locals: map[*localWait]struct{}{}, since: c.clock.Now()}
	l.idle = sync.NewCond(&l.mu)
	c.mu.Lock()
	c.limiters[l.prefix] = l
	c.order = append(c.order, l)
	c.mu.Unlock()
	if c.o.Metrics != nil {
		c.o.Metrics.add(l)
	}
	return l
}

// Local is the service's own limiter, used while Redis is unreachable.
func (l *SharedQuota) Local() *quota.Limiter { return l.local }

func (l *SharedQuota) script(ctx context.Context, op string, args ...any) (schedlua.Reply, error) {
	ctx, cancel := l.c.scriptCtx(ctx)
	defer cancel()
	sent := l.c.clock.Now()
	r, err := run(ctx, l.c.rdb, l.prefix, l.c.args(l.limit), op, args...)
	if err == nil {
		l.c.ok(r, sent)
		if m := l.c.o.Metrics; m != nil {
			m.roundTrip.Observe(l.c.clock.Now().Sub(sent).Seconds())
		}
	}
	return r, err
}

func newCallID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Wait implements fetch.Limiter.
func (l *SharedQuota) Wait(ctx context.Context, info *callinfo.Info, cost float64, front bool) (time.Duration, error) {
	start := l.c.clock.Now()
	for {
		if err := ctx.Err(); err != nil {
			return l.c.clock.Now().Sub(start), l.local.Ended(err)
		}
		l.mu.Lock()
		m, changed := l.mode, l.changed
		l.mu.Unlock()
		var err error
		moved := false
		switch m {
		case Shared:
			err, moved = l.waitShared(ctx, info, cost, front, changed)
		case Fallback:
			err, moved = l.waitLocal(ctx, info, cost, front)
		case Rejoining:
			select {
			case <-changed:
			case <-ctx.Done():
			}
			continue
		}
		if !moved {
			return l.c.clock.Now().Sub(start), err
		}
	}
}

// waitShared queues the call in Redis and waits for its grant. moved
// reports that the limiter left the shared state (or the call was dropped
// from Redis) before the grant: the caller queues again.
func (l *SharedQuota) waitShared(ctx context.Context, info *callinfo.Info, cost float64, front bool, changed <-chan struct{}) (err error, moved bool) {
	session := info.ChargedTo()
	if cost <= 0 || cost != cost || cost > 1e9 {
		return &connector.FetchError{Kind: connector.FetchRefused, Message: fmt.Sprintf("cost %v out of range", cost)}, false
	}
	dl, hasDL := ctx.Deadline()
	id := newCallID()
	w := &waiter{granted: make(chan schedlua.Grant, 1), notify: make(chan struct{}, 1), requeue: make(chan struct{}), watch: hasDL || info.OnQueued != nil}
	l.mu.Lock()
	l.waiters[id] = w
	l.mu.Unlock()
	r, err := l.script(ctx, "enq", session, id, schedlua.Float(cost), l.limit.Charge(cost, true), l.limit.Charge(cost, false), schedlua.Flag(front), schedlua.Flag(w.watch))
	if err != nil {
		l.drop(id)
		l.fail(err)
		return nil, true
	}
	l.handle(r)
	for {
		select {
		case g := <-w.granted:
			if l.onGrant != nil {
				l.onGrant(g, session, cost)
			}
			return nil, false
		case <-w.notify:
			l.mu.Lock()
			pos, eta := w.pos, w.eta
			l.mu.Unlock()
			now := l.c.clock.Now()
			etaLocal := l.c.toLocal(eta)
			if hasDL && etaLocal.After(dl) {
				select {
				case <-w.granted:
					return nil, false
				default:
				}
				l.cancel(ctx, id, session, cost)
				return l.local.NoRoom(etaLocal.Sub(now)), false
			}
			if info.OnQueued != nil {
				info.OnQueued(pos, max(0, etaLocal.Sub(now)))
			}
		case <-w.requeue:
			return nil, true
		case <-changed:
			select {
			case <-w.granted:
				return nil, false
			default:
			}
			l.drop(id)
			return nil, true
		case <-ctx.Done():
			l.cancel(ctx, id, session, cost)
			return l.local.Ended(ctx.Err()), false
		}
	}
}

// drop forgets a waiter.
func (l *SharedQuota) drop(id string) {
	l.mu.Lock()
	delete(l.waiters, id)
	l.mu.Unlock()
}

// cancel withdraws a call from Redis: it leaves its queue, or, if it was
// granted meanwhile, its grant is refunded (it was never used).
func (l *SharedQuota) cancel(ctx context.Context, id, session string, cost float64) {
	l.drop(id)
	r, err := l.script(ctx, "cancel", session, id, l.limit.Charge(cost, false), schedlua.Float(cost))
	if err != nil {
		l.fail(err)
		return
	}
	l.handle(r)
}

// handle applies a script's reply: grants and projections to the
// waiters, and the timer for the next grant.
func (l *SharedQuota) handle(r schedlua.Reply) {
	l.deliver(r.Grants, r.Proj)
	if r.Next > 0 {
		l.arm(r.Next, r.Now)
	}
}

// deliver hands grants and projections to the waiting calls.
func (l *SharedQuota) deliver(gs []schedlua.Grant, ps []schedlua.Projection) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, g := range gs {
		if w := l.waiters[g.ID]; w != nil {
			delete(l.waiters, g.ID)
			w.granted <- g
		}
	}
	for _, p := range ps {
		w := l.waiters[p.ID]
		if w == nil {
			continue
		}
		w.pos, w.eta = p.Pos, p.ETA
		moved := w.eta - w.sentEta
		if moved < 0 {
			moved = -moved
		}
		left := max(0, p.ETA-schedlua.US(l.c.clock.Now()))
		if p.Pos != w.sentPos || moved > max(time.Second.Microseconds(), left/10) {
			w.sentPos, w.sentEta = p.Pos, p.ETA
			select {
			case w.notify <- struct{}{}:
			default:
			}
		}
	}
}

// arm makes sure a script runs at next (Redis's clock): whoever ran the
// script that computed next is responsible for the grant due then, even
// when none of the waiting calls are its own.
func (l *SharedQuota) arm(next, now int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mode != Shared || (l.timer != nil && l.timerAt <= next) {
		return
	}
	if l.timer != nil {
		l.timer.Stop()
	}
	d := time.Duration(next-now) * time.Microsecond
	l.timerGen++
	gen := l.timerGen
	l.timerAt = next
	l.timer = l.c.clock.AfterFunc(max(0, d), func() { l.fire(gen) })
}

func (l *SharedQuota) fire(gen uint64) {
	l.mu.Lock()
	if gen != l.timerGen || l.mode != Shared {
		l.mu.Unlock()
		return
	}
	l.timer, l.timerAt = nil, 0
	var watched []any
	for id, w := range l.waiters {
		if w.watch {
			watched = append(watched, id)
		}
	}
	l.mu.Unlock()
	r, err := l.script(context.Background(), "adv", watched...)
	if err != nil {
		l.fail(err)
		return
	}
	l.handle(r)
}

// Depart implements fetch.Limiter: the request is about to be written.
// The shared departure bucket in Redis (schedlua.DepartScript) counts it
// and says when it may leave, at the declared capacity less the widest
// headroom any live replica's path needs; the replica waits until then and
// does not send a call that ended meanwhile. Outside the shared state, or
// when Redis fails, the local limiter's departure pacer decides.
func (l *SharedQuota) Depart(ctx context.Context, cost float64) (time.Time, error) {
	l.mu.Lock()
	m := l.mode
	l.mu.Unlock()
	if m != Shared {
		return l.local.Depart(ctx, cost)
	}
	if err := ctx.Err(); err != nil {
		return time.Time{}, l.local.Ended(err)
	}
	h := l.local.Headroom().Units
	sctx, cancel := l.c.scriptCtx(ctx)
	defer cancel()
	a := l.c.args(l.limit)
	v, err := departScript.Run(sctx, l.c.rdb, []string{l.prefix}, schedlua.DepartArgv(a.Now, a.Replica, l.declared, h, cost, l.c.o.Lease)...).Result()
	var d schedlua.Departure
	if err == nil {
		d, err = schedlua.ParseDepart(v)
	}
	if err != nil {
		l.fail(err)
		return l.local.Depart(ctx, cost)
	}
	l.mu.Lock()
	l.sharedHeadroom = d.Headroom
	l.mu.Unlock()
	wait := time.Duration(d.At-d.Now) * time.Microsecond
	due := l.c.clock.Now().Add(wait)
	if wait > 0 {
		done := make(chan struct{})
		t := l.c.clock.AfterFunc(wait, func() { close(done) })
		select {
		case <-done:
		case <-ctx.Done():
			t.Stop()
			return time.Time{}, l.local.Ended(ctx.Err())
		}
	}
	return due, nil
}

// SharedHeadroom is the headroom the shared departure bucket last kept:
// the widest any live replica asked for.
func (l *SharedQuota) SharedHeadroom() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sharedHeadroom
}

// Observe implements fetch.Limiter: a 429 pauses the shared bucket for
// every replica; RateLimit headers lower it. The local limiter sees the
// same answer: it measures the path (its headroom, which this replica
// brings to the shared departure bucket), counts 429s and keeps its bucket
// for a later fallback.
func (l *SharedQuota) Observe(status int, h http.Header, sent, now time.Time) {
	l.local.Observe(status, h, sent, now)
	l.mu.Lock()
	m := l.mode
	l.mu.Unlock()
	if m != Shared {
		return
	}
	if status == http.StatusTooManyRequests {
		wait := quota.RetryAfter(h.Get("Retry-After"), now)
		if wait <= 0 {
			wait = l.local.Limit.Per / time.Duration(max(1, int(l.local.Limit.Units)))
		}
		// Before the retry queues: the pause must be in force when it does.
		until := l.c.serverNow().Add(wait)
		r, err := l.script(context.Background(), "pause", schedlua.US(until))
		if err != nil {
			l.fail(err)
			return
		}
		l.handle(r)
	}
	lo, hi, ok := sched.RateLimitBounds(l.full, h.Get("RateLimit-Remaining"), h.Get("RateLimit-Reset"))
	if !ok {
		return
	}
	// One correction in flight per service; a newer one replaces a queued
	// one. The fetch path does not wait for it.
	do := func() {
		r, err := l.script(context.Background(), "observe", schedlua.Float(hi), l.limit.Dur(max(0, lo), false))
		if err != nil {
			l.fail(err)
			return
		}
		l.handle(r)
	}
	l.mu.Lock()
	if l.obsBusy {
		l.obsNext = do
		l.mu.Unlock()
		return
	}
	l.obsBusy = true
	l.mu.Unlock()
	go func() {
		for do != nil {
			do()
			l.mu.Lock()
			do, l.obsNext = l.obsNext, nil
			if do == nil {
				l.obsBusy = false
			}
			l.mu.Unlock()
		}
	}()
}

var _ fetch.Limiter = (*SharedQuota)(nil)

package quota

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
	"github.com/besluitbron/besluitbron/internal/tracing"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// User is one connector's service whose requests count against a quota.
type User struct {
	Platform string // connector id
	Title    string // the platform's name
	Service  string
}

// Limiter keeps one quota under its limit: the limit of an upstream host
// (or of a named quota), shared by every connector service that names it.
// Its Users' requests wait in one scheduler, so together they never exceed
// the limit, and a 429 any of them receives pauses them all.
type Limiter struct {
	// Name is the quota's name: the upstream host ("zoek.officielebekendmakingen.nl"),
	// a named quota ("berthub.eu/search"), or "<connector>/<service>" for a
	// service that names neither.
	Name string
	// Users are the connector services that use the quota, ordered by
	// connector and service.
	Users []User
	Limit sched.Limit
	// Source says where Limit comes from: an admin's key
	// ("connectors.<id>.limits.<service>") or a manifest ("the manifest of
	// <id>, service <service>"); empty for a limiter made with [New].
	Source string
	s      *sched.Scheduler // the fair scheduler: who goes next, charged at the grant
	dep    *sched.Scheduler // the departure pacer: one uncounted session, charged when a request leaves
	uses   []*Use
	via    fetch.Limiter // what the Uses pass calls to: the Limiter itself, or its shared form (Via)
	shared bool          // Via was called: the shared form owns s's limit (its fallback share)
	path   *path         // the measured path, which sizes the headroom
	log    *slog.Logger
	now    func() time.Time                      // the schedulers' clock
	pause  func(context.Context) (resume func()) // stops a call's deadline (PauseDeadlines)

	mu      sync.Mutex
	applied float64 // the headroom the buckets hold now
}

// New returns the limiter of one service's own quota, named
// "<platform>/<service>", with limit l. The error names the config key
// when l is invalid.
func New(platform, title, service string, l sched.Limit, opts *sched.Options) (*Limiter, error) {
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", configKey(platform, service), err)
	}
	return newLimiter(platform+"/"+service, []User{{Platform: platform, Title: title, Service: service}}, l, "", opts, nil), nil
}

func configKey(platform, service string) string {
	return "connectors." + platform + ".limits." + service
}

// newLimiter builds a quota's limiter on a valid limit.
//
// Two buckets hold the quota's limit, both at the same local limit: the
// fair scheduler's, charged when it grants a call (it decides who goes
// next and in what order), and the departure pacer's, charged when the
// request is about to be written to the connection ([Limiter.Depart]).
// The platform's bucket sees a request when it arrives, and a token
// bucket's grants delayed by a variable delay in [dmin, dmax] conform
// only to capacity + rate × (dmax − dmin): time spent between the grant
// and the write (the instance, the runtime, a busy core) would compress
// arrivals. Counting at departure leaves only the path from the socket to
// the platform, whose spread the limiter measures ([Limiter.Observe]) and
// keeps as headroom below the declared capacity: ceil(rate × spread),
// never less than the floor [sched.HeadroomFloor], min(1, capacity/10),
// at most [sched.HeadroomCap] of the capacity, a spread of StartSpread
// assumed before MinPathSamples answers are measured, and one more unit
// per 429 that still happens (decaying). The headroom lowers the capacity
// at the same refill rate ([sched.Headroom]): it costs burst, not
// sustained rate.
//
// The headroom is the buckets' alone. The scheduler is told the declared
// capacity, l.Units, as its sched.Options.PlatformUnits (unless opts sets
// it), so that the weights are those of the declared limit, 60/(60+used)
// at OpenBesluitvorming and not 59/(59+used), and an oversized call is
// charged the platform's whole quota of 60.
func newLimiter(name string, users []User, l sched.Limit, source string, opts *sched.Options, log *slog.Logger) *Limiter {
	var o sched.Options
	if opts != nil {
		o = *opts
	}
	if o.PlatformUnits == 0 {
		o.PlatformUnits = l.Units
	}
	if log == nil {
		log = slog.Default()
	}
	p := newPath(l)
	h := p.state(time.Time{}).Units // before the first measurements: StartSpread's
	local := sched.Headroom(l, h)
	q := &Limiter{Name: name, Users: users, Limit: l, Source: source, s: sched.New(local, &o), dep: sched.New(local, &o),
		path: p, log: log, applied: h, now: time.Now}
	if o.Clock != nil {
		q.now = o.Clock.Now
	}
	q.via = q
	for _, u := range users {
		q.uses = append(q.uses, &Use{User: u, q: q})
	}
	return q
}

// Via makes every [Use] of the quota pass its calls to f (the quota's
// shared form in Redis) instead of to l itself. Call it once, before the
// first call.
func (l *Limiter) Via(f fetch.Limiter) { l.via, l.shared = f, true }

// PauseDeadlines makes the waits of calls marked QueueOffClock (MCP
// tasks) stop their call's deadline while they wait: pause stops the
// clock of the deadline in the context it is given and returns the
// function that starts it again (the runtimes' clientcall.Pause, which
// the platforms hand in: the fetch path knows nothing of the runtimes).
// Call it before the first call.
func (l *Limiter) PauseDeadlines(pause func(context.Context) (resume func())) { l.pause = pause }

// Refill is the time the quota's limit takes to refill one unit.
func (l *Limiter) Refill() time.Duration {
	return time.Duration(float64(l.Limit.Per) / l.Limit.Units)
}

// Behind estimates the place and wait at this quota of a call that will
// arrive behind every call waiting here and more besides
// ([sched.Scheduler.BehindAt]): the status of an MCP task still waiting
// for an instance of its connector says it. ok is false for a quota
// shared through the cluster: its queue is in Redis, not in the local
// scheduler.
func (l *Limiter) Behind(more int) (place int, wait time.Duration, ok bool) {
	if l.via != nil && l.via != fetch.Limiter(l) {
		return 0, 0, false // Via gave the calls to the cluster's form
	}
	place, wait = l.s.BehindAt(l.now(), more)
	return place, wait, true
}

// Use returns what platform's fetch gate holds for service: the quota's
// limiter, counting that service's own calls for the metrics. It panics
// when the service does not use the quota (a programmer error).
func (l *Limiter) Use(platform, service string) *Use {
	for _, u := range l.uses {
		if u.Platform == platform && u.Service == service {
			return u
		}
	}
	panic("quota: " + platform + "/" + service + " does not use quota " + l.Name)
}

// Shared reports whether connectors other than one use the quota.
func (l *Limiter) Shared() bool { return len(l.Titles()) > 1 }

// Titles are the names of the platforms that use the quota, without
// repeats, in the Users' order.
func (l *Limiter) Titles() []string {
	var out []string
	for _, u := range l.Users {
		if !slices.Contains(out, u.Title) {
			out = append(out, u.Title)
		}
	}
	return out
}

// Owner is what messages name the quota by: the platform's name when one
// connector uses it ("OpenBesluitvorming"), else the quota's name
// ("zoek.officielebekendmakingen.nl").
func (l *Limiter) Owner() string {
	if ts := l.Titles(); len(ts) == 1 {
		return ts[0]
	}
	return l.Name
}

// Phrase names the limit for people, with its size when withSize:
// "OpenBesluitvorming's limit (60 units per 1m0s)", or for a shared quota
// "zoek.officielebekendmakingen.nl's limit (10 units per 30s; shared by
// Officiële Bekendmakingen and Tweede Kamer)".
func (l *Limiter) Phrase(withSize bool) string {
	var in []string
	if withSize {
		in = append(in, fmt.Sprintf("%g units per %s", l.Limit.Units, l.Limit.Per))
	}
	if ts := l.Titles(); len(ts) > 1 {
		in = append(in, "shared by "+And(ts))
	}
	s := l.Owner() + "'s limit"
	if len(in) > 0 {
		s += " (" + strings.Join(in, "; ") + ")"
	}
	return s
}

// And joins words as English lists them: "a", "a and b", "a, b and c".
func And(ws []string) string {
	switch len(ws) {
	case 0:
		return ""
	case 1:
		return ws[0]
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

// Headroom returns the quota's headroom now and why (status pages,
// /metrics).
func (l *Limiter) Headroom() HeadroomState { return l.HeadroomAt(l.now()) }

// HeadroomAt is Headroom at t.
func (l *Limiter) HeadroomAt(t time.Time) HeadroomState { return l.path.state(t) }

// adjust brings both buckets to the headroom the path asks for at t. The
// shared form owns the fair scheduler's limit (its fallback share), so
// then only the pacer follows.
func (l *Limiter) adjust(t time.Time) {
	st := l.path.state(t)
	l.mu.Lock()
	if st.Units == l.applied {
		l.mu.Unlock()
		return
	}
	was := l.applied
	l.applied = st.Units
	local := sched.Headroom(l.Limit, st.Units)
	if !l.shared {
		l.s.SetLimitAt(t, local)
	}
	l.dep.SetLimitAt(t, local)
	l.mu.Unlock()
	l.log.Info("quota: headroom changed", "quota", l.Name, "from", FormatUnits(was), "to", st.String())
}

// Departures exposes the departure pacer (tests: a call retried after a
// 429 waits there, not in the fair queue, so that it is charged once).
func (l *Limiter) Departures() *sched.Scheduler { return l.dep }

// Scheduler exposes the underlying scheduler (status pages, tests).
func (l *Limiter) Scheduler() *sched.Scheduler { return l.s }

// WeightAt is the session's weight at the quota's fair scheduler at t
// ([sched.Scheduler.WeightAt]), so that a platform's quotas combine with
// [sched.MinWeight].
func (l *Limiter) WeightAt(t time.Time, session string) float64 { return l.s.WeightAt(t, session) }

// Wait implements fetch.Limiter.
func (l *Limiter) Wait(ctx context.Context, info *callinfo.Info, cost float64, front bool) (time.Duration, error) {
	session := info.ChargedTo()
	onQueued := info.OnQueued
	if span := tracing.Current(ctx); span.Recording() {
		// What the fair queue decides by, read only for a traced call:
		// the session's weight and the calls already waiting.
		span.SetString("besluitbron.quota", l.Name)
		span.SetFloat("besluitbron.session.weight", l.s.WeightAt(l.now(), session))
		span.SetInt("besluitbron.queue.length", int64(l.s.Stats().Queued))
		if onQueued != nil {
			// A client that asked for progress has the queue planned:
			// its position is known, and recorded.
			onQueued = func(position int, eta time.Duration) {
				span.SetInt("besluitbron.queue.position", int64(position))
				info.OnQueued(position, eta)
			}
		}
	}
	g, err := l.s.Wait(ctx, sched.Request{Session: session, Cost: cost, Front: front, OnQueued: onQueued})
	if err != nil {
		var re *sched.RetryError
		switch {
		case errors.As(err, &re):
			return 0, l.NoRoom(re.After)
		case ctx.Err() != nil:
			return 0, l.Ended(ctx.Err())
		}
		return 0, &connector.FetchError{Kind: connector.FetchRefused, Message: err.Error()}
	}
	return g.Queued, nil
}

// sync keeps the fair scheduler from running ahead of departures: its
// bucket holds no more than the pacer's. Without it a queue could build
// at the pacer (the two buckets refill at the same rate, so a lag, once
// made by calls slow to depart, would never drain), and a newcomer the
// scheduler grants next would wait behind calls granted before it. The
// calls granted and not yet departed are not subtracted: that would keep
// one call at a time between grant and departure on a small bucket, and
// lose the rate while it is in the instance. The scheduler's bucket is
// only ever lowered.
func (l *Limiter) sync(t time.Time) {
	l.s.LowerAt(t, l.dep.TokensAt(t))
}

// NoRoom is the error of a call the limit leaves no room for before its
// deadline, expected to wait wait.
func (l *Limiter) NoRoom(wait time.Duration) error {
	return &connector.FetchError{Kind: connector.FetchQueueTimeout, Message: fmt.Sprintf(
		"%s leaves no room before this call's deadline; expected wait %s. Try again later or make a cheaper call",
		l.Phrase(true), wait.Round(time.Second))}
}

// Ended is the error of a call whose context ended (err) while it waited.
func (l *Limiter) Ended(err error) error {
	return &connector.FetchError{Kind: connector.FetchCanceled, Message: "the call ended while waiting for " + l.Phrase(false) + ": " + err.Error()}
}

// Depart implements fetch.Limiter: the request is about to be written to
// the connection. It waits until the departure pacer holds its cost and
// returns the instant it was counted; an ended context or a deadline the
// pacer cannot meet is an error, and the request must not be sent.
func (l *Limiter) Depart(ctx context.Context, cost float64) (time.Time, error) {
	g, err := l.dep.Wait(ctx, sched.Request{Session: sched.PublicSession, Cost: cost})
	if err != nil {
		var re *sched.RetryError
		switch {
		case errors.As(err, &re):
			return time.Time{}, l.NoRoom(re.After)
		case ctx.Err() != nil:
			return time.Time{}, l.Ended(ctx.Err())
		}
		return time.Time{}, &connector.FetchError{Kind: connector.FetchRefused, Message: err.Error()}
	}
	if !l.shared {
		l.sync(g.At)
	}
	return g.At, nil
}

// Observe implements fetch.Limiter: the answer's time since its departure
// was counted (sent; zero when unknown) is a sample of the path; a 429
// pauses the quota, for every connector that uses it, until its
// Retry-After (else one unit's refill) and widens the headroom by a unit;
// RateLimit-Remaining and RateLimit-Reset lower the local buckets, read by
// sched.RateLimitBounds (through the schedulers' ObserveHeaders).
func (l *Limiter) Observe(status int, h http.Header, sent, now time.Time) {
	if !sent.IsZero() {
		l.path.sample(now.Sub(sent))
	}
	if status == http.StatusTooManyRequests {
		wait := RetryAfter(h.Get("Retry-After"), now)
		if wait <= 0 {
			wait = l.Limit.Per / time.Duration(max(1, int(l.Limit.Units)))
		}
		l.s.PauseUntil(now.Add(wait))
		l.dep.PauseUntil(now.Add(wait))
		l.path.refused(now)
		st := l.path.state(now)
		l.log.Warn("quota: the platform refused a request (429) although the local bucket had room; its headroom widens",
			"quota", l.Name, "retry_after", wait, "headroom", st.String(), "refusals", st.Got429)
	}
	l.s.ObserveHeaders(h.Get("RateLimit-Remaining"), h.Get("RateLimit-Reset"), now)
	l.dep.ObserveHeaders(h.Get("RateLimit-Remaining"), h.Get("RateLimit-Reset"), now)
	l.adjust(now)
}

// RetryAfter parses a Retry-After value: seconds or an HTTP date. It
// returns 0 when absent or unreadable.
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 && n < 86400 {
		return time.Duration(n * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) && t.Sub(now) < 24*time.Hour {
		return t.Sub(now)
	}
	return 0
}

var _ fetch.Limiter = (*Limiter)(nil)

package callinfo

import (
	"context"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Cache outcomes, as reported in _meta besluitbron/cache.
const (
	Bypass = "bypass" // no cache involved (none configured, or class "none")
	Hit    = "hit"
	Miss   = "miss"
	Stale  = "stale" // an expired entry served because the platform failed
)

// rank orders outcomes so that a call reports the most significant one:
// a stale answer beats a platform call, which beats a pure hit.
var rank = map[string]int{Hit: 1, Bypass: 2, Miss: 3, Stale: 4}

// Info is one tool call's record.
type Info struct {
	// Session is the MCP session id (or the stand-in for clients without
	// sessions). Public marks the shared, uncounted public session.
	Session string
	Public  bool
	// Label is the caller's bounded name for logs and metrics ([Label]:
	// a named client's name, "oauth", or Anonymous); "" when the layer
	// that made the record knew no caller.
	Label string
	// OnQueued, when set, is told the position and expected wait each time
	// the call waits at a platform's limit (for MCP progress notifications).
	OnQueued func(position int, eta time.Duration)
	// AtLimit, when set, is told each time a fetch of the call arrives at
	// a platform's limit (done false: the limit as people read it and the
	// time it takes to refill one unit; OnQueued then tells the call's
	// place there) and when it leaves it (done true: let through, refused
	// or ended). An MCP task's status message names the limit from it.
	AtLimit func(limit string, refill time.Duration, done bool)
	// OnInstanceWait, when set, is told when the call must wait for one
	// of its connector's instances (every one busy), with the number of
	// calls that wait for one.
	OnInstanceWait func(waiting int)
	// QueueOffClock marks a call whose waits at a platform's limit do not
	// count against its deadline (call_timeout): an MCP task, which holds
	// no connection while it waits and is bounded by the task's own life.
	// The call_timeout then bounds the call's work, not its place in the
	// queue.
	QueueOffClock bool
	// Client is the MCP client the call came from, which the client
	// features a connector was granted ask (elicitation, sampling,
	// roots); nil for a call that comes from no MCP session (the search
	// page, the Laadstatus). The MCP layer sets it when it starts a tool
	// call; the runtimes reach it through [Info.AskClient].
	Client Client

	mu       sync.Mutex
	asked    bool      // a connector asked (or tried to ask) the client: the result may not be kept
	until    time.Time // the earliest expiry of the cached answers used
	volatile bool      // some answer was not cached: the result may not be kept
	degraded bool      // some answer was stale or failed: nothing derived from this call may be kept
	classes  []string  // the cache class of each cached answer used
	undo     []func()  // forget what this call stored, if its result fails
	cache    string
	queued   time.Duration
	upstream time.Duration
	fetches  int
	units    float64
	notes    []string
}

type key struct{}

// With returns ctx carrying info.
func With(ctx context.Context, info *Info) context.Context {
	return context.WithValue(ctx, key{}, info)
}

// From returns the call's Info, or a fresh anonymous one so callers never
// need a nil check.
func From(ctx context.Context) *Info {
	if i, ok := ctx.Value(key{}).(*Info); ok {
		return i
	}
	return &Info{}
}

// Client is the MCP client of a call as the host's client features see
// it: elicitation/create, sampling/createMessage and roots/list of the
// session the call came from. An implementation answers a
// *connector.ClientError when the client did not declare the capability.
type Client = connector.Client

// AskClient returns the call's MCP client (nil when it has none) and
// records that the call's result depends on it: what a user answers, or a
// model writes, is no upstream answer, so the result is never kept (see
// [Summary.ValidUntil]). A call that only tried, and found no client, is
// not kept either: the same arguments from a client that can answer must
// reach the connector again.
func (i *Info) AskClient() Client {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.asked = true
	return i.Client
}

// AskedClient reports whether [Info.AskClient] was called.
func (i *Info) AskedClient() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.asked
}

// AddFetch records one upstream fetch: its cache outcome and the time it
// queued and spent upstream.
func (i *Info) AddFetch(outcome string, queued, upstream time.Duration) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.fetches++
	if rank[outcome] > rank[i.cache] {
		i.cache = outcome
	}
	i.queued += queued
	i.upstream += upstream
}

// AddUnits records units charged to a platform's limit for this call
// (the fetch gate, when a request is let through its quota): what the
// call cost the platform, so that a feature that paces itself (the
// watches' polls) measures its spend from the call's record.
func (i *Info) AddUnits(units float64) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.units += units
}

// Until records that an answer the call used stays valid until t; the
// call's result is valid until the earliest such t.
func (i *Info) Until(t time.Time) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.until.IsZero() || t.Before(i.until) {
		i.until = t
	}
}

// UsedClass records that the call used a cached answer of class, so that a
// kept result served later can be counted as hits of the same classes.
func (i *Info) UsedClass(class string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.classes = append(i.classes, class)
}

// OnFailure registers f to run if the call's result is an error: the cache
// forgets an answer it stored during this call, because a platform answer
// the connector could not use (a malformed 200) must not be served again.
func (i *Info) OnFailure(f func()) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.undo = append(i.undo, f)
}

// Failed runs the OnFailure functions once.
func (i *Info) Failed() {
	i.mu.Lock()
	undo := i.undo
	i.undo = nil
	i.mu.Unlock()
	for _, f := range undo {
		f()
	}
}

// Volatile records that the call used an answer that was not cached (a
// class that is never cached, a stale answer, a failure): its result must
// not be kept.
func (i *Info) Volatile() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.volatile = true
}

// Degrade records that an answer the call used was stale, or that a fetch
// failed (an error, a 5xx, a 429): what the connector built may be a
// fallback, so no text extracted during the call is kept.
func (i *Info) Degrade() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.degraded = true
}

// Degraded reports whether [Info.Degrade] was called.
func (i *Info) Degraded() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.degraded
}

// Horizon is the earliest expiry of the cached answers the call used so
// far (zero when it used none), whether or not it also used uncached ones:
// a text extracted from those answers may be kept no longer.
func (i *Info) Horizon() time.Time {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.until
}

// Note adds a line for the result (for example the age of a stale answer).
func (i *Info) Note(s string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.notes = append(i.notes, s)
}

// Summary is what the result's _meta reports.
type Summary struct {
	Cache    string
	Queued   time.Duration
	Upstream time.Duration
	Fetches  int
	// Units are the units charged to platform limits (0 for answers from
	// the cache).
	Units float64
	Notes []string
	// ValidUntil is when the earliest cached answer the call used expires;
	// zero when the call used none, used a volatile one, or asked its
	// client (its result depends on a person or a model, not only on
	// upstream answers).
	ValidUntil time.Time
	// Classes are the cache classes of the cached answers used, one per
	// answer.
	Classes []string
}

// Summary returns the totals so far. A call without fetches reports
// [Bypass].
func (i *Info) Summary() Summary {
	i.mu.Lock()
	defer i.mu.Unlock()
	c := i.cache
	if c == "" {
		c = Bypass
	}
	sum := Summary{Cache: c, Queued: i.queued, Upstream: i.upstream, Fetches: i.fetches, Units: i.units, Notes: append([]string(nil), i.notes...)}
	if !i.volatile && !i.asked && i.fetches > 0 {
		sum.ValidUntil = i.until
		sum.Classes = append([]string(nil), i.classes...)
	}
	return sum
}

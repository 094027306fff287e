package loadstatus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/watch"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// State is a platform's condition as the last check found it.
type State string

// States, from good to bad.
const (
	Unknown State = "unknown" // not checked yet
	Up      State = "up"
	Slow    State = "slow" // answered, slower than Options.SlowAfter
	Busy    State = "busy" // 429, or the platform's limit left no room in time
	Down    State = "down" // no answer, or a server error
)

// Reason is why a check ended in its state, for pages that word it in
// another language than [Status.Message].
type Reason string

// Reasons, by state: Up (Answered), Slow (AnsweredSlowly), Busy
// (Got429, NoRoom), Down (ServerError, Refused, NoAnswer), Unknown
// (NotChecked).
const (
	NotChecked     Reason = "not_checked"
	Answered       Reason = "answered"
	AnsweredSlowly Reason = "answered_slowly"
	Got429         Reason = "http_429"
	NoRoom         Reason = "no_room"
	ServerError    Reason = "server_error"
	Refused        Reason = "refused"
	NoAnswer       Reason = "no_answer"
)

// Reach is the outcome of one reachability probe.
type Reach struct {
	// Status is the platform's HTTP status.
	Status int
	// Upstream is the time the platform took to answer; Queued the time
	// the probe waited at the platform's limit first.
	Upstream, Queued time.Duration
}

// Target is one platform to check.
type Target struct {
	// ID is the connector id; Title the platform's name.
	ID, Title string
	// Reach makes one light, uncached request to the platform. An error
	// (a *connector.FetchError as the fetch gate returns) means no answer.
	Reach func(ctx context.Context) (Reach, error)
	// Freshness, when set, asks the platform how fresh its data is.
	Freshness func(ctx context.Context) (*Freshness, error)
}

// Status is one platform's Laadstatus.
type Status struct {
	Platform string `json:"platform"`
	Title    string `json:"title"`
	State    State  `json:"state"`
	// Message says in English what the last check found; Reason says it
	// as a code pages word in their own language, and Detail is the
	// underlying error's own text, if any.
	Message    string    `json:"message"`
	Reason     Reason    `json:"reason"`
	Detail     string    `json:"detail,omitempty"`
	CheckedAt  time.Time `json:"checked_at,omitzero"`
	HTTPStatus int       `json:"http_status,omitempty"`
	LatencyMS  int64     `json:"latency_ms"`
	QueuedMS   int64     `json:"queued_ms"`
	// LastUpAt is the last check the platform answered; DownSince the
	// first of the current run of failed checks.
	LastUpAt  time.Time `json:"last_up_at,omitzero"`
	DownSince time.Time `json:"down_since,omitzero"`
	Failures  int       `json:"consecutive_failures"`
	// Freshness is the last good freshness answer; FreshnessError why
	// the last freshness probe failed, if it did.
	Freshness      *Freshness `json:"freshness,omitempty"`
	FreshnessError string     `json:"freshness_error,omitempty"`
}

// Snapshot is every platform's status at one moment.
type Snapshot struct {
	GeneratedAt time.Time `json:"generated_at"`
	// IntervalSeconds is how often the job checks.
	IntervalSeconds float64  `json:"interval_seconds"`
	Platforms       []Status `json:"platforms"`
	// Quotas are the limits BesluitBron keeps, by upstream host (or named
	// quota), with the connectors that use each and their state now; then
	// the hosts reached without a limit.
	Quotas []Quota `json:"quotas,omitempty"`
	// Watches is the watches' share of each platform's limit and how
	// fresh the least fresh of them is (absent when watches are off).
	Watches *watch.Share `json:"watches,omitempty"`
}

// Quota is one limit BesluitBron keeps on its own end, or a host it
// reaches without one, with the connectors that use it.
type Quota struct {
	// Quota is its name: the upstream host
	// ("zoek.officielebekendmakingen.nl"), a named quota
	// ("berthub.eu/search"), or "<connector>/<service>" for a service that
	// names neither.
	Quota string `json:"quota"`
	// Limited: calls wait at a limit of Units per PerSeconds, the
	// strictest of its connectors' (from Source: an admin's key, or a
	// manifest). Not limited: calls are not queued.
	Limited    bool    `json:"limited"`
	Units      float64 `json:"units,omitempty"`
	PerSeconds float64 `json:"per_seconds,omitempty"`
	Source     string  `json:"source,omitempty"`
	// Shared: more than one connector uses it, so their calls count
	// together.
	Shared     bool        `json:"shared"`
	Connectors []QuotaUser `json:"connectors"`
	// Waiting is the calls waiting at the limit now, WaitingSessions the
	// sessions they belong to, Tokens the units in this process's copy of
	// the bucket (absent in Redis mode, where the shared bucket decides).
	Waiting         int64    `json:"waiting_calls"`
	WaitingSessions int      `json:"waiting_sessions,omitempty"`
	Tokens          *float64 `json:"tokens,omitempty"`
	// PausedUntil: the host answered 429, and every connector's calls to
	// it wait until then.
	PausedUntil time.Time `json:"paused_until,omitzero"`
	// Cluster is the quota's mode in Redis mode: shared, fallback or
	// rejoining.
	Cluster string `json:"cluster,omitempty"`
	// SourceAdmin says the limit is the admin's (Source is then the config
	// key); SourcePlatform and SourceService name the connector service
	// whose manifest or key decided it, so pages can word it themselves.
	SourceAdmin    bool   `json:"source_admin,omitempty"`
	SourcePlatform string `json:"source_platform,omitempty"`
	SourceService  string `json:"source_service,omitempty"`
	// LimitFrom says where the limit comes from, in the deciding service's
	// manifest's words: connector.LimitPublished (LimitWhere says where),
	// LimitMeasured, LimitPolite (BesluitBron's own choice), LimitUnknown
	// (no limit published and none observed: BesluitBron keeps none, which
	// is not the platform having none) or [LimitAdmin]. LimitNote and
	// LimitNoteNL are that manifest's sentence in English and Dutch.
	LimitFrom   string `json:"limit_from"`
	LimitWhere  string `json:"limit_where,omitempty"`
	LimitNote   string `json:"limit_note,omitempty"`
	LimitNoteNL string `json:"limit_note_nl,omitempty"`
	// Headroom is what this process's local bucket keeps below the limit
	// now and why (quota.HeadroomState), for a limited quota.
	Headroom *Headroom `json:"headroom,omitempty"`
	// History is this process's traffic at the quota over the last hour,
	// one point per minute (a limited quota, once the sampler has run).
	History *History `json:"history,omitempty"`
}

// Headroom is a quota's headroom: Units kept below the declared capacity
// because of Reason ("start", "floor", "spread", "429" or "cap"), sized
// from the path's measured SpreadSeconds, of which After429 units were
// added by 429s.
type Headroom struct {
	Units         float64 `json:"units"`
	Reason        string  `json:"reason"`
	SpreadSeconds float64 `json:"spread_seconds"`
	After429      float64 `json:"after_429,omitempty"`
}

// QuotaUser is one connector service using a quota, with its own share of
// the quota's traffic since start.
type QuotaUser struct {
	Platform string  `json:"platform"`
	Title    string  `json:"title"`
	Service  string  `json:"service"`
	Waiting  int64   `json:"waiting_calls,omitempty"`
	Calls    uint64  `json:"granted_calls,omitempty"`
	Units    float64 `json:"granted_units,omitempty"`
	Got429   uint64  `json:"upstream_429,omitempty"`
	// LimitFrom is where this service's own limit comes from (as
	// [Quota.LimitFrom]); it may differ from the quota's when another
	// service's limit is the stricter.
	LimitFrom string `json:"limit_from,omitempty"`
}

// LimitAdmin is [Quota.LimitFrom] for a limit the administrator set in
// connectors.<id>.limits.<service>, whatever the manifest says.
const LimitAdmin = "admin"

// Origin is where the quota's limit comes from: LimitFrom, or when that is
// empty (a snapshot not made by the host) the admin's when SourceAdmin,
// else what connector.Service.LimitOrigin reads for a manifest that does
// not say: polite with a limit, unknown without.
func (q Quota) Origin() string {
	switch {
	case q.LimitFrom != "":
		return q.LimitFrom
	case q.SourceAdmin:
		return LimitAdmin
	case q.Limited:
		return connector.LimitPolite
	}
	return connector.LimitUnknown
}

// Titles are the names of the platforms using the quota, without repeats.
func (q Quota) Titles() []string {
	var out []string
	for _, u := range q.Connectors {
		if !slices.Contains(out, u.Title) {
			out = append(out, u.Title)
		}
	}
	return out
}

// QuotasOf returns the quotas a platform's services use.
func (s Snapshot) QuotasOf(id string) []Quota {
	var out []Quota
	for _, q := range s.Quotas {
		if slices.ContainsFunc(q.Connectors, func(u QuotaUser) bool { return u.Platform == id }) {
			out = append(out, q)
		}
	}
	return out
}

// Platform returns the named platform's status.
func (s Snapshot) Platform(id string) (Status, bool) {
	for _, p := range s.Platforms {
		if p.Platform == id {
			return p, true
		}
	}
	return Status{}, false
}

// Options configure a Job. The zero value means defaults.
type Options struct {
	// Interval between rounds (default 5 minutes).
	Interval time.Duration
	// SlowAfter marks an answer slower than this Slow (default 5 s).
	SlowAfter time.Duration
	// Timeout bounds one platform's check, queueing included (default
	// 60 s).
	Timeout time.Duration
	// Clock drives the rounds (nil = the real clock).
	Clock  sched.Clock
	Logger *slog.Logger
	// Quotas, when set, gives the limits BesluitBron keeps, for
	// Snapshot.Quotas; the job then also keeps each limited quota's
	// recent traffic (History, sampled from [Job.StartHistory] on).
	Quotas func() []Quota
	// Watches, when set, gives the watches' share of the limits, for
	// Snapshot.Watches.
	Watches func() watch.Share
	// History configures that sampling.
	History HistoryOptions
	// Updated, when set, is called after every round and every check of
	// one platform: the besluitbron://status resource's subscribers are
	// told from here.
	Updated func()
}

// Job checks every target each Interval. The zero value is not usable;
// call [New].
type Job struct {
	o       Options
	targets []Target
	hist    *Sampler // nil without Options.Quotas

	notify atomic.Pointer[func()] // Notify's listener

	// offline says OfflineHint once, at the first check that finds a
	// platform's host name unresolvable.
	offline sync.Once

	mu     sync.Mutex
	status map[string]*Status
	timer  sched.Timer
	stop   bool
	rounds sync.WaitGroup
}

// New returns a job over targets; it checks nothing until [Job.Start] or
// [Job.CheckAll]. It panics on two targets with one ID (a programmer
// error).
func New(targets []Target, o *Options) *Job {
	j := &Job{status: map[string]*Status{}}
	if o != nil {
		j.o = *o
	}
	if j.o.Interval <= 0 {
		j.o.Interval = 5 * time.Minute
	}
	if j.o.SlowAfter <= 0 {
		j.o.SlowAfter = 5 * time.Second
	}
	if j.o.Timeout <= 0 {
		j.o.Timeout = time.Minute
	}
	if j.o.Clock == nil {
		j.o.Clock = realClock{}
	}
	if j.o.Logger == nil {
		j.o.Logger = slog.Default()
	}
	for _, t := range targets {
		if _, dup := j.status[t.ID]; dup {
			panic("loadstatus: target " + t.ID + " given twice")
		}
		if t.Reach == nil {
			panic("loadstatus: target " + t.ID + " has no Reach probe")
		}
		j.targets = append(j.targets, t)
		j.status[t.ID] = &Status{Platform: t.ID, Title: t.Title, State: Unknown, Reason: NotChecked, Message: "not checked yet"}
	}
	if j.o.Quotas != nil {
		j.hist = NewSampler(j.o.Quotas, j.o.Clock, j.o.History)
	}
	return j
}

// StartHistory samples the quotas' traffic on the job's clock until the
// returned stop is called. It is apart from [Job.Start] because it costs
// no platform anything: it runs even where the checks are switched off.
func (j *Job) StartHistory() (stop func()) {
	if j.hist == nil {
		return func() {}
	}
	return j.hist.Start()
}

type realClock struct{}

func (realClock) Now() time.Time                                  { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) sched.Timer { return time.AfterFunc(d, f) }

// Interval is the time between rounds.
func (j *Job) Interval() time.Duration { return j.o.Interval }

// Start runs a round at once and then one every Interval, until the
// returned stop is called; stop waits for a running round to end. ctx
// bounds the rounds' calls (a cancelled ctx stops the checks, not the
// schedule).
func (j *Job) Start(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var tick func()
	tick = func() {
		j.mu.Lock()
		if j.stop {
			j.mu.Unlock()
			return
		}
		j.rounds.Add(1)
		j.mu.Unlock()
		defer j.rounds.Done()
		j.CheckAll(ctx)
		j.mu.Lock()
		if !j.stop {
			j.timer = j.o.Clock.AfterFunc(j.o.Interval, tick)
		}
		j.mu.Unlock()
	}
	j.mu.Lock()
	j.stop = false
	j.timer = j.o.Clock.AfterFunc(0, tick)
	j.mu.Unlock()
	return func() {
		j.mu.Lock()
		j.stop = true
		if j.timer != nil {
			j.timer.Stop()
		}
		j.mu.Unlock()
		cancel()
		j.rounds.Wait()
	}
}

// CheckAll checks every target in parallel and returns when all are done.
func (j *Job) CheckAll(ctx context.Context) {
	var wg sync.WaitGroup
	for _, t := range j.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j.check(ctx, t)
		}()
	}
	wg.Wait()
	j.updated()
}

func (j *Job) updated() {
	if j.o.Updated != nil {
		j.o.Updated()
	}
	if f := j.notify.Load(); f != nil {
		(*f)()
	}
}

// Notify sets f to be called, as Options.Updated is, after every round and
// every check of one platform. The MCP edge subscribes with it once it
// exists (it is built after the job, which its status tool answers from),
// so that nothing binds to it before.
func (j *Job) Notify(f func()) { j.notify.Store(&f) }

// Check checks one target now. The error names an unknown id.
func (j *Job) Check(ctx context.Context, id string) error {
	for _, t := range j.targets {
		if t.ID == id {
			j.check(ctx, t)
			j.updated()
			return nil
		}
	}
	return fmt.Errorf("loadstatus: no platform %q", id)
}

func (j *Job) check(parent context.Context, t Target) {
	ctx, cancel := context.WithTimeout(parent, j.o.Timeout)
	defer cancel()
	r, err := safeReach(ctx, t)
	if parent.Err() != nil {
		return // stopping: a cancelled probe says nothing about the platform
	}
	now := j.o.Clock.Now()
	state, reason, msg, detail := j.classify(t, r, err)
	var fresh *Freshness
	var freshErr error
	if t.Freshness != nil && (state == Up || state == Slow) {
		fresh, freshErr = safeFreshness(ctx, t)
		if parent.Err() != nil {
			return
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	s := j.status[t.ID]
	s.State, s.Reason, s.Message, s.Detail, s.CheckedAt = state, reason, msg, detail, now
	s.HTTPStatus, s.LatencyMS, s.QueuedMS = r.Status, r.Upstream.Milliseconds(), r.Queued.Milliseconds()
	if state == Down {
		if s.Failures == 0 {
			s.DownSince = now
		}
		s.Failures++
	} else {
		s.Failures, s.DownSince = 0, time.Time{}
		if state != Busy {
			s.LastUpAt = now
		}
	}
	switch {
	case fresh != nil:
		s.Freshness, s.FreshnessError = fresh, ""
	case freshErr != nil:
		s.FreshnessError = freshErr.Error()
	}
	if state != Up {
		j.o.Logger.Warn("load status", "platform", t.ID, "state", string(state), "message", msg)
		if state == Down && unresolvable(detail) {
			j.offline.Do(func() { j.o.Logger.Warn(OfflineHint) })
		}
	} else {
		j.o.Logger.Debug("load status", "platform", t.ID, "state", string(state), "latency_ms", s.LatencyMS)
	}
}

// OfflineHint is logged once when a check finds a platform's host name
// unresolvable: on a machine without a network, `make run` logs a warning
// per platform, seven alike, and a newcomer does not know that the
// repository serves the same tools offline.
const OfflineHint = "a platform's host name does not resolve: no network? try `make demo` (the platform simulator: every connector served from recorded answers, offline)"

// unresolvable reports whether an error's words are a failed DNS lookup,
// as Go's resolver words it (the error has crossed the connector's
// boundary as text).
func unresolvable(detail string) bool {
	return strings.Contains(detail, "no such host") || strings.Contains(detail, "server misbehaving")
}

func safeReach(ctx context.Context, t Target) (r Reach, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("probe panicked: %v", p)
		}
	}()
	return t.Reach(ctx)
}

func safeFreshness(ctx context.Context, t Target) (f *Freshness, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("freshness probe panicked: %v", p)
		}
	}()
	return t.Freshness(ctx)
}

// classify turns a probe's outcome into a state, its reason, an English
// sentence and the error's own words.
func (j *Job) classify(t Target, r Reach, err error) (State, Reason, string, string) {
	if err != nil {
		var fe *connector.FetchError
		if errors.As(err, &fe) {
			switch fe.Kind {
			case connector.FetchQueueTimeout:
				return Busy, NoRoom, fmt.Sprintf("%s is busy: its request limit left no room for a check within %s (%s)", t.Title, j.o.Timeout, fe.Message), fe.Message
			case connector.FetchRefused:
				return Down, Refused, fmt.Sprintf("%s cannot be reached under this installation's policy: %s", t.Title, fe.Message), fe.Message
			}
			return Down, NoAnswer, fmt.Sprintf("%s does not answer: %s", t.Title, fe.Message), fe.Message
		}
		return Down, NoAnswer, fmt.Sprintf("%s does not answer: %v", t.Title, err), err.Error()
	}
	switch {
	case r.Status == http.StatusTooManyRequests:
		return Busy, Got429, fmt.Sprintf("%s answered 429 Too Many Requests: it is busy", t.Title), ""
	case r.Status >= 500:
		return Down, ServerError, fmt.Sprintf("%s answered HTTP %d (a server error)", t.Title, r.Status), ""
	case r.Upstream > j.o.SlowAfter:
		return Slow, AnsweredSlowly, fmt.Sprintf("%s answered, slowly: %.1f s", t.Title, r.Upstream.Seconds()), ""
	}
	return Up, Answered, fmt.Sprintf("%s answered in %d ms", t.Title, r.Upstream.Milliseconds()), ""
}

// Snapshot returns every platform's status, in the targets' order, and
// the quotas as they are now.
func (j *Job) Snapshot() Snapshot {
	var quotas []Quota
	if j.o.Quotas != nil {
		// A copy: the histories must not land in the caller's slice.
		quotas = slices.Clone(j.o.Quotas())
		j.hist.attach(quotas)
		for i := range quotas {
			// Every quota says where its limit comes from, even one
			// given without (see Quota.Origin).
			quotas[i].LimitFrom = quotas[i].Origin()
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	out := Snapshot{GeneratedAt: j.o.Clock.Now(), IntervalSeconds: j.o.Interval.Seconds(), Quotas: quotas}
	if j.o.Watches != nil {
		ws := j.o.Watches()
		out.Watches = &ws
	}
	for _, t := range j.targets {
		out.Platforms = append(out.Platforms, j.status[t.ID].clone())
	}
	return out
}

// Status returns one platform's status.
func (j *Job) Status(id string) (Status, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	s, ok := j.status[id]
	if !ok {
		return Status{}, false
	}
	return s.clone(), true
}

// clone copies s deeply enough that callers cannot reach the job's state.
func (s *Status) clone() Status {
	c := *s
	if s.Freshness != nil {
		c.Freshness = s.Freshness.clone()
	}
	return c
}

// sortSources orders sources worst state first, then by label.
func sortSources(ss []Source) {
	sort.SliceStable(ss, func(a, b int) bool {
		if ra, rb := sourceRank[ss[a].State], sourceRank[ss[b].State]; ra != rb {
			return ra < rb
		}
		return ss[a].Label < ss[b].Label
	})
}

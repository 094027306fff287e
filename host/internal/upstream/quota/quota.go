package quota

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Claim is what one connector's service says about its quota: which quota
// it is, and the limit it declares in its manifest or the admin set for
// it. [Build] turns every claim on one quota into one [Limiter].
type Claim struct {
	User
	// Quota is the quota's name: connector.Service.QuotaName, or
	// "<connector>/<service>" when the service names none.
	Quota string
	// Limit is the service's effective limit; Units 0: none declared.
	Limit sched.Limit
	// Admin reports that Limit is the admin's connectors.<id>.limits.<service>,
	// not the manifest's.
	Admin bool
}

// Source names where the claim's limit comes from, for logs and the status
// pages: "connectors.<id>.limits.<service>" or "the manifest of <id>
// (service <service>)".
func (c Claim) Source() string {
	if c.Admin {
		return configKey(c.Platform, c.Service)
	}
	return "the manifest of " + c.Platform + " (service " + c.Service + ")"
}

// Stricter reports whether limit a lets less through than b: a lower rate,
// or at the same rate a smaller capacity.
func Stricter(a, b sched.Limit) bool {
	// a.Units/a.Per < b.Units/b.Per, without dividing.
	ra, rb := a.Units*float64(b.Per), b.Units*float64(a.Per)
	if ra != rb {
		return ra < rb
	}
	return a.Units < b.Units
}

// Build makes one limiter per quota that has a limit, from the claims of
// every loaded connector: claims naming one quota share one limiter, its
// Users all of them. When their limits differ, the strictest applies (the
// lowest rate, then the lowest capacity; a service that declares no limit
// waits at the others'); that is logged once, naming every source. A
// quota no claim limits gets no limiter: its calls are not queued. The
// limiters come ordered by name; opts are every scheduler's (the clock).
// An invalid limit fails the build with an error naming its config key.
func Build(claims []Claim, opts *sched.Options, log *slog.Logger) ([]*Limiter, error) {
	if log == nil {
		log = slog.Default()
	}
	byQuota := map[string][]Claim{}
	for _, c := range claims {
		byQuota[c.Quota] = append(byQuota[c.Quota], c)
	}
	names := make([]string, 0, len(byQuota))
	for q := range byQuota {
		names = append(names, q)
	}
	slices.Sort(names)
	var out []*Limiter
	var errs []error
	for _, name := range names {
		cs := byQuota[name]
		slices.SortFunc(cs, func(a, b Claim) int {
			return cmp.Or(cmp.Compare(a.Platform, b.Platform), cmp.Compare(a.Service, b.Service))
		})
		var limited []Claim
		for _, c := range cs {
			if c.Limit.Units <= 0 {
				continue
			}
			if err := c.Limit.Validate(); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", configKey(c.Platform, c.Service), err))
				continue
			}
			limited = append(limited, c)
		}
		if len(limited) == 0 {
			continue
		}
		win := limited[0]
		for _, c := range limited[1:] {
			if Stricter(c.Limit, win.Limit) {
				win = c
			}
		}
		var over []string
		for _, c := range cs {
			switch {
			case c.Limit.Units <= 0:
				over = append(over, "no limit ("+c.Source()+")")
			case c.Limit != win.Limit:
				over = append(over, FormatLimit(c.Limit)+" ("+c.Source()+")")
			}
		}
		if len(over) > 0 {
			log.Warn("quota: its connectors' limits differ; the strictest applies to them all",
				"quota", name, "limit", FormatLimit(win.Limit), "from", win.Source(), "over", strings.Join(over, "; "))
		}
		users := make([]User, len(cs))
		for i, c := range cs {
			users[i] = c.User
		}
		out = append(out, newLimiter(name, users, win.Limit, win.Source(), opts, log))
	}
	return out, errors.Join(errs...)
}

// FormatLimit words a limit as the logs and pages show it: "10 per 30s".
func FormatLimit(l sched.Limit) string {
	return fmt.Sprintf("%g per %s", l.Units, l.Per)
}

// Use is one connector service's way to its quota, the fetch.Limiter its
// gate holds: it passes every call to the quota's limiter (or to the
// quota's shared form in Redis, see [Limiter.Via]) and counts the
// service's own calls, so that the metrics of a shared quota say which
// connector spent it.
type Use struct {
	User
	q *Limiter

	waiting  atomic.Int64
	calls    atomic.Uint64
	rejected atomic.Uint64
	canceled atomic.Uint64
	got429   atomic.Uint64
	mu       sync.Mutex
	units    float64
	wait     time.Duration
}

// Quota is the limiter the service's calls wait at.
func (u *Use) Quota() *Limiter { return u.q }

// Wait implements fetch.Limiter.
func (u *Use) Wait(ctx context.Context, info *callinfo.Info, cost float64, front bool) (time.Duration, error) {
	if info.AtLimit != nil {
		limit := u.q.Owner() + "'s limit"
		info.AtLimit(limit, u.q.Refill(), false)
		defer info.AtLimit(limit, u.q.Refill(), true)
	}
	if info.QueueOffClock && u.q.pause != nil {
		// A task's wait in the queue stops its call's deadline: the
		// scheduler then sees no deadline the grant could miss, and the
		// call resumes with the time it had left.
		resume := u.q.pause(ctx)
		defer resume()
	}
	u.waiting.Add(1)
	q, err := u.q.via.Wait(ctx, info, cost, front)
	u.waiting.Add(-1)
	if err != nil {
		var fe *connector.FetchError
		if errors.As(err, &fe) {
			switch fe.Kind {
			case connector.FetchQueueTimeout:
				u.rejected.Add(1)
			case connector.FetchCanceled:
				u.canceled.Add(1)
			}
		}
		return q, err
	}
	u.calls.Add(1)
	u.mu.Lock()
	u.units += cost
	u.wait += q
	u.mu.Unlock()
	return q, nil
}

// Depart implements fetch.Limiter.
func (u *Use) Depart(ctx context.Context, cost float64) (time.Time, error) {
	return u.q.via.Depart(ctx, cost)
}

// Observe implements fetch.Limiter.
func (u *Use) Observe(status int, h http.Header, sent, now time.Time) {
	if status == http.StatusTooManyRequests {
		u.got429.Add(1)
	}
	u.q.via.Observe(status, h, sent, now)
}

// UseStats are one service's calls at its quota since start.
type UseStats struct {
	Waiting  int64 // calls waiting now
	Calls    uint64
	Units    float64
	Wait     time.Duration // sum of the granted calls' waits
	Rejected uint64        // refused: no room before their deadline
	Canceled uint64        // ended while waiting
	Got429   uint64        // 429 answers received
}

// Stats returns the service's counters now.
func (u *Use) Stats() UseStats {
	u.mu.Lock()
	units, wait := u.units, u.wait
	u.mu.Unlock()
	return UseStats{Waiting: max(0, u.waiting.Load()), Calls: u.calls.Load(), Units: units, Wait: wait,
		Rejected: u.rejected.Load(), Canceled: u.canceled.Load(), Got429: u.got429.Load()}
}

// Uses are the quota's Uses, in the Users' order.
func (l *Limiter) Uses() []*Use { return slices.Clone(l.uses) }

var _ fetch.Limiter = (*Use)(nil)

// Claims are a connector's claims on its quotas, one per service of its
// manifest m, loaded as connector id. limit gives a service's effective
// limit and whether it is the admin's (config.Connector.Limit).
func Claims(id string, m connector.Manifest, limit func(connector.Service) (l sched.Limit, admin bool)) []Claim {
	var out []Claim
	for _, s := range m.Services {
		q := s.QuotaName()
		if q == "" {
			q = id + "/" + s.Name
		}
		l, admin := limit(s)
		out = append(out, Claim{User: User{Platform: id, Title: m.Title, Service: s.Name}, Quota: q, Limit: l, Admin: admin})
	}
	return out
}

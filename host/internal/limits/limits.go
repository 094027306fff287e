package limits

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/host/internal/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/fetch"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Limiter keeps one service of one platform under its limit.
type Limiter struct {
	Platform string // connector id
	Title    string // platform name, for messages
	Service  string
	Limit    sched.Limit
	s        *sched.Scheduler
	got429   prometheus.Counter
}

// New returns a limiter for a service with limit l. The error names the
// config key when l is invalid.
//
// The local bucket keeps a headroom of one unit (a tenth of the capacity
// for small limits) at the same refill rate. Why: the platform's bucket
// sees a request when it arrives, not when it was granted. After an idle
// spell both buckets are full, and if the first requests of a burst travel
// slower than the next one, the platform's full bucket wastes refill the
// local one counted on. One unit of headroom absorbs network jitter of up
// to one unit's refill time (1 s at OpenBesluitvorming) and costs nothing
// of the sustained rate.
//
// The headroom is the bucket's alone. The scheduler is told the declared
// capacity, l.Units, as its sched.Options.PlatformUnits (unless opts sets
// it), so that the weights are those of the declared limit, 60/(60+used)
// at OpenBesluitvorming and not 59/(59+used), and an oversized call is
// charged the platform's whole quota of 60.
func New(platform, title, service string, l sched.Limit, opts *sched.Options) (*Limiter, error) {
	if err := l.Validate(); err != nil {
		return nil, fmt.Errorf("connectors.%s.limits.%s: %w", platform, service, err)
	}
	var o sched.Options
	if opts != nil {
		o = *opts
	}
	if o.PlatformUnits == 0 {
		o.PlatformUnits = l.Units
	}
	return &Limiter{Platform: platform, Title: title, Service: service, Limit: l, s: sched.New(Headroom(l), &o),
		got429: received429.WithLabelValues(platform, service)}, nil
}

// Headroom returns the local limit for a platform limit l: capacity
// reduced by min(1, l.Units/10), the refill rate unchanged. When the
// shorter window is not a whole number of nanoseconds it is rounded up, so
// the local bucket never refills faster than the platform's.
func Headroom(l sched.Limit) sched.Limit {
	h := min(1, l.Units/10)
	return sched.Limit{Units: l.Units - h, Per: time.Duration(math.Ceil(float64(l.Per) * (l.Units - h) / l.Units))}
}

// Scheduler exposes the underlying scheduler (status pages, tests).
func (l *Limiter) Scheduler() *sched.Scheduler { return l.s }

// Wait implements fetch.Limiter.
func (l *Limiter) Wait(ctx context.Context, info *callinfo.Info, cost float64, front bool) (time.Duration, error) {
	session := info.Session
	if info.Public {
		session = sched.PublicSession
	}
	if session == "" {
		session = "anonymous"
	}
	g, err := l.s.Wait(ctx, sched.Request{Session: session, Cost: cost, Front: front, OnQueued: info.OnQueued})
	if err != nil {
		var re *sched.RetryError
		switch {
		case errors.As(err, &re):
			return 0, &connector.FetchError{Kind: connector.FetchQueueTimeout, Message: fmt.Sprintf(
				"%s's limit (%g units per %s) leaves no room before this call's deadline; expected wait %s. Try again later or make a cheaper call",
				l.Title, l.Limit.Units, l.Limit.Per, re.After.Round(time.Second))}
		case ctx.Err() != nil:
			return 0, &connector.FetchError{Kind: connector.FetchCanceled, Message: "the call ended while waiting for " + l.Title + "'s limit: " + ctx.Err().Error()}
		}
		return 0, &connector.FetchError{Kind: connector.FetchRefused, Message: err.Error()}
	}
	return g.Queued, nil
}

// Observe implements fetch.Limiter.
func (l *Limiter) Observe(status int, h http.Header, now time.Time) {
	if status == http.StatusTooManyRequests {
		l.got429.Inc()
		wait := RetryAfter(h.Get("Retry-After"), now)
		if wait <= 0 {
			wait = l.Limit.Per / time.Duration(max(1, int(l.Limit.Units)))
		}
		l.s.PauseUntil(now.Add(wait))
	}
	remaining := headerFloat(h, "RateLimit-Remaining")
	reset := -1.0
	if v := headerFloat(h, "RateLimit-Reset"); v >= 0 {
		reset = v
	}
	if remaining >= 0 {
		resetIn := time.Duration(-1)
		if reset >= 0 {
			resetIn = time.Duration(reset * float64(time.Second))
		}
		l.s.Observe(remaining, resetIn, now)
	}
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

func headerFloat(h http.Header, k string) float64 {
	v := strings.TrimSpace(h.Get(k))
	if v == "" {
		return -1
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 {
		return -1
	}
	return f
}

var _ fetch.Limiter = (*Limiter)(nil)

package quota

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedtest"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Duration
	}{
		{"", 0}, {"3", 3 * time.Second}, {"0.5", 500 * time.Millisecond}, {"-1", 0}, {"soon", 0},
		{now.Add(10 * time.Second).Format(http.TimeFormat), 10 * time.Second},
		{now.Add(-10 * time.Second).Format(http.TimeFormat), 0},
		{"999999999", 0},
	} {
		if got := RetryAfter(c.in, now); got != c.want {
			t.Errorf("RetryAfter(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// TestLimiterBucketAndWeights: the limiter for OpenBesluitvorming's 60 per
// minute runs a bucket of 59 per 59 s (the headroom; the one schedtest's
// scenarios run as schedtest.OBVHost) and tells the scheduler the declared
// 60, the K of the weights 60/(60+used) and of an oversized call's charge.
func TestLimiterBucketAndWeights(t *testing.T) {
	l, err := New("obv", "OpenBesluitvorming", "api", schedtest.OBV, nil)
	if err != nil {
		t.Fatal(err)
	}
	st := l.Scheduler().Stats()
	if st.Limit != schedtest.OBVHost || st.Limit != (sched.Limit{Units: 59, Per: 59 * time.Second}) {
		t.Errorf("bucket %+v; want 59 units per 59 s", st.Limit)
	}
	if st.PlatformUnits != 60 {
		t.Errorf("PlatformUnits %v; want the declared 60", st.PlatformUnits)
	}
	// The host's options (its clock) get the same K, without being
	// changed; an explicit K wins.
	opts := &sched.Options{Clock: schedtest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	l2, _ := New("obv", "OpenBesluitvorming", "api", schedtest.OBV, opts)
	if got := l2.Scheduler().Stats().PlatformUnits; got != 60 || opts.PlatformUnits != 0 {
		t.Errorf("with the host's options: PlatformUnits %v (the caller's options now say %v); want 60 (0)", got, opts.PlatformUnits)
	}
	l3, _ := New("obv", "OpenBesluitvorming", "api", schedtest.OBV, &sched.Options{PlatformUnits: 70})
	if got := l3.Scheduler().Stats().PlatformUnits; got != 70 {
		t.Errorf("explicit PlatformUnits: %v; want 70", got)
	}
}

// TestPlatform429Pauses: a 429 with Retry-After stops all grants until then.
func TestPlatform429Pauses(t *testing.T) {
	l, err := New("obv", "OpenBesluitvorming", "api", sched.Limit{Units: 60, Per: time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	h := http.Header{}
	h.Set("Retry-After", "30")
	l.Observe(429, h, time.Time{}, now)
	if st := l.Scheduler().Stats(); !st.PausedUntil.Equal(now.Add(30 * time.Second)) {
		t.Errorf("paused until %v, want %v", st.PausedUntil, now.Add(30*time.Second))
	}
	// A call whose deadline comes before the pause ends fails at once with
	// a queue timeout that names the platform.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = l.Wait(ctx, &callinfo.Info{Session: "s"}, 1, false)
	var fe *connector.FetchError
	if !errors.As(err, &fe) || fe.Kind != connector.FetchQueueTimeout {
		t.Fatalf("got %v, want a queue timeout", err)
	}
}

func TestRateLimitHeadersLowerBucket(t *testing.T) {
	l, _ := New("obv", "OpenBesluitvorming", "api", sched.Limit{Units: 60, Per: time.Minute}, nil)
	h := http.Header{}
	h.Set("RateLimit-Remaining", "3")
	h.Set("RateLimit-Reset", "57")
	l.Observe(200, h, time.Time{}, time.Now())
	if tok := l.Scheduler().Stats().Tokens; tok > 3.5 {
		t.Errorf("tokens %v after the platform said 3 remain", tok)
	}
}

// TestRateLimitHeadersNotNumbers: headers sched.RateLimitBounds cannot
// read (not a plain number, negative, or Reset without Remaining) leave
// the bucket as it is.
func TestRateLimitHeadersNotNumbers(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	for _, hs := range []map[string]string{
		{"RateLimit-Remaining": "3 units", "RateLimit-Reset": "57"},
		{"RateLimit-Remaining": "-3"},
		{"RateLimit-Remaining": "NaN"},
		{"RateLimit-Reset": "57"},
		{},
	} {
		l, _ := New("obv", "OpenBesluitvorming", "api", sched.Limit{Units: 60, Per: time.Minute}, nil)
		h := http.Header{}
		for k, v := range hs {
			h.Set(k, v)
		}
		before := l.Scheduler().TokensAt(t0)
		l.Observe(200, h, time.Time{}, t0)
		if got := l.Scheduler().TokensAt(t0); got != before {
			t.Errorf("headers %v: the bucket went from %v to %v", hs, before, got)
		}
	}
}

func TestBadLimitNamesKey(t *testing.T) {
	_, err := New("obv", "OpenBesluitvorming", "api", sched.Limit{Units: 5}, nil)
	if err == nil || !strings.Contains(err.Error(), "connectors.obv.limits.api") {
		t.Fatalf("got %v", err)
	}
}

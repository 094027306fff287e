package limits

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/callinfo"
	"github.com/besluitbron/besluitbron/sched"
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

func TestHeadroomKeepsRate(t *testing.T) {
	for _, l := range []sched.Limit{{Units: 60, Per: time.Minute}, {Units: 10, Per: 30 * time.Second}, {Units: 120, Per: time.Minute}, {Units: 5, Per: 500 * time.Millisecond}} {
		h := Headroom(l)
		if h.Units >= l.Units || h.Units < l.Units-1 {
			t.Errorf("%v: headroom capacity %v", l, h.Units)
		}
		if r1, r2 := l.Units/l.Per.Seconds(), h.Units/h.Per.Seconds(); r1 != r2 {
			t.Errorf("%v: rate changed %v → %v", l, r1, r2)
		}
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
	l.Observe(429, h, now)
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
	l.Observe(200, h, time.Now())
	if tok := l.Scheduler().Stats().Tokens; tok > 3.5 {
		t.Errorf("tokens %v after the platform said 3 remain", tok)
	}
}

func TestBadLimitNamesKey(t *testing.T) {
	_, err := New("obv", "OpenBesluitvorming", "api", sched.Limit{Units: 5}, nil)
	if err == nil || !strings.Contains(err.Error(), "connectors.obv.limits.api") {
		t.Fatalf("got %v", err)
	}
}

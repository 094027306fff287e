package platformsim

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// Bucket is OpenBesluitvorming's rate limiter (web/rate_limit.ts): a token
// bucket of Capacity units, refilled continuously at Rate units per
// second, starting full. The zero value is not usable; use [NewBucket]. A
// Bucket is not safe for concurrent use (the Sim holds a lock around it).
type Bucket struct {
	Capacity float64
	Rate     float64
	tokens   float64
	last     time.Time
}

// NewBucket returns a full bucket.
func NewBucket(capacity, rate float64) *Bucket {
	return &Bucket{Capacity: capacity, Rate: rate, tokens: capacity}
}

// Decision is what the bucket says about one request, in the units of the
// platform's headers.
type Decision struct {
	Allowed bool
	// Remaining is RateLimit-Remaining: the tokens left, floored; 0 on a
	// refusal, as the platform's 429 reports it.
	Remaining int
	// Reset is RateLimit-Reset: seconds until the bucket is full again
	// (not until the next request fits).
	Reset int
	// RetryAfter is Retry-After on a refusal: seconds until this request
	// would fit, at least 1.
	RetryAfter int
}

// Take refills the bucket up to now and takes cost units if they are
// there. A refused request takes nothing.
func (b *Bucket) Take(now time.Time, cost float64) Decision {
	if !b.last.IsZero() && now.After(b.last) {
		b.tokens = math.Min(b.Capacity, b.tokens+now.Sub(b.last).Seconds()*b.Rate)
	}
	if b.last.IsZero() || now.After(b.last) {
		b.last = now
	}
	d := Decision{}
	if b.tokens >= cost {
		b.tokens -= cost
		d.Allowed = true
	} else {
		d.RetryAfter = max(1, int(math.Ceil((cost-b.tokens)/b.Rate)))
	}
	if d.Allowed {
		d.Remaining = int(math.Floor(b.tokens))
	}
	d.Reset = int(math.Ceil((b.Capacity - b.tokens) / b.Rate))
	return d
}

// Tokens returns the units left at the last Take.
func (b *Bucket) Tokens() float64 { return b.tokens }

// SearchCost is the platform's price of a search with the requested limit
// as sent (a query parameter): max(1, ceil(limit/24)); a missing,
// non-numeric or non-positive limit costs 1 (and is then refused with 400
// when invalid). The requested limit counts, not the capped one.
func SearchCost(limit string) float64 {
	if limit == "" {
		return 1
	}
	n, err := strconv.ParseFloat(limit, 64)
	if err != nil || n <= 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return 1
	}
	return math.Max(1, math.Ceil(n/24))
}

// setRateHeaders writes the three RateLimit-* headers every API answer of
// the platform carries.
func setRateHeaders(h http.Header, capacity float64, d Decision) {
	h.Set("RateLimit-Limit", strconv.Itoa(int(capacity)))
	h.Set("RateLimit-Remaining", strconv.Itoa(max(0, d.Remaining)))
	h.Set("RateLimit-Reset", strconv.Itoa(max(0, d.Reset)))
}

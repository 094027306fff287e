package ratelimit

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Layer names one of the limits a request must pass.
type Layer uint8

// The layers, in the order a [Decision] reports them when several refuse
// with the same wait.
const (
	// Process is the one bucket of the whole process.
	Process Layer = iota
	// Address is the bucket of one MCP address (/mcp/unified/v1,
	// /mcp/<connector>/v1).
	Address
	// Session is the bucket of one MCP session the server issued.
	Session
	// IP is the bucket of one client address, for requests without a
	// session the server issued (initialize, sessionless or invented ids).
	IP
	numLayers
)

// Layers lists every layer, for metrics and tables.
var Layers = [...]Layer{Process, Address, Session, IP}

// String returns the layer's name as the configuration and the metrics
// spell it: "process", "address", "session", "ip".
func (l Layer) String() string {
	switch l {
	case Process:
		return "process"
	case Address:
		return "address"
	case Session:
		return "session"
	case IP:
		return "ip"
	}
	return fmt.Sprintf("Layer(%d)", uint8(l))
}

// Limit is one token bucket: RPS requests per second on average, Burst at
// once.
type Limit struct {
	RPS   float64
	Burst int
}

func (l Limit) validate(name string) error {
	if !(l.RPS > 0) || math.IsInf(l.RPS, 0) {
		return fmt.Errorf("ratelimit: %s: rate %v must be a positive number", name, l.RPS)
	}
	if l.Burst < 1 {
		return fmt.Errorf("ratelimit: %s: burst %d must be at least 1", name, l.Burst)
	}
	return nil
}

// refill is how long an emptied bucket takes to fill up: a bucket untouched
// for that long is indistinguishable from a new one.
func (l Limit) refill() time.Duration {
	return time.Duration(math.Ceil(float64(l.Burst) / l.RPS * float64(time.Second)))
}

// Defaults for the memory bounds.
const (
	// DefaultMaxSessions bounds the known sessions (each with its bucket).
	DefaultMaxSessions = 20000
	// DefaultMaxIPs bounds the per-client-address buckets.
	DefaultMaxIPs = 20000
	// DefaultSessionIdle is how long a session is remembered without a
	// request: the MCP handler's own session timeout.
	DefaultSessionIdle = 30 * time.Minute
)

// Options configure a [Limiter]. The four limits are required; zero
// values of the other fields mean the defaults.
type Options struct {
	Process, Address, Session, IP Limit
	// Addresses are the request paths that get a bucket each. A request
	// for any other path passes the other layers only, so invented paths
	// cannot create buckets.
	Addresses []string
	// MaxSessions caps the sessions remembered (default
	// [DefaultMaxSessions]); past it, the least recently used is
	// forgotten and its next request counts against its client address.
	MaxSessions int
	// MaxIPs caps the per-address buckets kept (default [DefaultMaxIPs]);
	// past it the least recently used is dropped.
	MaxIPs int
	// SessionIdle is how long a session is remembered without a request
	// (default [DefaultSessionIdle]).
	SessionIdle time.Duration
}

// Request is what the limits need to know about one HTTP request.
type Request struct {
	// Address is the request path.
	Address string
	// Session is the Mcp-Session-Id header ("" when absent). An id the
	// server at Address did not issue (see [Limiter.SessionStarted])
	// counts as none.
	Session string
	// IP is the client's address (after the trusted-proxy rules); IPv6
	// addresses share a bucket per /64, the block one subscriber gets.
	IP netip.Addr
}

// Decision is the answer to one request.
type Decision struct {
	// OK reports that every layer admitted the request and each consumed
	// one token.
	OK bool
	// Layer is the refusing layer with the longest wait (when !OK).
	Layer Layer
	// Limit is that layer's configuration.
	Limit Limit
	// RetryAfter is the wait until every refusing bucket holds a token
	// again: a client that waits that long (and whose share is not taken
	// meanwhile by others on a shared layer) is admitted.
	RetryAfter time.Duration
}

// RetryAfterSeconds is RetryAfter in whole seconds, rounded up and at
// least 1: the value of an HTTP Retry-After header.
func (d Decision) RetryAfterSeconds() int {
	s := math.Ceil(d.RetryAfter.Seconds())
	if s < 1 {
		return 1
	}
	if s > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(s)
}

// Limiter holds the buckets of every layer. Every request passes all its
// buckets; they are checked before any is consumed, so a refused request
// costs nothing and creates no state.
//
// A Limiter must be made with [New]; it is safe for concurrent use.
type Limiter struct {
	o        Options
	mu       sync.Mutex
	process  *rate.Limiter
	address  map[string]*rate.Limiter // read-only after New
	sessions table[sessionKey]
	ips      table[netip.Addr]
	refused  [numLayers]atomic.Uint64
}

// New validates o and returns a Limiter with full buckets.
func New(o *Options) (*Limiter, error) {
	if o == nil {
		panic("ratelimit.New: nil Options")
	}
	l := &Limiter{o: *o}
	l.o.Addresses = append([]string(nil), o.Addresses...)
	err := errors.Join(o.Process.validate("process"), o.Address.validate("address"), o.Session.validate("session"), o.IP.validate("ip"))
	if o.MaxSessions < 0 || o.MaxIPs < 0 || o.SessionIdle < 0 {
		err = errors.Join(err, errors.New("ratelimit: MaxSessions, MaxIPs and SessionIdle must not be negative"))
	}
	if err != nil {
		return nil, err
	}
	if l.o.MaxSessions == 0 {
		l.o.MaxSessions = DefaultMaxSessions
	}
	if l.o.MaxIPs == 0 {
		l.o.MaxIPs = DefaultMaxIPs
	}
	if l.o.SessionIdle == 0 {
		l.o.SessionIdle = DefaultSessionIdle
	}
	l.process = newBucket(o.Process)
	l.address = make(map[string]*rate.Limiter, len(o.Addresses))
	for _, a := range o.Addresses {
		l.address[a] = newBucket(o.Address)
	}
	l.sessions.init(l.o.MaxSessions, l.o.SessionIdle)
	// An IP bucket unused for its refill time is full again: dropping it
	// then changes no answer.
	l.ips.init(l.o.MaxIPs, o.IP.refill())
	return l, nil
}

func newBucket(l Limit) *rate.Limiter { return rate.NewLimiter(rate.Limit(l.RPS), l.Burst) }

// IPKey is the bucket key of a client address: the address itself for
// IPv4 (and IPv4-mapped IPv6), its /64 for IPv6, since one subscriber gets
// a whole /64 and could otherwise pick a fresh address per request.
func IPKey(a netip.Addr) netip.Addr {
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.Addr()
	}
	return a
}

// AllowAt decides r at time now and, when every layer admits it, consumes
// one token from each.
func (l *Limiter) AllowAt(now time.Time, r Request) Decision {
	ip := IPKey(r.IP)
	l.mu.Lock()
	defer l.mu.Unlock()

	var (
		buckets [3]*rate.Limiter
		layers  [3]Layer
		n       int
	)
	add := func(b *rate.Limiter, layer Layer) {
		buckets[n], layers[n] = b, layer
		n++
	}
	add(l.process, Process)
	if b := l.address[r.Address]; b != nil {
		add(b, Address)
	}
	var (
		ipEntry *entry[netip.Addr]
		sess    *entry[sessionKey]
	)
	if r.Session != "" {
		sess = l.sessions.get(sessionKey{r.Address, r.Session}, now)
	}
	if sess != nil {
		add(sess.bucket, Session)
	} else if ipEntry = l.ips.get(ip, now); ipEntry != nil {
		add(ipEntry.bucket, IP)
	}
	// A client address without a bucket has a full one: a fresh bucket is
	// made only once the request is admitted.

	var (
		d       Decision
		refused bool
	)
	for i := range n {
		tokens := buckets[i].TokensAt(now)
		if tokens >= 1 {
			continue
		}
		lim := l.limitOf(layers[i])
		if wait := waitFor(tokens, lim.RPS); !refused || wait > d.RetryAfter {
			d.Layer, d.Limit, d.RetryAfter = layers[i], lim, wait
		}
		refused = true
	}
	if refused {
		l.refused[d.Layer].Add(1)
		return d
	}
	for i := range n {
		buckets[i].AllowN(now, 1)
	}
	switch {
	case sess != nil:
		l.sessions.touch(sess, now)
	case ipEntry != nil:
		l.ips.touch(ipEntry, now)
	default:
		ipEntry = l.ips.put(ip, now, newBucket(l.o.IP))
		ipEntry.bucket.AllowN(now, 1)
	}
	l.sessions.sweep(now)
	l.ips.sweep(now)
	return Decision{OK: true}
}

// waitFor is the time until a bucket holding tokens (< 1) refilling at rps
// holds one token, rounded so that a wait of whole seconds computed from it
// is never short.
func waitFor(tokens, rps float64) time.Duration {
	secs := (1 - tokens) / rps
	if secs >= maxWait.Seconds() {
		return maxWait
	}
	w := time.Duration(math.Ceil(secs * float64(time.Second)))
	// rate computes tokens as elapsed.Seconds()*rps; step up past any
	// rounding that would leave the bucket a hair short of one token.
	for tokens+w.Seconds()*rps < 1 {
		w += time.Nanosecond
	}
	return w
}

// maxWait bounds a computed wait (a rate of, say, one request a century
// would otherwise overflow time.Duration).
const maxWait = 100 * 365 * 24 * time.Hour

func (l *Limiter) limitOf(layer Layer) Limit {
	switch layer {
	case Process:
		return l.o.Process
	case Address:
		return l.o.Address
	case Session:
		return l.o.Session
	}
	return l.o.IP
}

// sessionKey names a session: each MCP address issues its own, so an id
// is known only on the address that issued it.
type sessionKey struct{ address, id string }

// SessionStarted records that the server at address issued session id at
// time now: from then on requests to that address carrying it count
// against its own bucket, not against their client address. Starting a
// known session again changes nothing.
func (l *Limiter) SessionStarted(now time.Time, address, id string) {
	if id == "" {
		return
	}
	k := sessionKey{address, id}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sessions.get(k, now) != nil {
		return
	}
	l.sessions.put(k, now, newBucket(l.o.Session))
}

// SessionEnded forgets session id of address (the client deleted it or
// the server no longer knows it).
func (l *Limiter) SessionEnded(address, id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sessions.remove(sessionKey{address, id})
}

// Stats are a Limiter's counters.
type Stats struct {
	// Refused counts refusals by the layer named in the Decision.
	Refused [numLayers]uint64
	// Sessions and IPs are the entries held now; PeakSessions and PeakIPs
	// the most ever held at once.
	Sessions, IPs         int
	PeakSessions, PeakIPs int
}

// Stats returns the counters.
func (l *Limiter) Stats() Stats {
	var s Stats
	for i := range s.Refused {
		s.Refused[i] = l.refused[i].Load()
	}
	l.mu.Lock()
	s.Sessions, s.PeakSessions = l.sessions.len(), l.sessions.peak
	s.IPs, s.PeakIPs = l.ips.len(), l.ips.peak
	l.mu.Unlock()
	return s
}

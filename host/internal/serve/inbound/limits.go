package inbound

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strings"
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
	// Connector is the bucket of one connector, on every address that
	// serves it, and the bucket of the calls that touch no connector
	// ([NoConnector]).
	Connector
	// Session is the bucket of one MCP session the server issued.
	Session
	// IP is the bucket of one client address, for requests without a
	// session the server issued (initialize, sessionless or invented ids).
	IP
	// Client is the bucket of one client address for all of its
	// requests, its sessions' included: the most of the shared buckets
	// (process, connector) one address can spend, so that one address
	// with many sessions cannot drain them for everyone (issue 27).
	Client
	numLayers
)

// Layers lists every layer, for metrics and tables.
var Layers = [...]Layer{Process, Connector, Session, IP, Client}

// String returns the layer's name as the configuration and the metrics
// spell it: "process", "connector", "session", "ip", "client".
func (l Layer) String() string {
	switch l {
	case Process:
		return "process"
	case Connector:
		return "connector"
	case Session:
		return "session"
	case IP:
		return "ip"
	case Client:
		return "client"
	}
	return fmt.Sprintf("Layer(%d)", uint8(l))
}

// NoConnector names the connector bucket of the messages that touch no
// connector: initialize, tools/list, ping, notifications, the host's own
// tools. It is spelt as the host's own tools are prefixed
// (besluitbron_search), so no connector may have this id.
const NoConnector = "besluitbron"

// Limit is one token bucket: RPS requests per second on average, Burst at
// once.
type Limit struct {
	RPS   float64
	Burst int
}

func (l Limit) validate(name string) error {
	if !(l.RPS > 0) || math.IsInf(l.RPS, 0) {
		return fmt.Errorf("inbound: %s: rate %v must be a positive number", name, l.RPS)
	}
	if l.Burst < 1 {
		return fmt.Errorf("inbound: %s: burst %d must be at least 1", name, l.Burst)
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

// Options configure a [Limits]. The process, connector, session and IP
// limits are required; zero values of the other fields mean the defaults.
type Options struct {
	Process, Connector, Session, IP Limit
	// Client is the limit of one client address over all its requests
	// (IPv6 per /64), its sessions' included. The zero Limit means no
	// such layer; the host sets [DefaultClient] unless configured, so that
	// whatever one address does, the shared buckets keep at least half
	// their refill for the others.
	Client Limit
	// Connectors are the connector ids that get a bucket each (of size
	// Connector); [NoConnector] always has one. A message counted against
	// any other id passes the other layers only, so invented names cannot
	// create buckets.
	Connectors []string
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

// DefaultClient is the client address limit the host sets when none is
// configured: half the rate and half the burst of the smaller of the
// process and connector limits (at least 1), so that one address can
// never spend more than half of a shared bucket.
func DefaultClient(process, connector Limit) Limit {
	return Limit{RPS: min(process.RPS, connector.RPS) / 2, Burst: max(1, min(process.Burst, connector.Burst)/2)}
}

// Request is what the limits need to know about one HTTP request.
type Request struct {
	// Address is the request path: a session id is known only on the
	// address that issued it.
	Address string
	// Session is the session id the request carries ("" when none). An id
	// the server at Address did not issue (see [Limits.SessionStarted])
	// counts as none.
	Session string
	// IP is the client's address (after the trusted-proxy rules); IPv6
	// addresses share a bucket per /64, the block one subscriber gets.
	IP netip.Addr
	// Principal is the authenticated client the request comes from
	// (server.auth "keys" or "oauth": who callinfo.ChargedTo charges its
	// calls to), "" when anonymous. An authenticated client's requests
	// count against buckets of its own instead of its sessions' and its
	// address's: one of the session limit for all its sessions together
	// (and its requests without a session), one of the client limit,
	// so that its limits hold across every session it opens and do not
	// fall on the others behind the same address (a newsroom's proxy).
	Principal string
	// Uses are the JSON-RPC messages the request carries, by the
	// connector each counts against. Each message costs one token of its
	// connector's bucket, and one of the process's and of the session's
	// (or client address's). Empty: one message and no connector bucket
	// (a path that is no MCP address).
	Uses []Use
}

// Use is a number of messages counted against one connector's bucket
// ([NoConnector] for messages that touch none).
type Use struct {
	Connector string
	Messages  int
}

// messages is the request's cost on the process, session and IP layers.
func (r *Request) messages() int {
	n := 0
	for _, u := range r.Uses {
		n += max(u.Messages, 0)
	}
	return max(n, 1)
}

// Decision is the answer to one request.
type Decision struct {
	// OK reports that every layer admitted the request and its messages
	// took their tokens.
	OK bool
	// Layer is the refusing layer with the longest wait (when !OK).
	Layer Layer
	// Connector names the refusing connector bucket when Layer is
	// [Connector].
	Connector string
	// Limit is that layer's configuration.
	Limit Limit
	// RetryAfter is the wait until every refusing bucket holds the
	// tokens again: a client that waits that long (and whose share is not
	// taken meanwhile by others on a shared layer) is admitted.
	RetryAfter time.Duration
	// Never reports a request carrying more messages (a JSON-RPC batch)
	// than the refusing bucket holds when full: no wait admits it.
	// Messages is that number.
	Never    bool
	Messages int
}

// Name names the refusing limit: "process", "session", "ip", "client" or
// "connector <id>".
func (d Decision) Name() string {
	if d.Layer == Connector {
		return "connector " + d.Connector
	}
	return d.Layer.String()
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

// connectorBucket is one connector's bucket and its refusals.
type connectorBucket struct {
	id      string
	bucket  *rate.Limiter
	refused atomic.Uint64
}

// Limits holds the buckets of every layer. Every request passes all its
// buckets; they are checked before any is consumed, so a refused request
// costs nothing and creates no state.
//
// A Limiter must be made with [New]; it is safe for concurrent use.
type Limits struct {
	o          Options
	mu         sync.Mutex
	process    *rate.Limiter
	connectors map[string]*connectorBucket // read-only after New
	order      []*connectorBucket          // sorted by id, for Stats
	sessions   table[sessionKey]
	ips        table[netip.Addr]
	clients    table[netip.Addr]
	// The buckets of authenticated clients (Request.Principal): their
	// session-limit bucket, over all their sessions, and their client-
	// limit bucket.
	named        table[string]
	namedClients table[string]
	refused      [numLayers]atomic.Uint64
}

// New validates o and returns a Limiter with full buckets.
func New(o *Options) (*Limits, error) {
	if o == nil {
		panic("inbound.New: nil Options")
	}
	l := &Limits{o: *o}
	l.o.Connectors = append([]string(nil), o.Connectors...)
	err := errors.Join(o.Process.validate("process"), o.Connector.validate("connector"), o.Session.validate("session"), o.IP.validate("ip"))
	if o.Client != (Limit{}) {
		err = errors.Join(err, o.Client.validate("client"))
	}
	if o.MaxSessions < 0 || o.MaxIPs < 0 || o.SessionIdle < 0 {
		err = errors.Join(err, errors.New("inbound: MaxSessions, MaxIPs and SessionIdle must not be negative"))
	}
	for _, id := range o.Connectors {
		if id == NoConnector {
			err = errors.Join(err, fmt.Errorf("inbound: a connector may not be called %q: that is the bucket of the calls that touch no connector", NoConnector))
		}
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
	l.connectors = make(map[string]*connectorBucket, len(o.Connectors)+1)
	for _, id := range append([]string{NoConnector}, o.Connectors...) {
		if l.connectors[id] == nil {
			cb := &connectorBucket{id: id, bucket: newBucket(o.Connector)}
			l.connectors[id] = cb
			l.order = append(l.order, cb)
		}
	}
	slices.SortFunc(l.order, func(a, b *connectorBucket) int { return strings.Compare(a.id, b.id) })
	l.sessions.init(l.o.MaxSessions, l.o.SessionIdle)
	// An IP bucket unused for its refill time is full again: dropping it
	// then changes no answer.
	l.ips.init(l.o.MaxIPs, o.IP.refill())
	if l.o.Client != (Limit{}) {
		l.clients.init(l.o.MaxIPs, l.o.Client.refill())
		l.namedClients.init(l.o.MaxSessions, l.o.Client.refill())
	} else {
		l.clients.init(l.o.MaxIPs, time.Second)
		l.namedClients.init(l.o.MaxSessions, time.Second)
	}
	// A named client's bucket outlives its sessions: dropped only once
	// full again, when dropping it changes no answer.
	l.named.init(l.o.MaxSessions, o.Session.refill())
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

// charge is one bucket a request must pass and the tokens it takes.
type charge struct {
	bucket *rate.Limiter
	layer  Layer
	conn   *connectorBucket // the connector layer's bucket
	n      int
}

// AllowAt decides r at time now and, when every layer admits it, takes
// its tokens from each.
func (l *Limits) AllowAt(now time.Time, r Request) Decision {
	return l.decide(now, r, true)
}

// PeekAt decides r at time now as [Limits.AllowAt] would, but takes
// nothing and changes no state. The Guard asks it before reading a body:
// a request the process, session or address layer refuses anyway is
// refused unread.
func (l *Limits) PeekAt(now time.Time, r Request) Decision {
	return l.decide(now, r, false)
}

func (l *Limits) decide(now time.Time, r Request, take bool) Decision {
	ip := IPKey(r.IP)
	n := r.messages()
	l.mu.Lock()
	defer l.mu.Unlock()

	var (
		fixed   [5]charge
		charges = fixed[:0]
	)
	charges = append(charges, charge{bucket: l.process, layer: Process, n: n})
	for i, u := range r.Uses {
		cb := l.connectors[u.Connector]
		if cb == nil || u.Messages <= 0 {
			continue
		}
		// A connector named twice is charged once, for the sum.
		dup := false
		for j := range charges {
			if charges[j].conn == cb {
				dup = true
			}
		}
		if dup {
			continue
		}
		m := u.Messages
		for _, v := range r.Uses[i+1:] {
			if v.Connector == u.Connector {
				m += max(v.Messages, 0)
			}
		}
		charges = append(charges, charge{bucket: cb.bucket, layer: Connector, conn: cb, n: m})
	}
	if r.Principal != "" {
		return l.decideNamed(now, r, n, charges, take)
	}
	var (
		ipEntry *entry[netip.Addr]
		sess    *entry[sessionKey]
	)
	// Every request counts against its client address, sessions or not,
	// checked with the shared buckets before any is charged: an address
	// past its own limit takes nothing from them.
	var client *entry[netip.Addr]
	if l.o.Client != (Limit{}) {
		client = l.clients.get(ip, now)
		if client != nil {
			charges = append(charges, charge{bucket: client.bucket, layer: Client, n: n})
		} else if n > l.o.Client.Burst {
			charges = append(charges, charge{bucket: newBucket(l.o.Client), layer: Client, n: n})
		}
	}
	if r.Session != "" {
		sess = l.sessions.get(sessionKey{r.Address, r.Session}, now)
	}
	if sess != nil {
		charges = append(charges, charge{bucket: sess.bucket, layer: Session, n: n})
	} else if ipEntry = l.ips.get(ip, now); ipEntry != nil {
		charges = append(charges, charge{bucket: ipEntry.bucket, layer: IP, n: n})
	} else if n > l.o.IP.Burst {
		// A client address without a bucket has a full one (made only
		// once the request is admitted): it can never hold n.
		charges = append(charges, charge{bucket: newBucket(l.o.IP), layer: IP, n: n})
	}

	if d, refused := l.judge(now, charges, take); refused {
		return d
	}
	if !take {
		return Decision{OK: true}
	}
	for _, c := range charges {
		c.bucket.AllowN(now, c.n)
	}
	switch {
	case sess != nil:
		l.sessions.touch(sess, now)
	case ipEntry != nil:
		l.ips.touch(ipEntry, now)
	default:
		ipEntry = l.ips.put(ip, now, newBucket(l.o.IP))
		ipEntry.bucket.AllowN(now, n)
	}
	switch {
	case client != nil:
		l.clients.touch(client, now)
	case l.o.Client != (Limit{}):
		client = l.clients.put(ip, now, newBucket(l.o.Client))
		client.bucket.AllowN(now, n)
	}
	l.sweep(now)
	return Decision{OK: true}
}

// decideNamed decides the request of an authenticated client: the shared
// charges (process, connectors) and the client's own session-limit and
// client-limit buckets, each made on its first admitted request.
func (l *Limits) decideNamed(now time.Time, r Request, n int, charges []charge, take bool) Decision {
	sess := l.named.get(r.Principal, now)
	switch {
	case sess != nil:
		charges = append(charges, charge{bucket: sess.bucket, layer: Session, n: n})
	case n > l.o.Session.Burst:
		charges = append(charges, charge{bucket: newBucket(l.o.Session), layer: Session, n: n})
	}
	var client *entry[string]
	if l.o.Client != (Limit{}) {
		client = l.namedClients.get(r.Principal, now)
		if client != nil {
			charges = append(charges, charge{bucket: client.bucket, layer: Client, n: n})
		} else if n > l.o.Client.Burst {
			charges = append(charges, charge{bucket: newBucket(l.o.Client), layer: Client, n: n})
		}
	}
	if d, refused := l.judge(now, charges, take); refused {
		return d
	}
	if !take {
		return Decision{OK: true}
	}
	for _, c := range charges {
		c.bucket.AllowN(now, c.n)
	}
	if sess != nil {
		l.named.touch(sess, now)
	} else {
		l.named.put(r.Principal, now, newBucket(l.o.Session)).bucket.AllowN(now, n)
	}
	switch {
	case client != nil:
		l.namedClients.touch(client, now)
	case l.o.Client != (Limit{}):
		l.namedClients.put(r.Principal, now, newBucket(l.o.Client)).bucket.AllowN(now, n)
	}
	l.sweep(now)
	return Decision{OK: true}
}

// sweep drops the expired entries of every table.
func (l *Limits) sweep(now time.Time) {
	l.sessions.sweep(now)
	l.ips.sweep(now)
	l.clients.sweep(now)
	l.named.sweep(now)
	l.namedClients.sweep(now)
}

// judge checks every charge against its bucket without taking a token:
// refused (and the Decision naming the layer with the longest wait, or
// one no wait admits), counted when take.
func (l *Limits) judge(now time.Time, charges []charge, take bool) (Decision, bool) {
	var (
		d       Decision
		refused bool
	)
	for _, c := range charges {
		lim := l.limitOf(c.layer)
		if c.n > lim.Burst {
			if !d.Never {
				d = Decision{Layer: c.layer, Limit: lim, Never: true, Messages: c.n}
				if c.conn != nil {
					d.Connector = c.conn.id
				}
			}
			refused = true
			continue
		}
		tokens := c.bucket.TokensAt(now)
		if tokens >= float64(c.n) || d.Never {
			continue
		}
		if wait := waitFor(tokens, float64(c.n), lim.RPS); !refused || wait > d.RetryAfter {
			d = Decision{Layer: c.layer, Limit: lim, RetryAfter: wait}
			if c.conn != nil {
				d.Connector = c.conn.id
			}
		}
		refused = true
	}
	if refused && take {
		l.count(d)
	}
	return d, refused
}

// count records a refusal in the statistics.
func (l *Limits) count(d Decision) {
	l.refused[d.Layer].Add(1)
	if cb := l.connectors[d.Connector]; d.Layer == Connector && cb != nil {
		cb.refused.Add(1)
	}
}

// waitFor is the time until a bucket holding tokens (< need) refilling at
// rps holds need tokens, rounded so that a wait of whole seconds computed
// from it is never short.
func waitFor(tokens, need, rps float64) time.Duration {
	secs := (need - tokens) / rps
	if secs >= maxWait.Seconds() {
		return maxWait
	}
	w := time.Duration(math.Ceil(secs * float64(time.Second)))
	// rate computes tokens as elapsed.Seconds()*rps; step up past any
	// rounding that would leave the bucket a hair short.
	for tokens+w.Seconds()*rps < need {
		w += time.Nanosecond
	}
	return w
}

// maxWait bounds a computed wait (a rate of, say, one request a century
// would otherwise overflow time.Duration).
const maxWait = 100 * 365 * 24 * time.Hour

func (l *Limits) limitOf(layer Layer) Limit {
	switch layer {
	case Process:
		return l.o.Process
	case Connector:
		return l.o.Connector
	case Session:
		return l.o.Session
	case Client:
		return l.o.Client
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
func (l *Limits) SessionStarted(now time.Time, address, id string) {
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
func (l *Limits) SessionEnded(address, id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sessions.remove(sessionKey{address, id})
}

// Stats are a Limiter's counters.
type Stats struct {
	// Refused counts refusals by the layer named in the Decision.
	Refused [numLayers]uint64
	// Connectors counts the connector layer's refusals by bucket, every
	// bucket listed ([NoConnector] included), sorted by id.
	Connectors []ConnectorRefusals
	// Sessions and IPs are the entries held now; PeakSessions and PeakIPs
	// the most ever held at once.
	Sessions, IPs         int
	PeakSessions, PeakIPs int
	// Clients and PeakClients are the client address buckets (all of an
	// address's requests) held now and the most at once.
	Clients, PeakClients int
	// Named and PeakNamed are the authenticated clients' buckets
	// ([Request.Principal]) held now and the most at once.
	Named, PeakNamed int
}

// ConnectorRefusals are one connector bucket's refusals.
type ConnectorRefusals struct {
	Connector string
	Refused   uint64
}

// Stats returns the counters.
func (l *Limits) Stats() Stats {
	var s Stats
	for i := range s.Refused {
		s.Refused[i] = l.refused[i].Load()
	}
	for _, cb := range l.order {
		s.Connectors = append(s.Connectors, ConnectorRefusals{cb.id, cb.refused.Load()})
	}
	l.mu.Lock()
	s.Sessions, s.PeakSessions = l.sessions.len(), l.sessions.peak
	s.IPs, s.PeakIPs = l.ips.len(), l.ips.peak
	s.Clients, s.PeakClients = l.clients.len(), l.clients.peak
	s.Named, s.PeakNamed = l.named.len(), l.named.peak
	l.mu.Unlock()
	return s
}

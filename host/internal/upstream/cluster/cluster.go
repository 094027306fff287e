package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sched/schedlua"
)

// DefaultLease is how long a replica's registration holds without a
// heartbeat: a replica that dies is forgotten, and its waiting calls
// dropped, this long after its last heartbeat.
const DefaultLease = 15 * time.Second

// DefaultTimeout bounds one Redis command or script.
const DefaultTimeout = 2 * time.Second

// Options configure a [Cluster].
type Options struct {
	// URL is the Redis (or Valkey) address: redis://[user:pass@]host:port/db,
	// rediss:// for TLS, or unix:///path.sock.
	URL string
	// Client, when set, is used instead of dialing URL (tests).
	Client redis.UniversalClient
	// ReplicaID names this replica in Redis; it must be unique among the
	// replicas. Empty: host name, process id and a random suffix.
	ReplicaID string
	// Lease is how long this replica's registration holds without a
	// heartbeat (default DefaultLease). Heartbeats run every Lease/3.
	Lease time.Duration
	// Timeout bounds one Redis command or scheduler script (default
	// DefaultTimeout). One that takes longer counts as Redis being
	// unreachable, and the replica falls back to its own share: short
	// finds an outage soon; long rides out a Redis slowed by a busy
	// machine or many waiting calls.
	Timeout time.Duration
	// Forget is how long a session's usage is remembered after its last
	// call (default sched.DefaultForget).
	Forget time.Duration
	// Clock drives the heartbeats and the waits (nil = the real clock).
	Clock sched.Clock
	// ExplicitTime passes Clock's time to the scheduler script instead of
	// letting it read Redis's clock (tests in virtual time). In
	// production Redis's clock is the one clock all replicas share.
	ExplicitTime bool
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Metrics, when set, receives the cluster's figures.
	Metrics *Metrics
}

var replicaIDRe = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// ValidReplicaID reports why id cannot name a replica, or nil.
func ValidReplicaID(id string) error {
	if !replicaIDRe.MatchString(id) {
		return fmt.Errorf("%q: use 1 to 128 letters, digits, dots, dashes, colons or underscores", id)
	}
	return nil
}

// Cluster is this replica's link to the shared state in Redis: the
// registration that other replicas see (a lease renewed by heartbeats),
// the channel on which other replicas hand it grants, and the limiters of
// its quotas.
//
// A Cluster is safe for concurrent use. Create it with [New]; Close it to
// leave the cluster cleanly.
type Cluster struct {
	o     Options
	rdb   redis.UniversalClient
	own   bool // rdb was dialed here
	log   *slog.Logger
	clock sched.Clock

	mu         sync.Mutex
	limiters   map[string]*SharedQuota // by key prefix
	order      []*SharedQuota
	live       int       // replicas alive at the last heartbeat, this one included
	liveIDs    []string  // their ids
	registered time.Time // first successful heartbeat (local clock)
	lastOK     time.Time // last successful script (local clock)
	offset     time.Duration
	closed     bool
	timer      sched.Timer

	// cancels are the forwarded tasks/cancel this replica waits an
	// answer to, by request id (tasks.go).
	cancelMu   sync.Mutex
	cancels    map[string]chan cancelAnswer
	cancelSeq  uint64
	cancelsSub bool // ServeCancels listens: answers can be heard

	ps       *redis.PubSub
	stopSub  chan struct{}
	subDone  chan struct{}
	beatDone chan struct{} // closed when no heartbeat runs
}

// New connects to Redis and checks that it answers. It does not register
// the replica yet: [Cluster.Start] does, once the limiters are added.
// Errors name what is wrong.
func New(ctx context.Context, o Options) (*Cluster, error) {
	if o.Lease == 0 {
		o.Lease = DefaultLease
	}
	if o.Lease < 300*time.Millisecond {
		return nil, fmt.Errorf("cluster.lease %v: must be at least 300ms", o.Lease)
	}
	if o.Forget <= 0 {
		o.Forget = sched.DefaultForget
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ReplicaID == "" {
		o.ReplicaID = defaultReplicaID()
	} else if err := ValidReplicaID(o.ReplicaID); err != nil {
		return nil, fmt.Errorf("cluster.replica_id %w", err)
	}
	c := &Cluster{o: o, log: o.Logger.With("replica", o.ReplicaID), clock: o.Clock, limiters: map[string]*SharedQuota{}}
	// go-redis reports reconnection attempts on its own logger; the
	// fallback already says what matters, so they go to debug.
	setRedisLogger.Do(func() { redis.SetLogger(redisLog{o.Logger}) })
	if o.Client != nil {
		c.rdb = o.Client
	} else {
		opt, err := redis.ParseURL(o.URL)
		if err != nil {
			return nil, fmt.Errorf("cluster.redis_url %q: %w", redact(o.URL), err)
		}
		// Fail fast: a replica that cannot reach Redis falls back to its
		// own share of each limit, and should know within the timeout.
		opt.DialTimeout = o.Timeout
		opt.ReadTimeout = o.Timeout
		opt.WriteTimeout = o.Timeout
		opt.MaxRetries = 1
		c.rdb = redis.NewClient(opt)
		c.own = true
	}
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := c.rdb.Ping(pctx).Err(); err != nil {
		if c.own {
			c.rdb.Close()
		}
		return nil, fmt.Errorf("cluster.redis_url %q: Redis does not answer: %w", redact(o.URL), err)
	}
	return c, nil
}

// redact hides a password in a Redis URL.
func redact(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.LastIndex(u, "@"); j > i {
			return u[:i+3] + "…@" + u[j+1:]
		}
	}
	return u
}

func defaultReplicaID() string {
	h, _ := os.Hostname()
	h = regexp.MustCompile(`[^A-Za-z0-9._-]`).ReplaceAllString(h, "_")
	if len(h) > 64 {
		h = h[:64]
	}
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", h, os.Getpid(), hex.EncodeToString(b[:]))
}

// ReplicaID is this replica's name in Redis.
func (c *Cluster) ReplicaID() string { return c.o.ReplicaID }

// Redis is the client (the cache tier shares it).
func (c *Cluster) Redis() redis.UniversalClient { return c.rdb }

// args are the script arguments for this replica now.
func (c *Cluster) args(l schedlua.Limit) schedlua.Args {
	a := schedlua.Args{Replica: c.o.ReplicaID, Limit: l, Forget: c.o.Forget, Lease: c.o.Lease}
	if c.o.ExplicitTime {
		a.Now = schedlua.US(c.clock.Now())
	}
	return a
}

// scriptCtx bounds a script call by the timeout. It does not follow the
// caller's cancellation: a script that ran on the server while the caller
// went away would leave a call queued that nobody waits for.
func (c *Cluster) scriptCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), c.o.Timeout)
}

// ok records a successful script call: Redis's clock against ours.
func (c *Cluster) ok(r schedlua.Reply, sent time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastOK = c.clock.Now()
	if !c.o.ExplicitTime {
		c.offset = schedlua.Time(r.Now).Sub(sent)
	}
}

// serverNow estimates Redis's clock now.
func (c *Cluster) serverNow() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.clock.Now().Add(c.offset)
}

// toLocal converts an instant of Redis's clock to the local clock.
func (c *Cluster) toLocal(us int64) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return schedlua.Time(us).Add(-c.offset)
}

// Start registers this replica, subscribes to its grant channel and
// starts the heartbeats. Call it once, after adding the limiters.
func (c *Cluster) Start(ctx context.Context) error {
	c.ps = c.rdb.Subscribe(ctx, keyChannels+c.o.ReplicaID)
	if _, err := c.ps.Receive(ctx); err != nil {
		c.ps.Close()
		return fmt.Errorf("cluster: subscribing to this replica's grant channel: %w", err)
	}
	c.stopSub, c.subDone = make(chan struct{}), make(chan struct{})
	go c.listen()
	c.beat()
	return nil
}

// listen delivers grants that other replicas' scripts made for this
// replica's calls.
func (c *Cluster) listen() {
	defer close(c.subDone)
	ch := c.ps.Channel()
	for {
		select {
		case <-c.stopSub:
			return
		case m, ok := <-ch:
			if !ok {
				return
			}
			prefix, rec, found := strings.Cut(m.Payload, "\n")
			if !found {
				continue
			}
			c.mu.Lock()
			l := c.limiters[prefix]
			c.mu.Unlock()
			g, err := schedlua.ParseGrant(rec)
			if l == nil || err != nil {
				continue
			}
			l.deliver([]schedlua.Grant{g}, nil)
		}
	}
}

// beat runs one heartbeat for every limiter and arms the next one.
func (c *Cluster) beat() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	ls := append([]*SharedQuota(nil), c.order...)
	c.mu.Unlock()
	for _, l := range ls {
		l.heartbeat()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.timer = c.clock.AfterFunc(c.o.Lease/3, c.beat)
	}
}

// heard records the replicas a heartbeat found alive.
func (c *Cluster) heard(r schedlua.Reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = max(1, r.Live)
	c.liveIDs = append(c.liveIDs[:0], r.Rest...)
	if c.registered.IsZero() {
		c.registered = c.clock.Now()
	}
}

// share is the number of replicas this one divides a limit by when Redis
// is unreachable, and whether it may take a share at all: a replica
// registered for less than a lease may not have been seen by the others
// yet, so their count may lack it; it takes none.
func (c *Cluster) share() (n int, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.registered.IsZero() || c.clock.Now().Sub(c.registered) < c.o.Lease {
		return 0, false
	}
	return max(1, c.live), true
}

func (c *Cluster) lastSeen() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.liveIDs...)
}

// Close stops the heartbeats, takes this replica out of the cluster (its
// waiting calls leave the queues at once) and closes the connection.
func (c *Cluster) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	var errs []error
	if c.stopSub != nil {
		close(c.stopSub)
		errs = append(errs, c.ps.Close())
		<-c.subDone
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.o.Timeout)
	defer cancel()
	if err := c.rdb.ZRem(ctx, keyReplicas, c.o.ReplicaID).Err(); err != nil && !errors.Is(err, redis.Nil) {
		errs = append(errs, fmt.Errorf("cluster: leaving: %w", err))
	}
	if c.own {
		errs = append(errs, c.rdb.Close())
	}
	return errors.Join(errs...)
}

type realClock struct{}

func (realClock) Now() time.Time                                  { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) sched.Timer { return time.AfterFunc(d, f) }

// setRedisLogger sets go-redis's process-wide logger once.
var setRedisLogger sync.Once

// redisLog sends go-redis's log lines to slog at debug level.
type redisLog struct{ l *slog.Logger }

func (r redisLog) Printf(ctx context.Context, format string, v ...any) {
	r.l.DebugContext(ctx, "redis client: "+fmt.Sprintf(format, v...))
}

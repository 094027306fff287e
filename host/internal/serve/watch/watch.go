package watch

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/sched"
)

// URIPrefix starts every watch's resource URI; the id follows.
const URIPrefix = "besluitbron://watch/"

// FeedPrefix starts every feed address on the host; the secret and
// ".atom" follow.
const FeedPrefix = "/watch/"

// Bounds of what a poll keeps per search, so that a watch that runs for
// years costs a bounded part of the file and of memory.
const (
	// maxEntries is the newest results a group keeps to show.
	maxEntries = 200
	// maxSeen is the result keys a group remembers as seen.
	maxSeen = 5000
	// pollLimit is the results asked per platform at each poll.
	pollLimit = 10
)

// Limit is a platform's limit as the watches pace themselves by it:
// Units per Per. Ok is false for a platform where BesluitBron keeps no
// limit; its polls are paced by the minimum interval only.
type Limit struct {
	Units float64
	Per   time.Duration
	Ok    bool
}

// Options configure a Manager.
type Options struct {
	// Search runs besluitbron_search with its JSON arguments (the
	// crosssearch Searcher's Handle); required.
	Search func(ctx context.Context, info *callinfo.Info, raw json.RawMessage) invoke.Answer
	// Platforms are the platform ids besluitbron_search takes (the values
	// of platforms); Defaults those it searches when none are named.
	Platforms, Defaults []string
	// Limit gives each platform's limit; nil: no platform has one.
	Limit func(platform string) Limit
	// Share is the part of each limit all polls together may use in any
	// window of the limit's length (watch.quota_share).
	Share float64
	// MinInterval is the shortest time between two polls of one search.
	MinInterval time.Duration
	// MaxPerOwner and MaxTotal cap the watches.
	MaxPerOwner, MaxTotal int
	// File keeps the watches across restarts ("" keeps them in memory).
	// With Shared it is read once, into a shared store that holds none
	// yet (a single server becoming a cluster keeps its watches).
	File string
	// Shared, when set, keeps the watches in the cluster's store
	// instead of File, and only the replica holding its lease polls.
	Shared Shared
	// Lease is how long the polling replica's lease holds without a
	// renewal (default DefaultLease); it renews it every Lease/3.
	Lease time.Duration
	// Clock drives the polls (nil: the real clock).
	Clock sched.Clock
	// Notify is told the resource URI of a watch that has new results.
	Notify func(uri string)
	Logger *slog.Logger
}

// Query is a watch's search, normalised: two watches with equal Queries
// share one poll.
type Query struct {
	Query        string   `json:"query"`
	Platforms    []string `json:"platforms,omitempty"`
	Organization string   `json:"organization,omitempty"`
	DateFrom     string   `json:"date_from,omitempty"`
	DateTo       string   `json:"date_to,omitempty"`
}

// key is the Query's grouping key.
func (q Query) key() string {
	b, _ := json.Marshal(q)
	return string(b)
}

// Watch is one saved search of one owner.
type Watch struct {
	ID      string    `json:"id"`
	Secret  string    `json:"secret"`
	Owner   string    `json:"owner"`
	Query   Query     `json:"query"`
	Created time.Time `json:"created"`
}

// URI is the watch's resource URI.
func (w *Watch) URI() string { return URIPrefix + w.ID }

// Feed is the watch's feed address on the host (a path: the page that
// shows it makes it absolute).
func (w *Watch) Feed() string { return FeedPrefix + w.Secret + ".atom" }

// Manager keeps the watches and polls them. Build it with [New]; it is
// safe for concurrent use.
type Manager struct {
	o   Options
	now func() time.Time
	log *slog.Logger

	mu      sync.Mutex
	watches map[string]*Watch // by id
	secrets map[string]*Watch // by secret
	groups  map[string]*group // by Query key
	ledger  map[string]*ledger
	typical map[string]float64 // last measured units of a poll, per platform
	timer   sched.Timer
	wakeAt  time.Time
	running bool // a poll loop runs
	closed  bool
	polls   int    // polls started, in all
	turns   uint64 // the round robin's counter (group.turn)

	// loops counts the poll loops running, which Close waits for before
	// its last save.
	loops  sync.WaitGroup
	saveMu sync.Mutex
	// version is the shared store's version of the state held (-1:
	// unknown, read it again); stopListen ends the subscription to the
	// replicas' messages.
	version    int64
	stopListen func()
	ctx        context.Context
	cancel     context.CancelFunc
}

// New builds a Manager and loads the kept watches; an unreadable file is
// an error naming it. Start begins the polls.
func New(o Options) (*Manager, error) {
	if o.Search == nil {
		return nil, errors.New("watch.New: Options.Search is required")
	}
	if o.Share <= 0 || o.Share > 1 {
		return nil, fmt.Errorf("watch.New: Share %v: want above 0 and at most 1", o.Share)
	}
	if o.MinInterval <= 0 {
		return nil, fmt.Errorf("watch.New: MinInterval %v: want a positive duration", o.MinInterval)
	}
	if o.MaxPerOwner < 1 || o.MaxTotal < 1 {
		return nil, fmt.Errorf("watch.New: MaxPerOwner %d and MaxTotal %d: want at least 1", o.MaxPerOwner, o.MaxTotal)
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Limit == nil {
		o.Limit = func(string) Limit { return Limit{} }
	}
	m := &Manager{o: o, now: o.Clock.Now, log: o.Logger, watches: map[string]*Watch{}, secrets: map[string]*Watch{},
		groups: map[string]*group{}, ledger: map[string]*ledger{}, typical: map[string]float64{}}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	if o.Shared != nil {
		return m, m.openShared()
	}
	if err := m.load(); err != nil {
		return nil, err
	}
	return m, nil
}

// openShared reads the shared store, moves the file's watches into it
// when it holds none yet, and listens to the other replicas.
func (m *Manager) openShared() error {
	if m.o.Lease <= 0 {
		m.o.Lease = DefaultLease
	}
	m.saveMu.Lock()
	err := m.refresh(m.ctx)
	m.saveMu.Unlock()
	if err != nil {
		return err
	}
	if m.version == 0 && m.o.File != "" {
		if err := m.load(); err != nil {
			return err
		}
		m.mu.Lock()
		n := len(m.watches)
		m.mu.Unlock()
		if n > 0 {
			if err := m.change(func() error { return nil }); err != nil {
				return fmt.Errorf("moving %d watches from watch.file %s into the cluster's store: %w", n, m.o.File, err)
			}
			m.log.Info("watches moved into the cluster's store; the file is no longer read", "watches", n, "file", m.o.File)
		}
	}
	stop, err := m.o.Shared.Listen(m.heard)
	if err != nil {
		return err
	}
	m.stopListen = stop
	return nil
}

// realClock is the wall clock, for a Manager given none.
type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }
func (realClock) AfterFunc(d time.Duration, f func()) sched.Timer {
	return time.AfterFunc(d, f)
}

// Start begins polling: the groups due are polled at once, the others
// when their turn comes.
func (m *Manager) Start() { m.wake() }

// Close stops the polls (a poll under way is cancelled) and saves.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	if m.timer != nil {
		m.timer.Stop()
	}
	m.mu.Unlock()
	m.cancel()
	m.loops.Wait() // a poll under way ends (cancelled) before the last save
	if m.o.Shared != nil {
		// Every change is in the store already; another replica polls
		// at once.
		if m.stopListen != nil {
			m.stopListen()
		}
		ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
		defer cancel()
		return m.o.Shared.Resign(ctx)
	}
	return m.save()
}

// Create saves a watch of owner for q (checked with [Manager.Check]
// first) and returns it; past a cap, an error saying which.
func (m *Manager) Create(owner string, q Query) (*Watch, error) {
	q, err := m.Check(q)
	if err != nil {
		return nil, err
	}
	if owner == "" {
		return nil, errors.New("a watch needs an owner (the caller is unknown)")
	}
	var w *Watch
	err = m.change(func() error {
		if len(m.watches) >= m.o.MaxTotal {
			return fmt.Errorf("this server keeps at most %d watches (watch.max_total) and has that many; delete one first, or ask the administrator", m.o.MaxTotal)
		}
		if n := m.countOf(owner); n >= m.o.MaxPerOwner {
			return fmt.Errorf("you have %d watches, the most one client may keep here (watch.max_per_owner); delete one first (besluitbron_watch action delete)", n)
		}
		w = &Watch{ID: randomHex(8), Secret: randomHex(16), Owner: owner, Query: q, Created: m.now()}
		for m.watches[w.ID] != nil {
			w.ID = randomHex(8)
		}
		m.watches[w.ID] = w
		m.secrets[w.Secret] = w
		g := m.groups[q.key()]
		if g == nil {
			g = newGroup(q)
			m.turns++
			g.turn = m.turns
			m.groups[q.key()] = g
		}
		g.watches[w.ID] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	m.wake()
	return w, nil
}

// countOf counts owner's watches; m.mu is held.
func (m *Manager) countOf(owner string) int {
	n := 0
	for _, w := range m.watches {
		if w.Owner == owner {
			n++
		}
	}
	return n
}

// ErrNotYours is the answer for a watch that does not exist or that the
// caller may not reach: the two are one answer, so an id tells a
// stranger nothing.
var ErrNotYours = errors.New("no such watch of yours")

// Get returns the watch id if caller owns it or secret is its secret.
func (m *Manager) Get(caller, id, secret string) (*Watch, error) {
	m.current()
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.watches[id]
	if w == nil || !allowed(w, caller, secret) {
		return nil, fmt.Errorf("watch %s: %w (it was deleted, or another client created it: only its creator, or whoever has its feed address, may reach it)", clip(id, 40), ErrNotYours)
	}
	return w, nil
}

// BySecret returns the watch whose secret is secret.
func (m *Manager) BySecret(secret string) (*Watch, bool) {
	m.current()
	m.mu.Lock()
	defer m.mu.Unlock()
	w, ok := m.secrets[secret]
	return w, ok
}

// allowed says whether caller, or the holder of secret, may reach w.
func allowed(w *Watch, caller, secret string) bool {
	if caller != "" && w.Owner == caller {
		return true
	}
	return secret != "" && subtle.ConstantTimeCompare([]byte(secret), []byte(w.Secret)) == 1
}

// List returns caller's watches, and the watch of secret when given,
// oldest first.
func (m *Manager) List(caller, secret string) []*Watch {
	m.current()
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Watch
	for _, w := range m.watches {
		if w.Owner == caller || secret != "" && allowed(w, "", secret) {
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(a, b *Watch) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out
}

// Delete removes watch id (or the watch of secret when id is "") if
// caller owns it or secret is its secret.
func (m *Manager) Delete(caller, id, secret string) (*Watch, error) {
	var w *Watch
	err := m.change(func() error {
		if id == "" && secret != "" {
			if w := m.secrets[secret]; w != nil {
				id = w.ID
			}
		}
		w = m.watches[id]
		if w == nil || !allowed(w, caller, secret) {
			return fmt.Errorf("watch %s: %w (only its creator, or whoever has its feed address, may delete it)", clip(id, 40), ErrNotYours)
		}
		delete(m.watches, w.ID)
		delete(m.secrets, w.Secret)
		if g := m.groups[w.Query.key()]; g != nil {
			delete(g.watches, w.ID)
			if len(g.watches) == 0 {
				delete(m.groups, w.Query.key())
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// Check normalises q and says what is wrong with it, naming the argument:
// the bounds besluitbron_search holds its arguments to.
func (m *Manager) Check(q Query) (Query, error) {
	q.Query = strings.Join(strings.Fields(q.Query), " ")
	switch n := utf8.RuneCountInString(q.Query); {
	case !utf8.ValidString(q.Query):
		return q, errors.New("argument \"query\": not valid UTF-8")
	case n == 0:
		return q, errors.New("argument \"query\": required to create a watch, the words to search for")
	case n > 500:
		return q, fmt.Errorf("argument \"query\" must be at most 500 characters long (got %d)", n)
	}
	seen := map[string]bool{}
	for _, p := range q.Platforms {
		if !slices.Contains(m.o.Platforms, p) {
			return q, fmt.Errorf("argument \"platforms\": %q is not a platform here (one of %s)", clip(p, 40), strings.Join(m.o.Platforms, ", "))
		}
		if seen[p] {
			return q, fmt.Errorf("argument \"platforms\": %q is named twice", clip(p, 40))
		}
		seen[p] = true
	}
	if q.Platforms != nil && len(q.Platforms) == 0 {
		return q, errors.New("argument \"platforms\": empty; omit it to follow every platform with a free-text search")
	}
	q.Platforms = slices.Sorted(slices.Values(q.Platforms))
	q.Organization = strings.Join(strings.Fields(q.Organization), " ")
	if n := utf8.RuneCountInString(q.Organization); q.Organization != "" && (n < 2 || n > 200) {
		return q, fmt.Errorf("argument \"organization\": %d characters; give a name of 2 to 200", n)
	}
	for _, d := range []struct{ name, v string }{{"date_from", q.DateFrom}, {"date_to", q.DateTo}} {
		if d.v == "" {
			continue
		}
		if t, err := time.Parse("2006-01-02", d.v); err != nil || t.Format("2006-01-02") != d.v {
			return q, fmt.Errorf("argument %q must be a date written YYYY-MM-DD (got %q)", d.name, clip(d.v, 40))
		}
	}
	if q.DateFrom != "" && q.DateTo != "" && q.DateFrom > q.DateTo {
		return q, fmt.Errorf("arguments \"date_from\" and \"date_to\": %s is after %s", q.DateFrom, q.DateTo)
	}
	return q, nil
}

// randomHex is n random bytes in hex: the ids (8 bytes) and the feed
// secrets (16 bytes, 128 bits: not to be guessed).
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b)
}

// clip cuts a caller's value for an error message.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

package watch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Shared is where the replicas of a cluster keep one set of watches
// instead of a file each (upstream/cluster's WatchStore, on Redis): so
// that a watch made through one replica is read, fed and deleted through
// any, every search is polled once for the whole cluster, and all polls
// together stay within the share of each limit, whichever replica runs
// them.
type Shared interface {
	// Version is the kept state's version (0: none kept), cheap to ask.
	Version(ctx context.Context) (int64, error)
	// Load returns the kept state (nil when none) and its version.
	Load(ctx context.Context) ([]byte, int64, error)
	// Store writes state if the kept version is still version, returning
	// the new one; ok is false when another replica wrote first.
	Store(ctx context.Context, state []byte, version int64) (v int64, ok bool, err error)
	// Lead takes or renews the lease to poll until now+lease, and says
	// whether this replica holds it: one replica polls at a time.
	Lead(ctx context.Context, now time.Time, lease time.Duration) (bool, error)
	// Resign gives the lease up (at Close), so another replica polls at
	// once.
	Resign(ctx context.Context) error
	// Announce tells every replica, this one too, msg.
	Announce(ctx context.Context, msg string) error
	// Listen calls f with every message announced from now on until stop.
	Listen(f func(msg string)) (stop func(), err error)
}

// DefaultLease is how long the polling replica's lease holds without a
// renewal: a replica that stops polls no longer than this before
// another takes over.
const DefaultLease = 30 * time.Second

// The messages replicas announce: the state changed (the polling replica
// looks for new searches), and a watch has new results (each replica
// tells its own subscribers).
const (
	msgChanged = "changed"
	msgUpdated = "updated "
)

// sharedTimeout bounds one exchange with the shared store.
const sharedTimeout = 5 * time.Second

// maxRetries bounds the writes of one change that other replicas' writes
// overtook.
const maxRetries = 8

// refresh takes the shared state if another replica changed it since it
// was last read. A store that does not answer leaves the state as last
// read (reads go on; the next change reports it). m.saveMu is held.
func (m *Manager) refresh(ctx context.Context) error {
	if m.o.Shared == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, sharedTimeout)
	defer cancel()
	v, err := m.o.Shared.Version(ctx)
	if err != nil {
		return fmt.Errorf("the watches' shared store: %w", err)
	}
	m.mu.Lock()
	same := v == m.version
	m.mu.Unlock()
	if same {
		return nil
	}
	b, v, err := m.o.Shared.Load(ctx)
	if err != nil {
		return fmt.Errorf("the watches' shared store: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if b == nil {
		m.watches, m.secrets, m.groups, m.ledger = map[string]*Watch{}, map[string]*Watch{}, map[string]*group{}, map[string]*ledger{}
	} else if err := m.decode(b, "the watches' shared store", "delete its keys (besluitbron:{besluitbron}:watch:*) to start without its watches"); err != nil {
		return err
	}
	m.version = v
	return nil
}

// current brings the state up to date before a read; a store that does
// not answer is logged and the state as last read is used.
func (m *Manager) current() {
	if m.o.Shared == nil {
		return
	}
	m.saveMu.Lock()
	defer m.saveMu.Unlock()
	if err := m.refresh(m.ctx); err != nil {
		m.log.Warn("watches: reading the shared store failed; answering from the state last read", "error", err)
	}
}

// change applies f to the state and keeps it: in the file, or in the
// shared store, where f runs again on the newer state when another
// replica wrote first. f returns an error without changing anything, or
// changes the state; it runs with m.mu held.
func (m *Manager) change(f func() error) error { return m.keep(f, true) }

// keep is change, telling the other replicas (tell) or not: a poll's
// claim adds no search for the polling replica to look for, so waking
// every replica to read the state again would be a round of Redis reads
// per poll for nothing.
func (m *Manager) keep(f func() error, tell bool) error {
	if m.o.Shared == nil {
		m.mu.Lock()
		err := f()
		m.mu.Unlock()
		if err == nil {
			m.persist()
		}
		return err
	}
	m.saveMu.Lock()
	defer m.saveMu.Unlock()
	for range maxRetries {
		if err := m.refresh(m.ctx); err != nil {
			return err
		}
		m.mu.Lock()
		err := f()
		var b []byte
		if err == nil {
			b, err = m.encode()
		}
		ver := m.version
		m.mu.Unlock()
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(m.ctx, sharedTimeout)
		v, ok, err := m.o.Shared.Store(ctx, b, ver)
		cancel()
		m.mu.Lock()
		if err != nil || !ok {
			// The change is in memory only: read the store again before
			// anything else.
			m.version = -1
		} else {
			m.version = v
		}
		m.mu.Unlock()
		if err != nil {
			return fmt.Errorf("the watches' shared store did not take the change: %w", err)
		}
		if ok {
			if tell {
				m.announce(msgChanged)
			}
			return nil
		}
	}
	return errors.New("the watches' shared store kept changing under this change (other replicas wrote first 8 times); try again")
}

// announce tells every replica msg; a failure is logged (the polling
// replica still finds a change at its next turn).
func (m *Manager) announce(msg string) {
	ctx, cancel := context.WithTimeout(m.ctx, sharedTimeout)
	defer cancel()
	if err := m.o.Shared.Announce(ctx, msg); err != nil {
		m.log.Warn("watches: telling the other replicas failed", "error", err)
	}
}

// heard is a message another replica (or this one) announced.
func (m *Manager) heard(msg string) {
	switch {
	case msg == msgChanged:
		m.wake()
	case strings.HasPrefix(msg, msgUpdated):
		if m.o.Notify != nil {
			m.o.Notify(strings.TrimPrefix(msg, msgUpdated))
		}
	}
}

// leads says whether this replica polls now: always without a shared
// store; with one, while it holds the lease.
func (m *Manager) leads() bool {
	if m.o.Shared == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(m.ctx, sharedTimeout)
	defer cancel()
	ok, err := m.o.Shared.Lead(ctx, m.now(), m.o.Lease)
	if err != nil {
		m.log.Warn("watches: the polling lease could not be renewed; not polling until it can", "error", err)
		return false
	}
	return ok
}

// claimHold is how long a claimed poll keeps other replicas from
// polling the same search: a poll's search ends within its per-platform
// deadline (at most a minute) and is cut off at claimHold, so a claim
// older than that belongs to a replica that stopped mid-poll. Longer
// than the lease on purpose: a replica whose lease lapsed during a slow
// poll is still polling.
const claimHold = 2 * time.Minute

// errNothingDue ends a claim that found no group to poll.
var errNothingDue = errors.New("no watch is due")

// claim picks the group to poll now from the shared state and records
// in it, under the version a write must match, that this replica polls
// it: the lease says who polls, but a replica whose lease lapsed during
// a slow poll, or that read the state just before another's poll was
// kept, would otherwise poll the same search again. It returns nil and
// when to look again when nothing is due (or the store did not answer:
// then after a lease's third).
func (m *Manager) claim(now time.Time) (*group, time.Time) {
	var picked *group
	var next time.Time
	err := m.keep(func() error {
		g, nx := m.pick(now)
		if g == nil {
			next = nx
			return errNothingDue
		}
		g.claimed = now
		picked = g
		return nil
	}, false)
	switch {
	case err == nil:
		return picked, time.Time{}
	case errors.Is(err, errNothingDue):
		return nil, next
	}
	m.log.Warn("watches: claiming a poll in the shared store failed; trying again shortly", "error", err)
	return nil, now.Add(m.o.Lease / 3)
}

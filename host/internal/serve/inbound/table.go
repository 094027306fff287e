package inbound

import (
	"time"

	"golang.org/x/time/rate"
)

// entry is one bucket in a table, on the table's recency list.
type entry[K comparable] struct {
	key        K
	last       time.Time // last admitted request
	bucket     *rate.Limiter
	prev, next *entry[K]
}

// table is a bounded map of buckets, ordered by last use. An entry unused
// for idle is dropped when next seen or swept; when the table is full the
// least recently used entry makes room. Its zero value is unusable: call
// init. The caller serialises access.
type table[K comparable] struct {
	m    map[K]*entry[K]
	root entry[K] // root.next is the most recently used, root.prev the least
	max  int
	idle time.Duration
	peak int
}

func (t *table[K]) init(max int, idle time.Duration) {
	t.m = make(map[K]*entry[K])
	t.root.next, t.root.prev = &t.root, &t.root
	t.max, t.idle = max, idle
}

func (t *table[K]) len() int { return len(t.m) }

func (t *table[K]) expired(e *entry[K], now time.Time) bool {
	return now.Sub(e.last) >= t.idle
}

// get returns k's live entry or nil; it does not count as a use.
func (t *table[K]) get(k K, now time.Time) *entry[K] {
	e := t.m[k]
	if e == nil {
		return nil
	}
	if t.expired(e, now) {
		t.unlink(e)
		return nil
	}
	return e
}

// touch marks e used at now.
func (t *table[K]) touch(e *entry[K], now time.Time) {
	if now.After(e.last) {
		e.last = now
	}
	if t.root.next != e {
		t.detach(e)
		t.pushFront(e)
	}
}

// put adds k (absent) with bucket b, used at now.
func (t *table[K]) put(k K, now time.Time, b *rate.Limiter) *entry[K] {
	t.sweep(now)
	for len(t.m) >= t.max && t.root.prev != &t.root {
		t.unlink(t.root.prev)
	}
	e := &entry[K]{key: k, last: now, bucket: b}
	t.m[k] = e
	t.pushFront(e)
	t.peak = max(t.peak, len(t.m))
	return e
}

func (t *table[K]) remove(k K) {
	if e := t.m[k]; e != nil {
		t.unlink(e)
	}
}

// sweep drops expired entries from the least recently used end; each call
// costs one comparison plus one per entry dropped.
func (t *table[K]) sweep(now time.Time) {
	for e := t.root.prev; e != &t.root && t.expired(e, now); e = t.root.prev {
		t.unlink(e)
	}
}

func (t *table[K]) unlink(e *entry[K]) {
	t.detach(e)
	delete(t.m, e.key)
}

func (t *table[K]) detach(e *entry[K]) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (t *table[K]) pushFront(e *entry[K]) {
	e.prev, e.next = &t.root, t.root.next
	t.root.next.prev = e
	t.root.next = e
}

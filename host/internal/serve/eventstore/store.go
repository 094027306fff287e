package eventstore

import (
	"container/list"
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
)

// DefaultMaxBytes is the bound when none is given (server.event_store_mb).
const DefaultMaxBytes = 16 << 20

// What the bookkeeping costs, counted against the bound with the
// payloads: a stream's map entry, list element and struct, and an event's
// slice header. Generous rather than exact, so the bound holds for the
// heap, not only for the payloads.
const (
	streamOverhead = 256
	eventOverhead  = 32
)

// Store is a bounded, in-memory [mcp.EventStore]. One Store serves every
// address of a server: session ids are unique across them.
type Store struct {
	max int

	mu       sync.Mutex
	used     int
	sessions map[string]map[string]*stream
	lru      *list.List // of *stream, least recently written at the front

	evicted, purged prometheus.Counter
}

// stream is one stream's events: data[i] is the event with index first+i.
type stream struct {
	session, id string
	first       int
	data        [][]byte
	// lost: the stream was dropped and then written again; the index of
	// its events is unknown, so it keeps none and cannot be resumed.
	lost bool
	size int // counted bytes, overheads included
	elem *list.Element
}

var _ mcp.EventStore = (*Store)(nil)

// New returns a Store that keeps at most maxBytes (≤ 0: [DefaultMaxBytes])
// of events and bookkeeping, plus the event being appended when a single
// event is larger than the bound.
func New(maxBytes int) *Store {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Store{
		max:      maxBytes,
		sessions: map[string]map[string]*stream{},
		lru:      list.New(),
		evicted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "besluitbron_event_store_streams_evicted_total",
			Help: "Streams whose events were dropped to keep the event store within server.event_store_mb; a client can no longer resume them.",
		}),
		purged: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "besluitbron_event_store_events_purged_total",
			Help: "Oldest events of a single stream larger than the event store's bound, dropped.",
		}),
	}
}

// MaxBytes is the bound.
func (s *Store) MaxBytes() int { return s.max }

// Stats are the store's figures.
type Stats struct {
	// Bytes is the memory counted against the bound: payloads and
	// bookkeeping.
	Bytes int
	// Sessions and Streams are those with events kept.
	Sessions, Streams int
}

// Stats returns the store's figures now.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Bytes: s.used, Sessions: len(s.sessions), Streams: s.lru.Len()}
}

// Open implements [mcp.EventStore].
func (s *Store) Open(_ context.Context, sessionID, streamID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stream(sessionID, streamID, true)
	s.shrink(nil)
	return nil
}

// stream returns the stream, created if new, as the most recently
// written. The go-sdk opens every stream before writing it, so a stream
// written but not found was dropped: it is recreated as lost. s.mu is
// held.
func (s *Store) stream(sessionID, streamID string, open bool) *stream {
	m := s.sessions[sessionID]
	if m == nil {
		m = map[string]*stream{}
		s.sessions[sessionID] = m
	}
	st := m[streamID]
	if st == nil {
		st = &stream{session: sessionID, id: streamID, size: streamOverhead, lost: !open}
		st.elem = s.lru.PushBack(st)
		m[streamID] = st
		s.used += st.size
		return st
	}
	s.lru.MoveToBack(st.elem)
	return st
}

// Append implements [mcp.EventStore].
func (s *Store) Append(_ context.Context, sessionID, streamID string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stream(sessionID, streamID, false)
	if st.lost {
		return nil
	}
	st.data = append(st.data, data)
	n := len(data) + eventOverhead
	st.size += n
	s.used += n
	s.shrink(st)
	return nil
}

// shrink drops whole streams, least recently written first, until the
// store is within its bound; keep (the stream being written) goes last,
// and then loses its oldest events only, never the one just appended.
// s.mu is held.
func (s *Store) shrink(keep *stream) {
	for e := s.lru.Front(); s.used > s.max && e != nil; {
		next := e.Next()
		if st := e.Value.(*stream); st != keep {
			s.drop(st)
			s.evicted.Inc()
		}
		e = next
	}
	for keep != nil && s.used > s.max && len(keep.data) > 1 {
		n := len(keep.data[0]) + eventOverhead
		keep.data[0] = nil
		keep.data = keep.data[1:]
		keep.first++
		keep.size -= n
		s.used -= n
		s.purged.Inc()
	}
}

// drop forgets a stream. s.mu is held.
func (s *Store) drop(st *stream) {
	s.lru.Remove(st.elem)
	s.used -= st.size
	m := s.sessions[st.session]
	delete(m, st.id)
	if len(m) == 0 {
		delete(s.sessions, st.session)
	}
}

// After implements [mcp.EventStore]: the events after index, or
// [mcp.ErrEventsPurged] when one of them was dropped (the client must
// then start over rather than get an answer with a gap).
func (s *Store) After(_ context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	data, err := func() ([][]byte, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		st := s.sessions[sessionID][streamID]
		if st == nil || st.lost {
			return nil, fmt.Errorf("stream %q of this session is not kept (dropped to keep the event store within server.event_store_mb, or its session ended): %w", streamID, mcp.ErrEventsPurged)
		}
		start := index + 1 - st.first
		if start < 0 {
			return nil, fmt.Errorf("event %d of stream %q is no longer kept: %w", index+1, streamID, mcp.ErrEventsPurged)
		}
		if start >= len(st.data) {
			return nil, nil
		}
		return append([][]byte(nil), st.data[start:]...), nil
	}()
	return func(yield func([]byte, error) bool) {
		if err != nil {
			yield(nil, err)
			return
		}
		for _, d := range data {
			if !yield(d, nil) {
				return
			}
		}
	}
}

// SessionClosed implements [mcp.EventStore].
func (s *Store) SessionClosed(_ context.Context, sessionID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.sessions[sessionID] {
		s.drop(st)
	}
	return nil
}

// Collector returns the store's metrics: besluitbron_event_store_bytes,
// besluitbron_event_store_max_bytes, besluitbron_event_store_streams and
// the eviction counters.
func (s *Store) Collector() prometheus.Collector { return collector{s} }

var (
	bytesDesc   = prometheus.NewDesc("besluitbron_event_store_bytes", "Memory the event store counts against its bound (payloads and bookkeeping).", nil, nil)
	maxDesc     = prometheus.NewDesc("besluitbron_event_store_max_bytes", "The event store's bound (server.event_store_mb).", nil, nil)
	streamsDesc = prometheus.NewDesc("besluitbron_event_store_streams", "Streams whose events the event store keeps for resumption.", nil, nil)
)

type collector struct{ s *Store }

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- bytesDesc
	ch <- maxDesc
	ch <- streamsDesc
	c.s.evicted.Describe(ch)
	c.s.purged.Describe(ch)
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.Stats()
	ch <- prometheus.MustNewConstMetric(bytesDesc, prometheus.GaugeValue, float64(st.Bytes))
	ch <- prometheus.MustNewConstMetric(maxDesc, prometheus.GaugeValue, float64(c.s.max))
	ch <- prometheus.MustNewConstMetric(streamsDesc, prometheus.GaugeValue, float64(st.Streams))
	c.s.evicted.Collect(ch)
	c.s.purged.Collect(ch)
}

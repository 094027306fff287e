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
//
// Each session with events kept has a share of the bound: the bound
// divided by the number of such sessions. When the store is full, a
// session over its share loses its own streams first (least recently
// written first); a session within its share loses nothing while another
// is over its share. So one session's flood of answers evicts its own
// events, never the answer another client is waiting to resume (issue
// 27: a dropped client got "failed to replay events" for a call it had
// been charged for).
type Store struct {
	max int

	mu       sync.Mutex
	used     int
	streams  int
	sessions map[string]*session

	evicted, purged prometheus.Counter
}

// session is one session's streams, least recently written first.
type session struct {
	id      string
	used    int
	streams map[string]*stream
	lru     *list.List // of *stream
}

// stream is one stream's events: data[i] is the event with index first+i.
type stream struct {
	sess  *session
	id    string
	first int
	data  [][]byte
	// lost: the stream was dropped and then written again; the index of
	// its events is unknown, so it keeps none and cannot be resumed.
	lost bool
	size int // counted bytes, overheads included
	elem *list.Element
}

var _ mcp.EventStore = (*Store)(nil)

// New returns a Store that keeps at most maxBytes (≤ 0: [DefaultMaxBytes])
// of events and bookkeeping, plus the event being appended when a single
// event is larger than its session's share.
func New(maxBytes int) *Store {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Store{
		max:      maxBytes,
		sessions: map[string]*session{},
		evicted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "besluitbron_event_store_streams_evicted_total",
			Help: "Streams whose events were dropped to keep the event store within server.event_store_mb (from the sessions most over their share); a client can no longer resume them.",
		}),
		purged: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "besluitbron_event_store_events_purged_total",
			Help: "Oldest events of a single stream larger than its session's share of the event store, dropped.",
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
	return Stats{Bytes: s.used, Sessions: len(s.sessions), Streams: s.streams}
}

// Open implements [mcp.EventStore].
func (s *Store) Open(_ context.Context, sessionID, streamID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stream(sessionID, streamID, true)
	s.shrink(st)
	return nil
}

// stream returns the stream, created if new, as its session's most
// recently written. The go-sdk opens every stream before writing it, so a
// stream written but not found was dropped: it is recreated as lost. s.mu
// is held.
func (s *Store) stream(sessionID, streamID string, open bool) *stream {
	se := s.sessions[sessionID]
	if se == nil {
		se = &session{id: sessionID, streams: map[string]*stream{}, lru: list.New()}
		s.sessions[sessionID] = se
	}
	st := se.streams[streamID]
	if st == nil {
		st = &stream{sess: se, id: streamID, lost: !open}
		st.elem = se.lru.PushBack(st)
		se.streams[streamID] = st
		s.grow(st, streamOverhead)
		s.streams++
		return st
	}
	se.lru.MoveToBack(st.elem)
	return st
}

// grow counts n more bytes (negative: fewer) for st. s.mu is held.
func (s *Store) grow(st *stream, n int) {
	st.size += n
	st.sess.used += n
	s.used += n
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
	s.grow(st, len(data)+eventOverhead)
	s.shrink(st)
	return nil
}

// shrink brings the store within its bound after keep (the stream just
// opened or written) grew. The session writing loses its own streams
// first while it is over its share (least recently written first; keep
// last, and of keep only its oldest events, never the one just
// appended); then the session most over its share loses its least
// recently written stream. A session within its share loses nothing: by
// the pigeonhole principle, while the store is over its bound some other
// session is over its share. s.mu is held.
func (s *Store) shrink(keep *stream) {
	for s.used > s.max {
		share := s.max / len(s.sessions)
		if w := keep.sess; w.used > share {
			if e := w.lru.Front(); e.Value.(*stream) != keep {
				s.drop(e.Value.(*stream))
				s.evicted.Inc()
				continue
			}
			if len(keep.data) > 1 {
				n := len(keep.data[0]) + eventOverhead
				keep.data[0] = nil
				keep.data = keep.data[1:]
				keep.first++
				s.grow(keep, -n)
				s.purged.Inc()
				continue
			}
		}
		var most *session
		for _, se := range s.sessions {
			if se != keep.sess && (most == nil || se.used > most.used) {
				most = se
			}
		}
		if most == nil || most.used <= share {
			return // keep's last event alone is over its session's share
		}
		s.drop(most.lru.Front().Value.(*stream))
		s.evicted.Inc()
	}
}

// drop forgets a stream. s.mu is held.
func (s *Store) drop(st *stream) {
	se := st.sess
	se.lru.Remove(st.elem)
	s.grow(st, -st.size) // st.size is 0 after
	s.streams--
	delete(se.streams, st.id)
	if len(se.streams) == 0 {
		delete(s.sessions, se.id)
	}
}

// After implements [mcp.EventStore]: the events after index, or
// [mcp.ErrEventsPurged] when one of them was dropped (the client must
// then start over rather than get an answer with a gap).
func (s *Store) After(_ context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	data, err := func() ([][]byte, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		var st *stream
		if se := s.sessions[sessionID]; se != nil {
			st = se.streams[streamID]
		}
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
	if se := s.sessions[sessionID]; se != nil {
		for _, st := range se.streams {
			s.drop(st)
		}
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

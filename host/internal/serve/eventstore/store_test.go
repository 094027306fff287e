package eventstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var ctx = context.Background()

func after(t *testing.T, s *Store, session, stream string, index int) ([]string, error) {
	t.Helper()
	var out []string
	for d, err := range s.After(ctx, session, stream, index) {
		if err != nil {
			return out, err
		}
		out = append(out, string(d))
	}
	return out, nil
}

func TestReplayAfterIndex(t *testing.T) {
	s := New(1 << 20)
	s.Open(ctx, "S", "1")
	for _, d := range []string{"", "a", "b", "c"} { // index 0 is the priming event
		s.Append(ctx, "S", "1", []byte(d))
	}
	got, err := after(t, s, "S", "1", 1)
	if err != nil || fmt.Sprint(got) != "[b c]" {
		t.Fatalf("After(1) = %v, %v; want [b c]", got, err)
	}
	if got, err := after(t, s, "S", "1", 3); err != nil || len(got) != 0 {
		t.Fatalf("After(last) = %v, %v; want nothing", got, err)
	}
	if _, err := after(t, s, "T", "1", 0); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("After on an unknown session: %v, want ErrEventsPurged", err)
	}
	s.SessionClosed(ctx, "S")
	if st := s.Stats(); st != (Stats{}) {
		t.Fatalf("after SessionClosed: %+v, want empty", st)
	}
}

// The bound holds for the bookkeeping as well as the payloads: one
// session writing a hundred thousand short streams (as a long session of
// small calls does) stays within it, where the go-sdk's MemoryEventStore
// would keep every stream's entry until the session ends.
func TestBoundHoldsForManyStreams(t *testing.T) {
	const max = 256 << 10
	s := New(max)
	var before, later runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	payload := bytes.Repeat([]byte("x"), 200)
	for i := range 100_000 {
		id := fmt.Sprint(i)
		s.Open(ctx, "S", id)
		s.Append(ctx, "S", id, nil)
		s.Append(ctx, "S", id, bytes.Clone(payload))
		if st := s.Stats(); st.Bytes > max {
			t.Fatalf("after %d streams the store counts %d bytes, over its bound %d", i+1, st.Bytes, max)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&later)
	if grew := int64(later.HeapAlloc) - int64(before.HeapAlloc); grew > 2*max {
		t.Fatalf("the heap grew by %d bytes for a store bounded at %d", grew, max)
	}
	st := s.Stats()
	if st.Streams == 0 || st.Streams >= 100_000 {
		t.Fatalf("%d streams kept; want the most recent ones only", st.Streams)
	}
	// The newest stream is whole; the oldest is gone.
	if got, err := after(t, s, "S", "99999", 0); err != nil || len(got) != 1 {
		t.Fatalf("newest stream: %v, %v", got, err)
	}
	if _, err := after(t, s, "S", "0", 0); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("oldest stream: %v, want ErrEventsPurged", err)
	}
}

// Streams are dropped least recently written first: a stream still being
// written (a call waiting at a limit) outlives finished ones opened after
// it.
func TestEvictsLeastRecentlyWritten(t *testing.T) {
	s := New(4 * (streamOverhead + 2*eventOverhead + 100))
	s.Open(ctx, "S", "waiting")
	s.Append(ctx, "S", "waiting", nil)
	for i := range 10 {
		id := fmt.Sprint(i)
		s.Open(ctx, "S", id)
		s.Append(ctx, "S", id, bytes.Repeat([]byte("y"), 100))
		if i%2 == 0 {
			s.Append(ctx, "S", "waiting", []byte("progress"))
		}
	}
	if _, err := after(t, s, "S", "waiting", 0); err != nil {
		t.Fatalf("the stream written recently was dropped: %v", err)
	}
	if _, err := after(t, s, "S", "0", 0); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("stream 0: %v, want dropped", err)
	}
}

// A stream dropped and then written again cannot be resumed: its events'
// indexes are unknown, and a replay with a gap would be a wrong answer.
func TestDroppedStreamWrittenAgainIsLost(t *testing.T) {
	s := New(streamOverhead*2 + 3*eventOverhead + 10)
	s.Open(ctx, "S", "a")
	s.Append(ctx, "S", "a", []byte("1"))
	s.Open(ctx, "S", "b")
	s.Append(ctx, "S", "b", []byte("1234567890"))
	s.Open(ctx, "S", "c") // drops a
	if _, err := after(t, s, "S", "a", 0); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("a: %v, want dropped", err)
	}
	s.Append(ctx, "S", "a", []byte("2"))
	if _, err := after(t, s, "S", "a", 1); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("a written after it was dropped: %v, want ErrEventsPurged", err)
	}
}

// One event larger than the bound is kept (the answer must be
// deliverable) and the older events of its stream go.
func TestEventLargerThanBound(t *testing.T) {
	s := New(1000)
	s.Open(ctx, "S", "1")
	s.Append(ctx, "S", "1", []byte("old"))
	s.Append(ctx, "S", "1", bytes.Repeat([]byte("z"), 5000))
	got, err := after(t, s, "S", "1", 0)
	if err != nil || len(got) != 1 || len(got[0]) != 5000 {
		t.Fatalf("After(0) = %d events, %v; want the large one", len(got), err)
	}
	if _, err := after(t, s, "S", "1", -1); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("After(-1): %v, want ErrEventsPurged (event 0 was dropped)", err)
	}
	if st := s.Stats(); st.Bytes > 1000+5000+eventOverhead {
		t.Fatalf("%d bytes counted", st.Bytes)
	}
}

// One session's flood evicts its own streams, never another session's
// answer while that session is within its share (issue 27: a dropped
// client got "failed to replay events" for a call it was charged for).
func TestFloodEvictsItsOwnFirst(t *testing.T) {
	const max = 64 << 10
	s := New(max)
	s.Open(ctx, "dropped", "call")
	s.Append(ctx, "dropped", "call", nil)
	s.Append(ctx, "dropped", "call", bytes.Repeat([]byte("a"), 2000)) // its answer
	payload := bytes.Repeat([]byte("f"), 1000)
	for i := range 1000 {
		id := fmt.Sprint(i)
		s.Open(ctx, "flood", id)
		s.Append(ctx, "flood", id, nil)
		s.Append(ctx, "flood", id, payload)
		if st := s.Stats(); st.Bytes > max {
			t.Fatalf("after %d flood streams the store counts %d bytes, over its bound %d", i+1, st.Bytes, max)
		}
	}
	if got, err := after(t, s, "dropped", "call", 0); err != nil || len(got) != 1 || len(got[0]) != 2000 {
		t.Fatalf("the dropped client's answer after the flood: %d events, %v; want it whole", len(got), err)
	}
	if _, err := after(t, s, "flood", "0", 0); !errors.Is(err, mcp.ErrEventsPurged) {
		t.Fatalf("the flood's oldest stream: %v, want dropped", err)
	}
	if got, err := after(t, s, "flood", "999", 0); err != nil || len(got) != 1 {
		t.Fatalf("the flood's newest stream: %v, %v", got, err)
	}
}

// A session over its share loses its streams to a newcomer within its
// share: the shares follow the number of sessions with events kept.
func TestNewcomerTakesItsShareFromTheBiggest(t *testing.T) {
	const max = 16 << 10
	s := New(max)
	for i := range 100 {
		id := fmt.Sprint(i)
		s.Open(ctx, "big", id)
		s.Append(ctx, "big", id, bytes.Repeat([]byte("b"), 500))
	}
	s.Open(ctx, "new", "1")
	s.Append(ctx, "new", "1", bytes.Repeat([]byte("n"), 3000))
	if got, err := after(t, s, "new", "1", -1); err != nil || len(got) != 1 {
		t.Fatalf("the newcomer's stream: %v, %v", len(got), err)
	}
	if st := s.Stats(); st.Bytes > max || st.Sessions != 2 {
		t.Fatalf("%+v: want within %d bytes, 2 sessions", st, max)
	}
}

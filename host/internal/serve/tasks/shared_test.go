package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"
)

// memShared is a Shared in memory on a virtual clock, as Redis keeps
// records: each until its time to live.
type memShared struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]memRecord
}

type memRecord struct {
	b     []byte
	until time.Time
}

func (m *memShared) Put(_ context.Context, id string, b []byte, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[id] = memRecord{b, m.now().Add(ttl)}
	return nil
}

func (m *memShared) Get(_ context.Context, id string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.m[id]
	if !ok || !m.now().Before(r.until) {
		return nil, false, nil
	}
	return r.b, true, nil
}

// failingShared refuses every write.
type failingShared struct{ memShared }

func (f *failingShared) Put(context.Context, string, []byte, time.Duration) error {
	return errors.New("redis: connection refused")
}

// A task created on one replica is read on another through the shared
// records: while it works, once completed (with its result), never by
// another client, and not after its ttl. A task the shared store does not
// take is not created.
func TestSharedRecordsAnswerOnAnotherReplica(t *testing.T) {
	clk := newClock()
	sh := &memShared{now: clk.now, m: map[string]memRecord{}}
	a := New(Options{Now: clk.now, Keep: time.Minute, Shared: sh})
	b := New(Options{Now: clk.now, Keep: time.Minute, Shared: sh})
	ctx := context.Background()
	tk, err := a.Create(ctx, "key:newsroom", atLimit, noCancel)
	if err != nil {
		t.Fatal(err)
	}
	got, err := b.Get(ctx, "key:newsroom", tk.ID)
	if err != nil || got.Status != Working || got.Message != tk.Message {
		t.Fatalf("on the other replica: %+v, %v; want the working task", got, err)
	}
	if _, err := b.Get(ctx, "key:other", tk.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("another client on the other replica: %v, want ErrNotFound", err)
	}
	clk.advance(10 * time.Second)
	a.Complete(tk.ID, json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`), tooBig)
	got, err = b.Get(ctx, "key:newsroom", tk.ID)
	if err != nil || got.Status != Completed || string(got.Result) != `{"content":[{"type":"text","text":"ok"}]}` {
		t.Fatalf("completed, on the other replica: %+v, %v", got, err)
	}
	clk.advance(time.Minute)
	if _, err := b.Get(ctx, "key:newsroom", tk.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("after its ttl, on the other replica: %v, want ErrNotFound", err)
	}

	f := New(Options{Now: clk.now, Shared: &failingShared{}})
	if _, err := f.Create(ctx, "a", atLimit, noCancel); err == nil {
		t.Error("a task the shared store refused was created")
	}
	if n, _ := f.Len(); n != 0 {
		t.Errorf("%d tasks kept after the shared store refused, want 0", n)
	}
}

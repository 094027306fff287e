package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// vclock is a virtual clock the tests move by hand.
type vclock struct{ t time.Time }

func (c *vclock) now() time.Time          { return c.t }
func (c *vclock) advance(d time.Duration) { c.t = c.t.Add(d) }

func newClock() *vclock { return &vclock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)} }

var atLimit = Wait{Limit: "OpenBesluitvorming's limit", Refill: time.Second, Position: 3, ETA: 2 * time.Minute}

func noCancel(error) {}

func tooBig(size, room int64) json.RawMessage {
	return json.RawMessage(`{"isError":true}`)
}

// A task is readable by its client only, says where its call waits, and
// once completed keeps its result for Keep after the finish, then is
// forgotten (virtual time: the store reads only Options.Now).
func TestTaskLifecycleInVirtualTime(t *testing.T) {
	clk := newClock()
	s := New(Options{Now: clk.now, Keep: 5 * time.Minute})
	ctx := context.Background()
	tk, err := s.Create(ctx, "client:a", atLimit, noCancel)
	if err != nil {
		t.Fatal(err)
	}
	if len(tk.ID) < 26 {
		t.Errorf("task id %q: want 128 random bits (26 base32 characters)", tk.ID)
	}
	if tk.Status != Working {
		t.Errorf("status %q, want working", tk.Status)
	}
	for _, want := range []string{"OpenBesluitvorming's limit", "place 3", "about 2m0s", "12:02:00 UTC"} {
		if !strings.Contains(tk.Message, want) {
			t.Errorf("status message %q lacks %q", tk.Message, want)
		}
	}
	if tk.Poll != time.Second {
		t.Errorf("poll %v at place 3 with a refill of 1s, want 1s", tk.Poll)
	}
	if _, err := s.Get(ctx, "client:b", tk.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("another client's Get: %v, want ErrNotFound", err)
	}
	clk.advance(30 * time.Second)
	s.Queued(tk.ID, Wait{Limit: "OpenBesluitvorming's limit", Refill: time.Second, Position: 40, ETA: 90 * time.Second})
	got, _ := s.Get(ctx, "client:a", tk.ID)
	if !strings.Contains(got.Message, "place 40") || got.Poll != 10*time.Second {
		t.Errorf("after a move: %q, poll %v; want place 40 and 10 s (a quarter of the places at 1 s each)", got.Message, got.Poll)
	}
	s.Started(tk.ID)
	clk.advance(time.Minute)
	s.Complete(tk.ID, json.RawMessage(`{"content":[]}`), tooBig)
	got, err = s.Get(ctx, "client:a", tk.ID)
	if err != nil || got.Status != Completed || string(got.Result) != `{"content":[]}` {
		t.Fatalf("completed task: %+v, %v", got, err)
	}
	if want := 90*time.Second + 5*time.Minute; got.TTL != want {
		t.Errorf("ttl %v, want %v (from creation to Keep after the finish)", got.TTL, want)
	}
	s.Fail(tk.ID, -32603, "late")
	if got, _ := s.Get(ctx, "client:a", tk.ID); got.Status != Completed {
		t.Errorf("a completed task became %q: terminal states are never left", got.Status)
	}
	clk.advance(5*time.Minute - time.Nanosecond)
	if _, err := s.Get(ctx, "client:a", tk.ID); err != nil {
		t.Errorf("just before its ttl: %v", err)
	}
	clk.advance(time.Nanosecond)
	if _, err := s.Get(ctx, "client:a", tk.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("at its ttl: %v, want ErrNotFound", err)
	}
	if n, b := s.Len(); n != 0 || b != 0 {
		t.Errorf("after expiry the store holds %d tasks, %d bytes; want none", n, b)
	}
}

// Cancel ends the call's context with the cause at once and the task is
// cancelled; another client cannot cancel it.
func TestCancelEndsTheCall(t *testing.T) {
	clk := newClock()
	s := New(Options{Now: clk.now})
	ctx, cancel := context.WithCancelCause(context.Background())
	tk, err := s.Create(context.Background(), "client:a", atLimit, cancel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Cancel(context.Background(), "client:b", tk.ID, errors.New("x")); !errors.Is(err, ErrNotFound) {
		t.Errorf("another client's cancel: %v, want ErrNotFound", err)
	}
	if ctx.Err() != nil {
		t.Fatal("another client's cancel ended the call")
	}
	why := errors.New("tasks/cancel")
	if _, err := s.Cancel(context.Background(), "client:a", tk.ID, why); err != nil {
		t.Fatal(err)
	}
	if context.Cause(ctx) != why {
		t.Errorf("the call's context: cause %v, want the cancel's", context.Cause(ctx))
	}
	got, _ := s.Get(context.Background(), "client:a", tk.ID)
	if got.Status != Cancelled || !strings.Contains(got.Message, "cancelled by the client") {
		t.Errorf("after cancel: %q %q", got.Status, got.Message)
	}
	s.Complete(tk.ID, json.RawMessage(`{}`), tooBig)
	if got, _ := s.Get(context.Background(), "client:a", tk.ID); got.Status != Cancelled {
		t.Errorf("a cancelled task became %q", got.Status)
	}
}

// A task still working MaxLife past the start its queue expects for it
// is cancelled by the server, its call ended; not sooner: a task far back
// in a long queue (3 h at place 10,000) lives until its turn and MaxLife
// beyond, and a later estimate reported meanwhile lengthens its life (an
// earlier one never shortens it). Its ttlMs says the same.
func TestMaxLifeCountsFromTheExpectedStart(t *testing.T) {
	clk := newClock()
	s := New(Options{Now: clk.now, MaxLife: time.Hour, Keep: 10 * time.Minute})
	far := Wait{Limit: "OpenBesluitvorming's limit", Refill: time.Second, Position: 10000, ETA: 3 * time.Hour}
	ctx, cancel := context.WithCancelCause(context.Background())
	tk, _ := s.Create(context.Background(), "client:a", far, cancel)
	if tk.TTL != 4*time.Hour+10*time.Minute {
		t.Errorf("ttl %v, want the expected start, MaxLife and Keep: 4h10m", tk.TTL)
	}
	clk.advance(2 * time.Hour)
	// Two hours on, its queue now expects it in 1h30m: later than said.
	s.Queued(tk.ID, Wait{Limit: far.Limit, Refill: time.Second, Position: 5400, ETA: 90 * time.Minute})
	clk.advance(30 * time.Minute)
	// And then sooner: the life stays.
	s.Queued(tk.ID, Wait{Limit: far.Limit, Refill: time.Second, Position: 10, ETA: 10 * time.Second})
	clk.advance(time.Hour + 59*time.Minute) // 4h29m: before 2h + 1h30m + 1h
	if got, _ := s.Get(context.Background(), "client:a", tk.ID); got.Status != Working || ctx.Err() != nil {
		t.Fatalf("4h29m after creation, its life 4h30m: %q %q, call ended %v", got.Status, got.Message, ctx.Err() != nil)
	}
	clk.advance(time.Minute)
	got, _ := s.Get(context.Background(), "client:a", tk.ID)
	if got.Status != Cancelled || !strings.Contains(got.Message, "1h0m0s past the start its queue expected") || ctx.Err() == nil {
		t.Errorf("after its life: %q %q, call ended %v", got.Status, got.Message, ctx.Err() != nil)
	}
	// A task that expects to start at once lives MaxLife.
	ctx2, cancel2 := context.WithCancelCause(context.Background())
	tk2, _ := s.Create(context.Background(), "client:a", Wait{Instances: 3}, cancel2)
	clk.advance(time.Hour)
	if got, _ := s.Get(context.Background(), "client:a", tk2.ID); got.Status != Cancelled || ctx2.Err() == nil {
		t.Errorf("an hour after creation with no wait expected: %q, call ended %v", got.Status, ctx2.Err() != nil)
	}
}

// The bounds: tasks per client and in all, bytes per client and in all;
// each refusal names its bound, and room comes back when tasks expire.
func TestStoreBounds(t *testing.T) {
	clk := newClock()
	ctx := context.Background()
	s := New(Options{Now: clk.now, Keep: time.Minute, MaxTasks: 3, MaxPerClient: 2})
	a1, _ := s.Create(ctx, "a", atLimit, noCancel)
	s.Create(ctx, "a", atLimit, noCancel)
	_, err := s.Create(ctx, "a", atLimit, noCancel)
	var fe *FullError
	if !errors.As(err, &fe) || fe.Bound != "server.max_tasks_per_client" || !strings.Contains(err.Error(), "server.max_tasks_per_client reached (2 tasks)") {
		t.Errorf("third task of a: %v, want server.max_tasks_per_client reached (2 tasks)", err)
	}
	if _, err := s.Create(ctx, "b", atLimit, noCancel); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, "c", atLimit, noCancel); !errors.As(err, &fe) || fe.Bound != "server.max_tasks" {
		t.Errorf("fourth task: %v, want max_tasks", err)
	}
	s.Complete(a1.ID, json.RawMessage(`{}`), tooBig)
	clk.advance(time.Minute)
	if _, err := s.Create(ctx, "c", atLimit, noCancel); err != nil {
		t.Errorf("after a task expired: %v", err)
	}

	s = New(Options{Now: clk.now, MaxBytesPerClient: 2 * entryOverhead, MaxBytes: 3 * entryOverhead})
	b1, err := s.Create(ctx, "a", atLimit, noCancel)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, "a", atLimit, noCancel); !errors.As(err, &fe) || fe.Bound != "server.tasks_mb_per_client" {
		t.Errorf("second task of a: %v, want max_bytes_per_client", err)
	}
	s.Create(ctx, "b", atLimit, noCancel)
	if _, err := s.Create(ctx, "c", atLimit, noCancel); !errors.As(err, &fe) || fe.Bound != "server.tasks_mb" {
		t.Errorf("third task: %v, want max_bytes", err)
	}
	// A result over the room left is replaced by tooBig's.
	var gotSize, gotRoom int64
	s.Complete(b1.ID, json.RawMessage(strings.Repeat("x", 4*entryOverhead)), func(size, room int64) json.RawMessage {
		gotSize, gotRoom = size, room
		return json.RawMessage(`{"isError":true}`)
	})
	got, _ := s.Get(ctx, "a", b1.ID)
	if string(got.Result) != `{"isError":true}` || gotSize != 4*entryOverhead || gotRoom <= 0 || gotRoom >= entryOverhead {
		t.Errorf("oversized result: kept %q, told size %d room %d", got.Result, gotSize, gotRoom)
	}
}

// Declared reads the extension from a request's _meta.
func TestDeclared(t *testing.T) {
	var meta map[string]any
	json.Unmarshal([]byte(`{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`), &meta)
	if !Declared(meta) {
		t.Error("the extension declared in _meta: not seen")
	}
	for _, bad := range []string{`{}`, `{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":true}}}`,
		`{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"other":{}}}}`} {
		var m map[string]any
		json.Unmarshal([]byte(bad), &m)
		if Declared(m) {
			t.Errorf("%s: seen as declaring the extension", bad)
		}
	}
	if Declared(nil) {
		t.Error("nil meta declares")
	}
}

// An input_required task shows its questions, counts them in its
// client's bytes while they wait (a question that does not fit is not
// recorded), and is working again once Resumed, its bytes given back.
func TestInputRequiredAndResumed(t *testing.T) {
	clk := newClock()
	ctx := context.Background()
	s := New(Options{Now: clk.now, MaxBytesPerClient: 2 * entryOverhead})
	tk, err := s.Create(ctx, "a", atLimit, noCancel)
	if err != nil {
		t.Fatal(err)
	}
	_, before := s.Len()
	q := json.RawMessage(`{"organisation":{"method":"elicitation/create","params":{"message":"Which Bergen?"}}}`)
	if !s.InputRequired(tk.ID, q) {
		t.Fatal("a small question was not recorded")
	}
	got, _ := s.Get(ctx, "a", tk.ID)
	if got.Status != InputRequired || string(got.InputRequests) != string(q) || got.Poll != MinPoll || !strings.Contains(got.Message, "tasks/update") {
		t.Fatalf("input_required task: %+v", got)
	}
	if _, n := s.Len(); n != before+int64(len(q)) {
		t.Errorf("bytes %d while asking, want %d", n, before+int64(len(q)))
	}
	if s.InputRequired(tk.ID, json.RawMessage(strings.Repeat("x", 2*entryOverhead))) {
		t.Error("a question larger than the client's room was recorded")
	}
	s.Resumed(tk.ID)
	got, _ = s.Get(ctx, "a", tk.ID)
	if got.Status != Working || got.InputRequests != nil {
		t.Errorf("resumed task: %+v", got)
	}
	if _, n := s.Len(); n != before {
		t.Errorf("bytes %d after resuming, want %d", n, before)
	}
	// A finished task is asked nothing.
	s.Complete(tk.ID, json.RawMessage(`{}`), tooBig)
	if s.InputRequired(tk.ID, q) {
		t.Error("a completed task became input_required")
	}
}

package tasks

import (
	"container/heap"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// The statuses of a task (extension, "Task Status").
const (
	Working       = "working"
	InputRequired = "input_required"
	Completed     = "completed"
	Failed        = "failed"
	Cancelled     = "cancelled"
)

// Terminal reports whether status is one a task never leaves.
func Terminal(status string) bool {
	return status == Completed || status == Failed || status == Cancelled
}

// Defaults of [Options].
const (
	DefaultKeep              = 10 * time.Minute
	DefaultMaxLife           = time.Hour
	DefaultMaxTasks          = 20000
	DefaultMaxBytes          = 64 << 20
	DefaultMaxPerClient      = 1000
	DefaultMaxBytesPerClient = 8 << 20
)

// Options configure a [Store]. Zero values take the defaults.
type Options struct {
	// Now is the clock (nil: time.Now). Nothing in the store reads time
	// otherwise.
	Now func() time.Time
	// Keep is how long a finished task (its result, or why it failed or
	// was cancelled) is kept after it finished.
	Keep time.Duration
	// MaxLife is how long a task may work past the start its queue
	// expects for it: one still working then is cancelled, its call's
	// context ended. The expected start is the latest its call's waits
	// have reported (Wait.ETA from the report), so a task far back in a
	// long queue lives until its turn and MaxLife beyond, and no longer:
	// every queue's estimate is finite (the store's own bounds cap the
	// calls waiting), and MaxLife bounds a task whose queue stops moving.
	MaxLife time.Duration
	// MaxTasks and MaxBytes bound the tasks kept in all; MaxPerClient
	// and MaxBytesPerClient those of one client.
	MaxTasks          int
	MaxBytes          int64
	MaxPerClient      int
	MaxBytesPerClient int64
	// Shared, when set, holds every task's record for the other replicas
	// (see the package doc).
	Shared Shared
	// Replica is this replica's id, written in its tasks' records: when
	// Shared is also a Forwarder, a cancel another replica receives for
	// one of them is forwarded here.
	Replica string
}

// Task is a task as a client sees it.
type Task struct {
	ID     string
	Status string
	// Message says where the call stands (statusMessage).
	Message string
	Created time.Time
	Updated time.Time
	// TTL counts from Created: while working, up to MaxLife and Keep;
	// once finished, until Keep after the finish.
	TTL time.Duration
	// Poll is the suggested polling interval.
	Poll time.Duration
	// Result is the call's result (Completed), as JSON.
	Result json.RawMessage
	// ErrCode and ErrMessage are the JSON-RPC error of a Failed task.
	ErrCode    int
	ErrMessage string
	// InputRequests are the questions an InputRequired task waits on, as
	// the JSON of an inputRequests map (the extension's overview, "Task
	// lifecycle": "See inputRequests").
	InputRequests json.RawMessage
}

// ErrNotFound is the error of a task id the store does not hold: never
// created, expired, or created by another client.
var ErrNotFound = errors.New("task not found: unknown, expired after its ttlMs, or not created by this client")

// FullError is the error of a task the store has no room for.
type FullError struct {
	// Bound names the configuration key of the bound that is reached
	// ("server.max_tasks", "server.max_tasks_per_client",
	// "server.tasks_mb", "server.tasks_mb_per_client"); Limit is in
	// tasks or bytes.
	Bound string
	Limit int64
}

func (e *FullError) Error() string {
	unit := "tasks"
	if strings.HasSuffix(e.Bound, "_mb") || strings.HasSuffix(e.Bound, "_mb_per_client") {
		unit = "bytes"
	}
	return fmt.Sprintf("the task store is full: %s reached (%d %s); the call runs without a task", e.Bound, e.Limit, unit)
}

// Store keeps the tasks of one replica.
type Store struct {
	o Options

	mu      sync.Mutex
	byID    map[string]*entry
	clients map[string]*use
	n       int
	bytes   int64
	// live are the working entries by when their life ends (a heap;
	// lives only lengthen); done the finished ones in order of expiry
	// (Keep is one duration, and the clock does not run backwards),
	// swept from the front.
	live lifeHeap
	done []*entry
}

type use struct {
	n     int
	bytes int64
}

// entry is one task. Its size counts its strings and result, and a fixed
// share for the record itself.
type entry struct {
	id, owner string
	status    string
	created   time.Time
	updated   time.Time
	finished  time.Time // zero while working
	wait      Wait      // where the call waits, as last reported
	waitAt    time.Time // when wait was reported
	started   bool      // the call left the queue it waited in
	result    json.RawMessage
	errCode   int
	errMsg    string
	message   string          // set on terminal states (why cancelled, failed)
	inputs    json.RawMessage // the questions of an input_required task
	size      int64
	cancel    context.CancelCauseFunc
	gone      bool      // removed from the store
	life      time.Time // a working task is cancelled then (MaxLife)
	lidx      int       // its index in Store.live while working
}

// entryOverhead is what one entry costs beside its strings: the struct,
// its map slot and its places in the two sweep lists.
const entryOverhead = 320

// New returns an empty store.
func New(o Options) *Store {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Keep <= 0 {
		o.Keep = DefaultKeep
	}
	if o.MaxLife <= 0 {
		o.MaxLife = DefaultMaxLife
	}
	if o.MaxTasks <= 0 {
		o.MaxTasks = DefaultMaxTasks
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxPerClient <= 0 {
		o.MaxPerClient = DefaultMaxPerClient
	}
	if o.MaxBytesPerClient <= 0 {
		o.MaxBytesPerClient = DefaultMaxBytesPerClient
	}
	return &Store{o: o, byID: map[string]*entry{}, clients: map[string]*use{}}
}

// Keep is how long a finished task is kept.
func (s *Store) Keep() time.Duration { return s.o.Keep }

// Room reports, with a *FullError naming the bound, when owner could not
// create a task now: a call that could not become one runs as an ordinary
// call from the start.
func (s *Store) Room(owner string) error {
	s.mu.Lock()
	ended := s.sweepLocked(s.o.Now())
	err := s.roomLocked(owner, entryOverhead+int64(len(owner)))
	s.mu.Unlock()
	s.endAll(ended)
	return err
}

// roomLocked is the bound a new task of size would pass, as a *FullError.
func (s *Store) roomLocked(owner string, size int64) error {
	u := s.clients[owner]
	if u == nil {
		u = &use{}
	}
	switch {
	case s.n >= s.o.MaxTasks:
		return &FullError{Bound: "server.max_tasks", Limit: int64(s.o.MaxTasks)}
	case u.n >= s.o.MaxPerClient:
		return &FullError{Bound: "server.max_tasks_per_client", Limit: int64(s.o.MaxPerClient)}
	case s.bytes+size > s.o.MaxBytes:
		return &FullError{Bound: "server.tasks_mb", Limit: s.o.MaxBytes}
	case u.bytes+size > s.o.MaxBytesPerClient:
		return &FullError{Bound: "server.tasks_mb_per_client", Limit: s.o.MaxBytesPerClient}
	}
	return nil
}

// Create keeps a new working task of owner (the name the call is charged
// to) waiting as w, whose call's context cancel ends. It fails with a
// *FullError when a bound is reached, or with the shared store's error.
func (s *Store) Create(ctx context.Context, owner string, w Wait, cancel context.CancelCauseFunc) (Task, error) {
	if owner == "" {
		return Task{}, errors.New("tasks: a task needs the client it belongs to")
	}
	if cancel == nil {
		return Task{}, errors.New("tasks: a task needs its call's cancel function")
	}
	now := s.o.Now()
	e := &entry{id: rand.Text(), owner: owner, status: Working, created: now, updated: now, wait: w, waitAt: now, cancel: cancel,
		life: now.Add(max(0, w.ETA) + s.o.MaxLife), lidx: -1}
	e.size = entryOverhead + int64(len(e.id)+len(owner)+len(w.Limit))
	s.mu.Lock()
	ended := s.sweepLocked(now)
	err := s.roomLocked(owner, e.size)
	if err == nil {
		u := s.clients[owner]
		if u == nil {
			u = &use{}
			s.clients[owner] = u
		}
		s.byID[e.id] = e
		s.n++
		s.bytes += e.size
		u.n++
		u.bytes += e.size
		heap.Push(&s.live, e)
	}
	t := s.viewLocked(e, now)
	s.mu.Unlock()
	s.endAll(ended)
	if err != nil {
		return Task{}, err
	}
	if sh := s.o.Shared; sh != nil {
		// The task must be readable everywhere before its handle is
		// given out (extension, "Task Creation").
		if err := put(ctx, sh, recordOf(s.o.Replica, owner, t), now); err != nil {
			s.remove(e)
			return Task{}, fmt.Errorf("tasks: the shared store did not take the task: %w", err)
		}
	}
	return t, nil
}

// Queued records where a task's call waits now.
func (s *Store) Queued(id string, w Wait) {
	s.change(id, func(e *entry, now time.Time) bool {
		if e.status != Working {
			return false
		}
		e.wait, e.waitAt, e.started = w, now, false
		if l := now.Add(max(0, w.ETA) + s.o.MaxLife); l.After(e.life) {
			// A later expected start lengthens the task's life; an
			// earlier one never shortens it.
			e.life = l
			heap.Fix(&s.live, e.lidx)
		}
		return true
	})
}

// Started records that a task's call left the queue it waited in: it is
// being answered.
func (s *Store) Started(id string) {
	s.change(id, func(e *entry, now time.Time) bool {
		if e.status != Working || e.started {
			return false
		}
		e.started = true
		return true
	})
}

// Complete records a task's result (the JSON of its tools/call result). A
// result the store has no room for is replaced by tooBig(size, room), a
// smaller result saying so.
func (s *Store) Complete(id string, result json.RawMessage, tooBig func(size, room int64) json.RawMessage) {
	s.change(id, func(e *entry, now time.Time) bool {
		if e.status != Working && e.status != InputRequired {
			return false
		}
		u := s.clients[e.owner]
		add := int64(len(result))
		room := min(s.o.MaxBytes-s.bytes, s.o.MaxBytesPerClient-u.bytes)
		if add > room {
			result = tooBig(add, max(0, room))
			add = int64(len(result))
		}
		e.result = result
		s.grow(e, add)
		s.finishLocked(e, Completed, now)
		return true
	})
}

// InputRequired records that a task's call waits for its client's answers
// to requests (the JSON of an inputRequests map, never empty): the task
// is input_required until Resumed. A request larger than the room its
// client has left is not recorded, and false says so (the call then goes
// on without asking).
func (s *Store) InputRequired(id string, requests json.RawMessage) bool {
	ok := false
	s.change(id, func(e *entry, _ time.Time) bool {
		if Terminal(e.status) {
			return false
		}
		add := int64(len(requests)) - int64(len(e.inputs))
		u := s.clients[e.owner]
		if add > 0 && add > min(s.o.MaxBytes-s.bytes, s.o.MaxBytesPerClient-u.bytes) {
			return false
		}
		s.grow(e, add)
		e.status, e.inputs, ok = InputRequired, requests, true
		return true
	})
	return ok
}

// Resumed records that a task's call has every answer it waited for: it
// is working again.
func (s *Store) Resumed(id string) {
	s.change(id, func(e *entry, _ time.Time) bool {
		if e.status != InputRequired {
			return false
		}
		s.grow(e, -int64(len(e.inputs)))
		e.status, e.inputs = Working, nil
		return true
	})
}

// Fail records that a task's call ended in a JSON-RPC error.
func (s *Store) Fail(id string, code int, message string) {
	s.change(id, func(e *entry, now time.Time) bool {
		if Terminal(e.status) {
			return false
		}
		e.errCode, e.errMsg = code, message
		s.grow(e, int64(len(message)))
		s.finishLocked(e, Failed, now)
		return true
	})
}

// Cancel ends owner's task id: its call's context is cancelled with
// cause (so it leaves the fair queue at once and is never sent), and the
// task is cancelled. A task already finished stays as it is (the
// extension: cancellation may come too late). A task whose call runs on
// another replica is cancelled there, when the shared store can forward
// the cancel (Forwarder): Cancel returns once that replica has answered,
// its call ended. ErrNotFound when owner has no such task, here or where
// its record names.
//
// Local reports whether the call ran here: its caller then waits for the
// call to return (the other replica's did, for a forwarded cancel).
func (s *Store) Cancel(ctx context.Context, owner, id string, cause error) (local bool, err error) {
	local, err = s.CancelHere(owner, id, cause)
	if local || err != nil {
		return local, err
	}
	return false, s.forwardCancel(ctx, owner, id, s.o.Now())
}

// CancelHere is Cancel for a task this replica holds, never forwarded:
// found is false when it holds no task id; ErrNotFound when the task here
// is another client's.
func (s *Store) CancelHere(owner, id string, cause error) (found bool, err error) {
	now := s.o.Now()
	s.mu.Lock()
	ended := s.sweepLocked(now)
	e := s.byID[id]
	if e == nil || e.owner != owner {
		s.mu.Unlock()
		s.endAll(ended)
		if e != nil {
			return false, ErrNotFound
		}
		return false, nil
	}
	var stop context.CancelCauseFunc
	var t Task
	if !Terminal(e.status) {
		e.message = "cancelled by the client: " + cause.Error()
		s.grow(e, int64(len(e.message)))
		stop = e.cancel
		s.finishLocked(e, Cancelled, now)
		t = s.viewLocked(e, now)
	}
	s.mu.Unlock()
	s.endAll(ended)
	if stop != nil {
		stop(cause)
		s.write(e.owner, t)
	}
	return true, nil
}

// forwardCancel cancels owner's task id on the replica its shared record
// names.
func (s *Store) forwardCancel(ctx context.Context, owner, id string, now time.Time) error {
	f, ok := s.o.Shared.(Forwarder)
	if !ok || len(id) > maxID {
		return ErrNotFound
	}
	r, ok, err := get(ctx, s.o.Shared, id)
	switch {
	case err != nil:
		return fmt.Errorf("tasks: the shared store could not be read: %w", err)
	case !ok || r.Owner != owner || !now.Before(r.Created.Add(r.TTL)):
		return ErrNotFound
	case Terminal(r.Status):
		return nil // too late: it stays as it finished
	case r.Replica == "" || r.Replica == s.o.Replica:
		// Its call was here and is not any more (this replica
		// restarted): nothing runs that a cancel could end.
		return ErrNotFound
	}
	found, err := f.ForwardCancel(ctx, r.Replica, owner, id)
	if err != nil {
		return fmt.Errorf("tasks: cancelling task %s on replica %s: %w", id, r.Replica, err)
	}
	if !found {
		return ErrNotFound
	}
	return nil
}

// Get returns owner's task id as it stands now. A task this replica does
// not hold is read from the shared store, when there is one.
func (s *Store) Get(ctx context.Context, owner, id string) (Task, error) {
	now := s.o.Now()
	s.mu.Lock()
	ended := s.sweepLocked(now)
	e := s.byID[id]
	var t Task
	if e != nil && e.owner == owner {
		t = s.viewLocked(e, now)
	}
	s.mu.Unlock()
	s.endAll(ended)
	if e != nil {
		if e.owner != owner {
			return Task{}, ErrNotFound
		}
		return t, nil
	}
	if s.o.Shared == nil {
		return Task{}, ErrNotFound
	}
	if len(id) > maxID {
		return Task{}, ErrNotFound
	}
	r, ok, err := get(ctx, s.o.Shared, id)
	if err != nil {
		return Task{}, fmt.Errorf("tasks: the shared store could not be read: %w", err)
	}
	if !ok || r.Owner != owner || !now.Before(r.Created.Add(r.TTL)) {
		return Task{}, ErrNotFound
	}
	return r.task(), nil
}

// Len is the number of tasks kept and their bytes, after expiring what is
// due.
func (s *Store) Len() (n int, bytes int64) {
	s.mu.Lock()
	ended := s.sweepLocked(s.o.Now())
	n, bytes = s.n, s.bytes
	s.mu.Unlock()
	s.endAll(ended)
	return n, bytes
}

// change applies f to task id under the lock; when f reports a change the
// task's update time moves and the shared store is told.
func (s *Store) change(id string, f func(e *entry, now time.Time) bool) {
	now := s.o.Now()
	s.mu.Lock()
	ended := s.sweepLocked(now)
	e := s.byID[id]
	changed := e != nil && f(e, now)
	var t Task
	if changed {
		e.updated = now
		t = s.viewLocked(e, now)
	}
	s.mu.Unlock()
	s.endAll(ended)
	if changed {
		s.write(e.owner, t)
	}
}

// write passes a task's new state on to the shared store. It is best
// effort: a replica that cannot write keeps answering its own clients,
// and the others read the last state written.
func (s *Store) write(owner string, t Task) {
	if s.o.Shared == nil {
		return
	}
	put(context.Background(), s.o.Shared, recordOf(s.o.Replica, owner, t), s.o.Now())
}

// maxID bounds a task id a client sends: ids are 26 characters.
const maxID = 64

// grow adds n bytes to a task's size and its client's and the store's.
func (s *Store) grow(e *entry, n int64) {
	e.size += n
	s.bytes += n
	s.clients[e.owner].bytes += n
}

// finishLocked makes e terminal at now: it is kept for Keep from now.
func (s *Store) finishLocked(e *entry, status string, now time.Time) {
	e.status, e.finished, e.updated = status, now, now
	e.cancel = nil
	if e.lidx >= 0 {
		heap.Remove(&s.live, e.lidx)
	}
	s.done = append(s.done, e)
}

// remove forgets e.
func (s *Store) remove(e *entry) {
	s.mu.Lock()
	s.removeLocked(e)
	s.mu.Unlock()
}

func (s *Store) removeLocked(e *entry) {
	if e.gone {
		return
	}
	e.gone = true
	if e.lidx >= 0 {
		heap.Remove(&s.live, e.lidx)
	}
	delete(s.byID, e.id)
	s.n--
	s.bytes -= e.size
	u := s.clients[e.owner]
	u.n--
	u.bytes -= e.size
	if u.n == 0 {
		delete(s.clients, e.owner)
	}
}

// ended is a task cancelled by the sweep, whose call is ended after the
// lock is let go.
type ended struct {
	cancel context.CancelCauseFunc
	cause  error
}

// sweepLocked forgets the finished tasks whose Keep has passed and
// cancels those working longer than MaxLife; it returns the calls to end.
func (s *Store) sweepLocked(now time.Time) []ended {
	for len(s.done) > 0 && !now.Before(s.done[0].finished.Add(s.o.Keep)) {
		s.removeLocked(s.done[0])
		s.done[0] = nil
		s.done = s.done[1:]
	}
	var out []ended
	for len(s.live) > 0 {
		e := s.live[0]
		if now.Before(e.life) {
			break
		}
		cause := fmt.Errorf("the task worked %s past the start its queue expected for it, this server's limit (server.task_max_life)", s.o.MaxLife)
		e.message = "cancelled by the server: " + cause.Error()
		s.grow(e, int64(len(e.message)))
		out = append(out, ended{e.cancel, cause})
		s.finishLocked(e, Cancelled, now) // takes it out of live
	}
	return out
}

// lifeHeap is the working entries, soonest life's end first.
type lifeHeap []*entry

func (h lifeHeap) Len() int           { return len(h) }
func (h lifeHeap) Less(i, j int) bool { return h[i].life.Before(h[j].life) }
func (h lifeHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].lidx, h[j].lidx = i, j
}

func (h *lifeHeap) Push(x any) {
	e := x.(*entry)
	e.lidx = len(*h)
	*h = append(*h, e)
}

func (h *lifeHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	e.lidx = -1
	return e
}

func (s *Store) endAll(es []ended) {
	for _, e := range es {
		e.cancel(e.cause)
	}
}

// viewLocked is e as a client sees it at now.
func (s *Store) viewLocked(e *entry, now time.Time) Task {
	t := Task{ID: e.id, Status: e.status, Created: e.created, Updated: e.updated,
		Result: e.result, ErrCode: e.errCode, ErrMessage: e.errMsg}
	if Terminal(e.status) {
		t.TTL = e.finished.Add(s.o.Keep).Sub(e.created)
		t.Message = e.message
		if e.status == Completed {
			t.Message = "completed: the result is kept until " + e.finished.Add(s.o.Keep).UTC().Format(time.TimeOnly) + " UTC"
		}
		if e.status == Failed {
			t.Message = "failed: " + e.errMsg
		}
		return t
	}
	t.TTL = e.life.Sub(e.created) + s.o.Keep
	if e.status == InputRequired {
		// A person answers: poll at the floor, the answer is the
		// client's to send.
		t.InputRequests = e.inputs
		t.Message = "waiting for the client's input: answer inputRequests with tasks/update (inputResponses under the same keys)"
		t.Poll = MinPoll
		return t
	}
	t.Message = e.wait.message(e.waitAt, e.started)
	t.Poll = e.wait.poll(e.started)
	return t
}

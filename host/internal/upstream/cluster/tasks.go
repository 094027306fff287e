package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// keyTask prefixes the record of one MCP task (serve/tasks), under the
// one hash tag of every key here.
const keyTask = keyRoot + "task:"

// maxTaskKey bounds a task id used as a key: ids are 26 characters, and a
// longer one a client sends is no task.
const maxTaskKey = 64

// TaskRecords keeps the records of MCP tasks in Redis, so that tasks/get
// answers on every replica (serve/tasks' Shared, which the host hands
// this to). The fetch path knows nothing of tasks: a record is bytes
// under an id, kept for its time to live.
type TaskRecords struct{ c *Cluster }

// TaskRecords is the cluster's store of task records.
func (c *Cluster) TaskRecords() *TaskRecords { return &TaskRecords{c} }

// Put writes a task's record, kept for ttl.
func (t *TaskRecords) Put(ctx context.Context, id string, record []byte, ttl time.Duration) error {
	if id == "" || len(id) > maxTaskKey {
		return fmt.Errorf("cluster: a task id of %d bytes; want 1 to %d", len(id), maxTaskKey)
	}
	if ttl <= 0 {
		return fmt.Errorf("cluster: task %s: a time to live of %v; want more than zero", id, ttl)
	}
	ctx, cancel := context.WithTimeout(ctx, t.c.o.Timeout)
	defer cancel()
	return t.c.rdb.Set(ctx, keyTask+id, record, ttl).Err()
}

// Get reads a task's record; ok is false when there is none (never
// written, or its time to live has passed).
func (t *TaskRecords) Get(ctx context.Context, id string) (record []byte, ok bool, err error) {
	if id == "" || len(id) > maxTaskKey {
		return nil, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, t.c.o.Timeout)
	defer cancel()
	b, err := t.c.rdb.Get(ctx, keyTask+id).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// keyTaskCancels prefixes each replica's channel for the tasks/cancel
// other replicas forward to it and for the answers to its own.
const keyTaskCancels = keyRoot + "taskcancel:"

// ErrNoReplica is the error of a cancel forwarded to a replica that no
// longer listens (it stopped, and its calls with it).
var ErrNoReplica = errors.New("the replica holding the task's call is not running")

// cancelMsg is a forwarded cancel (Answer false) or its answer, on the
// channel of the replica it is for.
type cancelMsg struct {
	Req    string `json:"req"`  // the asking replica's id for the request
	From   string `json:"from"` // the asking replica: the answer goes to its channel
	Owner  string `json:"owner,omitempty"`
	ID     string `json:"id,omitempty"`
	Answer bool   `json:"answer,omitempty"`
	Found  bool   `json:"found,omitempty"` // the task was there (its call has ended)
	Err    string `json:"err,omitempty"`
}

// cancelAnswer is an answer as ForwardCancel returns it.
type cancelAnswer struct {
	found bool
	err   error
}

// ServeCancels subscribes this replica to its channel of forwarded
// cancels: handle is called, on a goroutine of its own, with the owner
// and id of each task another replica was asked to cancel and that this
// replica holds (its records name it), and answers whether it held the
// task (found: its call has ended) or why it could not cancel it. The
// same channel carries the answers to this replica's own ForwardCancel.
// A replica serves them from its start; stop ends it.
func (t *TaskRecords) ServeCancels(handle func(ctx context.Context, owner, id string) (found bool, err error)) (stop func(), err error) {
	c := t.c
	ctx, cancel := c.scriptCtx(context.Background())
	ps := c.rdb.Subscribe(context.Background(), keyTaskCancels+c.o.ReplicaID)
	_, err = ps.Receive(ctx)
	cancel()
	if err != nil {
		ps.Close()
		return nil, fmt.Errorf("cluster: subscribing to this replica's task channel: %w", err)
	}
	c.cancelMu.Lock()
	c.cancelsSub = true
	c.cancelMu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m := range ps.Channel() {
			var msg cancelMsg
			if json.Unmarshal([]byte(m.Payload), &msg) != nil {
				continue
			}
			if msg.Answer {
				c.answered(msg)
				continue
			}
			// Each on its own goroutine: an answer comes once the call
			// has ended, and other cancels and answers must not wait
			// for it.
			go func() {
				found, err := handle(context.Background(), msg.Owner, msg.ID)
				a := cancelMsg{Req: msg.Req, From: c.o.ReplicaID, Answer: true, Found: found}
				if err != nil {
					a.Err = err.Error()
				}
				b, _ := json.Marshal(a)
				pctx, cancel := c.scriptCtx(context.Background())
				defer cancel()
				if err := c.rdb.Publish(pctx, keyTaskCancels+msg.From, b).Err(); err != nil {
					c.log.Warn("cluster: the answer to a forwarded task cancel was not sent", "task", msg.ID, "to", msg.From, "err", err)
				}
			}()
		}
	}()
	return func() {
		c.cancelMu.Lock()
		c.cancelsSub = false
		c.cancelMu.Unlock()
		ps.Close()
		<-done
	}, nil
}

// answered hands an answer to the ForwardCancel waiting for it.
func (c *Cluster) answered(msg cancelMsg) {
	c.cancelMu.Lock()
	ch := c.cancels[msg.Req]
	delete(c.cancels, msg.Req)
	c.cancelMu.Unlock()
	if ch == nil {
		return // its asker gave up
	}
	a := cancelAnswer{found: msg.Found}
	if msg.Err != "" {
		a.err = fmt.Errorf("replica %s: %s", msg.From, msg.Err)
	}
	ch <- a
}

// ForwardCancel asks replica, which holds the call of owner's task id,
// to cancel it, and returns its answer: found once the call has ended
// there, not found when that replica holds no such task of owner. It
// fails with ErrNoReplica when no replica listens on that channel, and
// when ctx ends first. This replica must be serving its own channel
// (ServeCancels), where the answer comes.
func (t *TaskRecords) ForwardCancel(ctx context.Context, replica, owner, id string) (found bool, err error) {
	c := t.c
	c.cancelMu.Lock()
	if !c.cancelsSub {
		c.cancelMu.Unlock()
		return false, errors.New("cluster: this replica does not serve its task channel, where the answer would come")
	}
	c.cancelSeq++
	req := strconv.FormatUint(c.cancelSeq, 10)
	ch := make(chan cancelAnswer, 1)
	if c.cancels == nil {
		c.cancels = map[string]chan cancelAnswer{}
	}
	c.cancels[req] = ch
	c.cancelMu.Unlock()
	forget := func() {
		c.cancelMu.Lock()
		delete(c.cancels, req)
		c.cancelMu.Unlock()
	}
	b, _ := json.Marshal(cancelMsg{Req: req, From: c.o.ReplicaID, Owner: owner, ID: id})
	pctx, cancel := c.scriptCtx(ctx)
	n, err := c.rdb.Publish(pctx, keyTaskCancels+replica, b).Result()
	cancel()
	switch {
	case err != nil:
		forget()
		return false, fmt.Errorf("cluster: forwarding the cancel of task %s to replica %s: %w", id, replica, err)
	case n == 0:
		forget()
		return false, fmt.Errorf("cluster: task %s on replica %s: %w", id, replica, ErrNoReplica)
	}
	select {
	case a := <-ch:
		return a.found, a.err
	case <-ctx.Done():
		forget()
		return false, fmt.Errorf("cluster: waiting for replica %s to cancel task %s: %w", replica, id, ctx.Err())
	}
}

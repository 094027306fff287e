package cluster

import (
	"context"
	"errors"
	"fmt"
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

package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Shared holds task records where every replica reads them (the
// cluster's Redis: upstream/cluster's TaskRecords, which knows them as
// bytes). The call of a task runs on the replica that created it; the
// others answer tasks/get from the record.
type Shared interface {
	// Put writes a task's record (JSON), kept for ttl.
	Put(ctx context.Context, id string, record []byte, ttl time.Duration) error
	// Get reads a task's record; ok is false when there is none.
	Get(ctx context.Context, id string) (record []byte, ok bool, err error)
}

// Forwarder is a Shared store that also carries a tasks/cancel to the
// replica holding the task's call (the cluster's Redis: a PUBLISH on that
// replica's channel, upstream/cluster's TaskRecords.ForwardCancel), and
// waits for its answer: found once the call has ended there.
type Forwarder interface {
	ForwardCancel(ctx context.Context, replica, owner, id string) (found bool, err error)
}

// put writes r to sh, kept until its Expires as now sees it.
func put(ctx context.Context, sh Shared, r Record, now time.Time) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	ttl := r.Expires().Sub(now)
	if ttl <= 0 {
		return nil // already expired: nothing to share
	}
	return sh.Put(ctx, r.ID, b, ttl)
}

// get reads task id from sh.
func get(ctx context.Context, sh Shared, id string) (Record, bool, error) {
	b, ok, err := sh.Get(ctx, id)
	if err != nil || !ok {
		return Record{}, false, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return Record{}, false, fmt.Errorf("task %s: its shared record is not JSON: %w", id, err)
	}
	return r, true, nil
}

// Record is a task as the replicas share it: what tasks/get answers, and
// the client it belongs to.
type Record struct {
	ID         string          `json:"id"`
	Owner      string          `json:"owner"`
	Status     string          `json:"status"`
	Message    string          `json:"message,omitempty"`
	Created    time.Time       `json:"created"`
	Updated    time.Time       `json:"updated"`
	TTL        time.Duration   `json:"ttl"`
	Poll       time.Duration   `json:"poll,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	ErrCode    int             `json:"errCode,omitempty"`
	ErrMessage string          `json:"errMessage,omitempty"`
	// Replica is the replica holding the task's call (Options.Replica),
	// where a cancel is forwarded.
	Replica string `json:"replica,omitempty"`
	// InputRequests are an input_required task's questions.
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
}

// Expires is when the record may be forgotten: its TTL from creation.
func (r Record) Expires() time.Time { return r.Created.Add(r.TTL) }

func recordOf(replica, owner string, t Task) Record {
	return Record{Replica: replica, ID: t.ID, Owner: owner, Status: t.Status, Message: t.Message, Created: t.Created, Updated: t.Updated,
		TTL: t.TTL, Poll: t.Poll, Result: t.Result, ErrCode: t.ErrCode, ErrMessage: t.ErrMessage, InputRequests: t.InputRequests}
}

func (r Record) task() Task {
	return Task{ID: r.ID, Status: r.Status, Message: r.Message, Created: r.Created, Updated: r.Updated,
		TTL: r.TTL, Poll: r.Poll, Result: r.Result, ErrCode: r.ErrCode, ErrMessage: r.ErrMessage, InputRequests: r.InputRequests}
}

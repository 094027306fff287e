package tasks

import (
	"context"
	"encoding/json"
	"time"
)

// Shared holds task records where every replica reads them (the
// cluster's Redis). The call of a task runs on the replica that created
// it; the others answer tasks/get from the record.
type Shared interface {
	// Put writes a task's record, kept until its Expires.
	Put(ctx context.Context, r Record) error
	// Get reads a task's record; ok is false when there is none.
	Get(ctx context.Context, id string) (r Record, ok bool, err error)
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
}

// Expires is when the record may be forgotten: its TTL from creation.
func (r Record) Expires() time.Time { return r.Created.Add(r.TTL) }

func recordOf(owner string, t Task) Record {
	return Record{ID: t.ID, Owner: owner, Status: t.Status, Message: t.Message, Created: t.Created, Updated: t.Updated,
		TTL: t.TTL, Poll: t.Poll, Result: t.Result, ErrCode: t.ErrCode, ErrMessage: t.ErrMessage}
}

func (r Record) task() Task {
	return Task{ID: r.ID, Status: r.Status, Message: r.Message, Created: r.Created, Updated: r.Updated,
		TTL: r.TTL, Poll: r.Poll, Result: r.Result, ErrCode: r.ErrCode, ErrMessage: r.ErrMessage}
}

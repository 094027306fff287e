package cluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestTaskRecordsInRedis: a task's record is written under its id with
// its time to live and read back; an unknown id is no record; an id too
// long to be a task's is refused on write and is no record on read.
func TestTaskRecordsInRedis(t *testing.T) {
	rs := startRedis(t)
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr})
	t.Cleanup(func() { rdb.Close() })
	c, err := New(context.Background(), Options{Client: rdb, ReplicaID: "r1", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	tr := c.TaskRecords()
	ctx := context.Background()
	if err := tr.Put(ctx, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", []byte(`{"status":"working"}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	b, ok, err := tr.Get(ctx, "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
	if err != nil || !ok || string(b) != `{"status":"working"}` {
		t.Fatalf("read back: %q %v %v", b, ok, err)
	}
	if ttl := rdb.PTTL(ctx, keyTask+"ABCDEFGHIJKLMNOPQRSTUVWXYZ").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("the record's time to live in Redis is %v, want up to 1m", ttl)
	}
	if _, ok, err := tr.Get(ctx, "NOSUCHTASK"); ok || err != nil {
		t.Errorf("an unknown id: ok %v, err %v; want no record", ok, err)
	}
	long := string(make([]byte, 65))
	if err := tr.Put(ctx, long, []byte(`{}`), time.Minute); err == nil {
		t.Error("a 65-byte id was written")
	}
	if _, ok, err := tr.Get(ctx, long); ok || err != nil {
		t.Errorf("a 65-byte id: ok %v, err %v; want no record", ok, err)
	}
}

// TestCancelForwardedToTheReplicaHoldingTheCall: replica r2 asks r1,
// which serves its channel, to cancel a task: r1's handler is called with
// the owner and id, and r2 gets its answer (found, not found, or r1's
// error); a replica that serves no channel is ErrNoReplica at once, and
// an asker whose context ends first stops waiting.
func TestCancelForwardedToTheReplicaHoldingTheCall(t *testing.T) {
	rs := startRedis(t)
	replica := func(id string) *Cluster {
		rdb := redis.NewClient(&redis.Options{Addr: rs.Addr})
		t.Cleanup(func() { rdb.Close() })
		c, err := New(context.Background(), Options{Client: rdb, ReplicaID: id, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	r1, r2 := replica("r1"), replica("r2")
	hold := make(chan struct{})
	stop1, err := r1.TaskRecords().ServeCancels(func(ctx context.Context, owner, id string) (bool, error) {
		switch id {
		case "HELD":
			<-hold // the call returns only when the test lets it
			return owner == "client:alice", nil
		case "BROKEN":
			return false, errors.New("the store is closed")
		}
		return false, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop1)
	stop2, err := r2.TaskRecords().ServeCancels(func(context.Context, string, string) (bool, error) { return false, nil })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop2)
	ctx := context.Background()

	answered := make(chan error, 1)
	go func() {
		found, err := r2.TaskRecords().ForwardCancel(ctx, "r1", "client:alice", "HELD")
		if err == nil && !found {
			err = errors.New("not found")
		}
		answered <- err
	}()
	// Other cancels are answered while that one's call has not returned.
	if found, err := r2.TaskRecords().ForwardCancel(ctx, "r1", "client:alice", "UNKNOWN"); found || err != nil {
		t.Errorf("an unknown task: found %v, err %v; want not found", found, err)
	}
	if _, err := r2.TaskRecords().ForwardCancel(ctx, "r1", "client:alice", "BROKEN"); err == nil || !strings.Contains(err.Error(), "the store is closed") {
		t.Errorf("r1's error came back as %v", err)
	}
	select {
	case err := <-answered:
		t.Fatalf("answered (%v) before r1's call returned", err)
	default:
	}
	close(hold)
	if err := <-answered; err != nil {
		t.Errorf("the held task's cancel: %v", err)
	}
	if _, err := r2.TaskRecords().ForwardCancel(ctx, "r9", "client:alice", "HELD"); !errors.Is(err, ErrNoReplica) {
		t.Errorf("a cancel for a replica that serves no channel: %v, want ErrNoReplica", err)
	}
	gone, cancel := context.WithCancel(ctx)
	stuck := make(chan struct{})
	stop3, err := replica("r3").TaskRecords().ServeCancels(func(context.Context, string, string) (bool, error) { <-stuck; return true, nil })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { close(stuck); stop3() })
	go cancel()
	if _, err := r2.TaskRecords().ForwardCancel(gone, "r3", "client:alice", "HELD"); !errors.Is(err, context.Canceled) {
		t.Errorf("an asker whose context ended: %v, want context.Canceled", err)
	}
}

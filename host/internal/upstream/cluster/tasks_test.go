package cluster

import (
	"context"
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

package schedlua

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// The tests' keys: one hash tag, as the cluster's, under a test root.
const (
	testRoot     = "schedlua-test:{t}:"
	testReplicas = testRoot + "replicas"
	testChannels = testRoot + "grants:"
)

func quotaPrefix(name string) string { return testRoot + "quota:" + name + ":" }

var script = redis.NewScript(Script)

// run runs the scheduler script for one op on the quota at prefix.
func run(ctx context.Context, rdb redis.Scripter, prefix string, a Args, op string, args ...any) (Reply, error) {
	v, err := runRaw(ctx, script, rdb, prefix, a, op, args...)
	if err != nil {
		return Reply{}, err
	}
	return ParseReply(v)
}

// runRaw runs one op of s (the scheduler, or a variant of it) and returns
// its unparsed Reply.
func runRaw(ctx context.Context, s *redis.Script, rdb redis.Scripter, prefix string, a Args, op string, args ...any) (any, error) {
	return s.Run(ctx, rdb, []string{prefix, testReplicas, testChannels}, a.Argv(op, args...)...).Result()
}

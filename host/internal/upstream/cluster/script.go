package cluster

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/besluitbron/besluitbron/sched/schedlua"
)

// schedScript is the scheduler (package sched's policy, ported to Lua in
// sched/schedlua), loaded once per Redis and then called by its digest
// (go-redis falls back to EVAL when Redis has forgotten it, as after a
// restart).
var schedScript = redis.NewScript(schedlua.Script)

// departScript is the shared departure bucket (schedlua.DepartScript),
// run when a request is about to be written.
var departScript = redis.NewScript(schedlua.DepartScript)

// Keys. Every key carries the hash tag {besluitbron}, so all of them sit
// in one slot and the script may touch them together, also on a Redis
// Cluster.
const (
	keyRoot     = "besluitbron:{besluitbron}:"
	keyReplicas = keyRoot + "replicas"
	keyChannels = keyRoot + "grants:"
)

// quotaPrefix is the prefix of one quota's keys: an upstream host's
// ("besluitbron:{besluitbron}:quota:zoek.officielebekendmakingen.nl:"),
// a named quota's, or "<connector>/<service>" for a service naming neither.
// (Until quotas were named by host the prefix was svc:<connector>/<service>:.)
func quotaPrefix(name string) string {
	return keyRoot + "quota:" + name + ":"
}

// run calls the scheduler script for one op on the quota at prefix.
func run(ctx context.Context, rdb redis.Scripter, prefix string, a schedlua.Args, op string, args ...any) (schedlua.Reply, error) {
	v, err := runRaw(ctx, schedScript, rdb, prefix, a, op, args...)
	if err != nil {
		return schedlua.Reply{}, err
	}
	return schedlua.ParseReply(v)
}

// runRaw runs one op of script (the scheduler, or a variant of it in
// tests) on the cluster's keys and returns its unparsed reply.
func runRaw(ctx context.Context, script *redis.Script, rdb redis.Scripter, prefix string, a schedlua.Args, op string, args ...any) (any, error) {
	return script.Run(ctx, rdb, []string{prefix, keyReplicas, keyChannels}, a.Argv(op, args...)...).Result()
}

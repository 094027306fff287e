package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/config"
)

func TestClusterSection(t *testing.T) {
	cfg, err := config.Load("", []string{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Cluster.RedisURL != "" || cfg.Cluster.Lease != 15*time.Second || cfg.Cluster.Timeout != 2*time.Second {
		t.Errorf("defaults = %+v: want no Redis (one process on its own), a 15s lease and a 2s timeout", cfg.Cluster)
	}
	cfg, err = config.Load(write(t, "[cluster]\nredis_url = \"redis://10.0.0.5:6379/2\"\nreplica_id = \"bb-1\"\n"),
		[]string{"BESLUITBRON_CLUSTER__LEASE=9s", "BESLUITBRON_CLUSTER__REDIS_URL=redis://redis:6379/0", "BESLUITBRON_CLUSTER__TIMEOUT=5s"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Cluster.RedisURL != "redis://redis:6379/0" || cfg.Cluster.ReplicaID != "bb-1" || cfg.Cluster.Lease != 9*time.Second || cfg.Cluster.Timeout != 5*time.Second {
		t.Errorf("overrides = %+v", cfg.Cluster)
	}
	for _, c := range []struct{ body, want string }{
		{"[cluster]\nredis_url = \"localhost:6379\"", "cluster.redis_url"},
		{"[cluster]\nredis_url = \"redis://x\"\nlease = \"10ms\"", "cluster.lease"},
		{"[cluster]\nredis_url = \"redis://x\"\nreplica_id = \"a b|c\"", "cluster.replica_id"},
		{"[cluster]\nredis_url = \"redis://x\"\ntimeout = \"10ms\"", "cluster.timeout"},
		{"[cluster]\nredis_url = \"redis://x\"\ntimeout = \"2h\"", "cluster.timeout"},
		{"[cluster]\nredis = \"redis://x\"", "redis"},
	} {
		if _, err := config.Load(write(t, c.body), []string{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want an error naming %s", c.body, err, c.want)
		}
	}
}

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/cluster"
	"github.com/besluitbron/besluitbron/host/internal/fetch"
	"github.com/besluitbron/besluitbron/host/internal/limits"
	"github.com/besluitbron/besluitbron/host/internal/web"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// clusterState is the host's side of [cluster]: nil fields when
// cluster.redis_url is unset, and then nothing here runs.
type clusterState struct {
	c *cluster.Cluster
}

// openCluster connects to Redis when cluster.redis_url is set. A replica
// that cannot reach Redis at start does not start: it could not know how
// many replicas share the limits.
func (h *Host) openCluster(ctx context.Context) error {
	cc := h.cfg.Cluster
	if cc.RedisURL == "" {
		return nil
	}
	c, err := cluster.New(ctx, cluster.Options{
		URL:       cc.RedisURL,
		ReplicaID: cc.ReplicaID,
		Lease:     cc.Lease,
		Logger:    h.log,
		Metrics:   cluster.NewMetrics(h.registry),
	})
	if err != nil {
		return err
	}
	h.cl.c = c
	return nil
}

// clusterLimiter shares a quota through Redis under its name, or returns
// l unchanged without a cluster. Call it once per quota.
func (h *Host) clusterLimiter(l *limits.Limiter) fetch.Limiter {
	if h.cl.c == nil {
		return l
	}
	return h.cl.c.Limiter(l)
}

// clusterTier puts the full-text tier in Redis behind a platform's cache,
// or returns c unchanged without a cluster.
func (h *Host) clusterTier(p *platform, c fetch.Cache) fetch.Cache {
	if h.cl.c == nil || c == nil {
		return c
	}
	ttl := map[string]time.Duration{}
	for _, cl := range p.manifest.CacheClasses {
		if cl.Name == connector.ClassDocument {
			ttl[cl.Name] = p.cfg.TTLFor(cl)
		}
	}
	now := time.Now
	if h.o.Clock != nil {
		now = h.o.Clock.Now
	}
	return h.cl.c.Tier(c, cluster.TierOptions{Platform: p.id, TTL: ttl, Version: h.o.Version, ModuleSHA256: p.sha256, Now: now})
}

// startCluster registers this replica and starts its heartbeats, once the
// limiters exist.
func (h *Host) startCluster(ctx context.Context) error {
	if h.cl.c == nil {
		return nil
	}
	if err := h.cl.c.Start(ctx); err != nil {
		return err
	}
	h.log.Info("cluster: sharing every platform's limit through Redis", "replica", h.cl.c.ReplicaID(), "lease", h.cfg.Cluster.Lease)
	return nil
}

// closeCluster leaves the cluster: this replica's waiting calls leave the
// shared queues at once.
func (h *Host) closeCluster() error {
	if h.cl.c == nil {
		return nil
	}
	return h.cl.c.Close()
}

// clusterRoutes serves /status/cluster.json: this replica's view of the
// cluster (each quota, with the connectors that use it, shared, or on its
// own share while Redis is unreachable).
func (h *Host) clusterRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /status/cluster.json", func(w http.ResponseWriter, r *http.Request) {
		var v any = map[string]any{"enabled": false, "message": "cluster.redis_url is not set: this process schedules on its own."}
		if h.cl.c != nil {
			v = struct {
				Enabled bool `json:"enabled"`
				cluster.Status
			}{true, h.cl.c.Status()}
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
	})
}

// clusterLines words this replica's cluster state for the status page: one
// summary line, and one line per quota not sharing through Redis.
func (h *Host) clusterLines() []web.ClusterLine {
	st := h.cl.c.Status()
	lines := []web.ClusterLine{{Text: fmt.Sprintf("Replica %s; %d live replica(s) seen.", st.ReplicaID, st.LiveReplicas)}}
	shared := 0
	for _, s := range st.Quotas {
		if s.Mode == cluster.Shared.String() {
			shared++
			continue
		}
		var users []string
		for _, u := range s.Connectors {
			users = append(users, u.Platform+" ("+u.Service+")")
		}
		lines = append(lines, web.ClusterLine{Text: s.Quota + " [" + strings.Join(users, ", ") + "]: " + s.Message, Warn: true})
	}
	if shared > 0 {
		lines = append(lines, web.ClusterLine{Text: fmt.Sprintf("%d quota(s) shared with every replica through Redis.", shared)})
	}
	return lines
}

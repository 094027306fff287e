package host

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/besluitbron/besluitbron/host/internal/cluster"
	"github.com/besluitbron/besluitbron/host/internal/web"
)

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

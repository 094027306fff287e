package cluster

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// StatusHandler answers /status/cluster.json with c's view of the
// cluster: each quota, with the connectors that use it, shared or on its
// own share while Redis is unreachable (c nil: the cluster is off). The
// public address's (full false) leaves out the replica's id (by default
// the host name and pid) and the last Redis errors (they name Redis's
// address): those are for server.admin_addr.
func StatusHandler(c *Cluster, full bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v any = map[string]any{"enabled": false, "message": "cluster.redis_url is not set: this process schedules on its own."}
		if c != nil {
			st := c.Status()
			if !full {
				st.ReplicaID = ""
				st.Quotas = slices.Clone(st.Quotas)
				for i := range st.Quotas {
					st.Quotas[i].LastError = ""
				}
			}
			v = struct {
				Enabled bool `json:"enabled"`
				Status
			}{true, st}
		}
		b, _ := json.MarshalIndent(v, "", "  ")
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(b)
	})
}

// Line is one line of the status page's replica section.
type Line struct {
	Text string // English
	Warn bool   // a reader should notice it (Redis unreachable)
}

// Lines word this replica's cluster state for the status page: one
// summary line, and one line per quota not sharing through Redis.
func (c *Cluster) Lines() []Line {
	st := c.Status()
	lines := []Line{{Text: fmt.Sprintf("Replica %s; %d live replica(s) seen.", st.ReplicaID, st.LiveReplicas)}}
	shared := 0
	for _, s := range st.Quotas {
		if s.Mode == Shared.String() {
			shared++
			continue
		}
		var users []string
		for _, u := range s.Connectors {
			users = append(users, u.Platform+" ("+u.Service+")")
		}
		lines = append(lines, Line{Text: s.Quota + " [" + strings.Join(users, ", ") + "]: " + s.Message, Warn: true})
	}
	if shared > 0 {
		lines = append(lines, Line{Text: fmt.Sprintf("%d quota(s) shared with every replica through Redis.", shared)})
	}
	return lines
}

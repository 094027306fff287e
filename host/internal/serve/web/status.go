package web

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
)

// statusData is the status page's template data.
type statusData struct {
	Snap    loadstatus.Snapshot
	Cluster []ClusterLine
	Org     string
	Matches []orgMatch
}

type orgMatch struct {
	Title   string
	Sources []loadstatus.Source
}

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	pg := s.newPage(w, r, "title.status")
	d := &statusData{Snap: s.o.Status(), Org: strings.TrimSpace(r.URL.Query().Get("org"))}
	if s.o.Cluster != nil {
		d.Cluster = s.o.Cluster()
	}
	if len(d.Org) > 100 {
		d.Org = d.Org[:100]
	}
	if d.Org != "" {
		for _, p := range d.Snap.Platforms {
			if p.Freshness != nil && p.Freshness.Sources != nil {
				d.Matches = append(d.Matches, orgMatch{Title: p.Title, Sources: p.Freshness.Find(d.Org)})
			}
		}
	}
	pg.Data = d
	s.render(w, "status", "layout", http.StatusOK, pg)
}

func (s *Server) handleStatusJSON(w http.ResponseWriter, r *http.Request) {
	b, err := json.MarshalIndent(s.o.Status(), "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Write(b)
	s.reqs.WithLabelValues("status.json", "200").Inc()
}

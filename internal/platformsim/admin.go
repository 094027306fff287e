package platformsim

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
)

// adminRoutes adds the control API:
//
//	GET    /                         the index: base URLs and admin paths
//	GET    /_sim/stats               counters (Stats as JSON)
//	POST   /_sim/stats/reset         zero the counters, refill the buckets
//	GET    /_sim/faults              the faults set, by platform
//	PUT    /_sim/faults/{platform}   set a platform's fault (Fault as JSON); "zoek" is the zoek host
//	DELETE /_sim/faults/{platform}   clear it
//	DELETE /_sim/faults              clear all
func (s *Sim) adminRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString("BesluitBron platform simulator. Base URLs (connectors.<id>.base_url):\n")
		urls := BaseURLs("http://" + r.Host)
		for _, id := range Platforms {
			fmt.Fprintf(&b, "  %-15s %s\n", id, urls[id])
		}
		fmt.Fprintf(&b, "  %-15s %s\n", "(zoek)", "http://"+r.Host+"/"+zoekPrefix)
		b.WriteString("Admin: GET /_sim/stats, POST /_sim/stats/reset, GET /_sim/faults, PUT|DELETE /_sim/faults/{platform} (JSON: latency, hang, error_rate, reset_rate, malformed_rate, storm429, retry_after, refuse_expand)\n")
		writeBody(w, http.StatusOK, "text/plain; charset=utf-8", []byte(b.String()))
	})
	mux.HandleFunc("GET /_sim/stats", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.Stats())
	})
	mux.HandleFunc("POST /_sim/stats/reset", func(w http.ResponseWriter, r *http.Request) {
		s.ResetStats()
		writeJSON(w, http.StatusOK, s.Stats())
	})
	mux.HandleFunc("GET /_sim/faults", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, s.Faults())
	})
	mux.HandleFunc("DELETE /_sim/faults", func(w http.ResponseWriter, r *http.Request) {
		s.ClearFaults()
		writeJSON(w, http.StatusOK, s.Faults())
	})
	mux.HandleFunc("PUT /_sim/faults/{platform}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("platform")
		b, err := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		if err != nil {
			adminError(w, http.StatusBadRequest, "reading the body: "+err.Error())
			return
		}
		var f Fault
		if err := json.Unmarshal(b, &f); err != nil {
			adminError(w, http.StatusBadRequest, fmt.Sprintf("fault for %s: %v", id, strings.TrimPrefix(err.Error(), "fault: ")))
			return
		}
		if err := s.SetFault(id, f); err != nil {
			adminError(w, http.StatusBadRequest, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, s.Faults())
	})
	mux.HandleFunc("DELETE /_sim/faults/{platform}", func(w http.ResponseWriter, r *http.Request) {
		if err := s.SetFault(r.PathValue("platform"), Fault{}); err != nil {
			adminError(w, http.StatusBadRequest, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, s.Faults())
	})
	mux.HandleFunc("/_sim/", func(w http.ResponseWriter, r *http.Request) {
		adminError(w, http.StatusNotFound, fmt.Sprintf("no admin endpoint %s %s; see GET /", r.Method, r.URL.Path))
	})
}

func adminError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// SortedFaults lists faults as "platform: fault" lines, for logs.
func SortedFaults(m map[string]Fault) []string {
	var out []string
	for id, f := range m {
		b, _ := json.Marshal(f)
		out = append(out, id+": "+string(b))
	}
	sort.Strings(out)
	return out
}

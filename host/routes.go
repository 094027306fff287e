package host

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routes adds the non-MCP endpoints: metrics, health, and the web pages.
func (h *Host) routes(mux *http.ServeMux) {
	mux.Handle("GET /metrics", promhttp.HandlerFor(h.registry, promhttp.HandlerOpts{Registry: h.registry}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !h.ready {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
	h.webRoutes(mux)
}

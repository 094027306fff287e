package host

import "net/http"

// webRoutes adds the search page and the status pages (issue: search page
// and Laadstatus). Until they exist, the root says where the MCP addresses
// are.
func (h *Host) webRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("BesluitBron: MCP at /mcp/unified/v1 and /mcp/<connector>/v1\n"))
	})
}

package web

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/serve/inbound"
)

// The pages answer to the same rules as the MCP addresses where those
// apply (package inbound holds the rules; this file says which page
// passes which, and why):
//
//   - Host (DNS rebinding): every page, static files and /status.json
//     included. A name that brought a browser to this server's loopback
//     address is not this server's name; no reader, monitor or proxy of
//     the admin's uses one (inbound.PageHostAllowed).
//   - Origin: the pages that start tool calls or are read as pages (/,
//     /resultaten, /document, /status). Their own script calls them
//     same-origin; another site's script that announces itself has no
//     business starting searches through its visitors' browsers. Not
//     /status.json, which any site may read (Access-Control-Allow-Origin:
//     *, for dashboards), nor /static/, the same bytes for everyone.
//   - The client limits (mcp_rate_limit), in the one inbound.Limits the
//     MCP addresses use, per client address and for the process: a page
//     costs the tool calls it starts, at least 1. A search over seven
//     platforms takes 7 tokens (and one per filter list it has to fetch),
//     a result list (/resultaten) or a document 1, the Laadstatus 1.
//     /status.json is what monitoring polls: it stays at 1 token and
//     reads the last check, never a platform. /static/ takes none: files
//     embedded in the binary start nothing, and a page the limits admitted
//     must not lose its stylesheet to them.
//
// Past a limit a page answers 429 with Retry-After and a short page in
// the reader's language saying how long to wait (/status.json: the same
// in JSON).

// rule is what a page must pass.
type rule struct {
	// label names the page in the metrics.
	label string
	// origin applies the Origin rule.
	origin bool
	// cost returns the tool calls the request starts (at least 1 is
	// charged); nil: the page is not under the client limits.
	cost func(r *http.Request) int
}

// route is one page: its pattern, its handler and its rule.
type route struct {
	pattern string
	handler http.HandlerFunc
	rule    rule
}

func (s *Server) routes() []route {
	one := func(*http.Request) int { return 1 }
	rs := []route{
		{"GET /{$}", s.handleSearch, rule{label: "search", origin: true, cost: s.searchCost}},
		{"GET /resultaten", s.handleFragment, rule{label: "fragment", origin: true, cost: one}},
		{"GET /document", s.handleDocument, rule{label: "document", origin: true, cost: one}},
	}
	if s.o.Cite != nil {
		// A result just shown is cited without a call; another costs one
		// document read.
		rs = append(rs, route{"GET /cite", s.handleCite, rule{label: "cite", origin: true, cost: one}})
	}
	if s.o.Follow != nil && s.o.Feed != nil {
		// Following creates a watch: a POST from this site's own form
		// (Origin), one token; a feed read is what a feed reader polls,
		// from anywhere (no Origin rule), one token.
		rs = append(rs,
			route{"POST /volg", s.handleFollow, rule{label: "follow", origin: true, cost: one}},
			route{"GET /watch/{feed}", s.o.Feed, rule{label: "feed", cost: one}})
	}
	if s.o.Status != nil {
		rs = append(rs,
			route{"GET /status", s.handleStatus, rule{label: "status", origin: true, cost: one}},
			route{"GET /status.json", s.handleStatusJSON, rule{label: "status.json", cost: one}})
	}
	return append(rs, route{"GET /static/", s.handleStatic(), rule{label: "static"}})
}

// searchCost is what a search page starts: one search per chosen platform
// that can serve the form (the others say so without a call), and one
// call per filter list that is due for fetching.
func (s *Server) searchCost(r *http.Request) int {
	f := s.parseForm(r.URL.Query())
	n := s.lists.due()
	if f.Submitted {
		for _, id := range f.Chosen {
			if _, ok := s.searchArgs(s.byID[id], f); ok {
				n++
			}
		}
	}
	return n
}

// Router routes a request to its handler and names the pattern it
// matched: an *http.ServeMux.
type Router interface {
	http.Handler
	Handler(r *http.Request) (h http.Handler, pattern string)
}

// GuardOptions configure [Server.Guard].
type GuardOptions struct {
	// Limits are the client limits the MCP addresses use (nil: none,
	// mcp_rate_limit.enabled = false).
	Limits *inbound.Limits
	// Origins is server.allowed_origins; Trusted server.trusted_proxies.
	Origins *inbound.Origins
	Trusted []netip.Prefix
	// Now is the limits' clock (nil: time.Now).
	Now func() time.Time
}

// Guard wraps next, the mux the pages are registered on ([Server.Routes]):
// a request next routes to a page passes that page's rules first; every
// other request (the MCP addresses, health, metrics) goes to next
// untouched.
func (s *Server) Guard(next Router, o GuardOptions) http.Handler {
	if o.Now == nil {
		o.Now = time.Now
	}
	rules := map[string]rule{}
	for _, rt := range s.routes() {
		rules[rt.pattern] = rt.rule
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pattern := next.Handler(r)
		ru, ok := rules[pattern]
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if !inbound.PageHostAllowed(r, o.Origins, o.Trusted) {
			s.forbid(w, ru, "BesluitBron: Host "+strconv.Quote(r.Host)+" is not a name of this server: the request reached it on a loopback address under another name (a page elsewhere whose name points here?). A reverse proxy on this machine must be listed in server.trusted_proxies, or the name given in server.allowed_origins.")
			return
		}
		if ru.origin && !inbound.PageOriginAllowed(r, o.Origins) {
			s.forbid(w, ru, "BesluitBron: Origin "+strconv.Quote(r.Header.Get("Origin"))+" is not allowed on the pages; an administrator can add it to server.allowed_origins")
			return
		}
		if ru.cost != nil && o.Limits != nil {
			ip := inbound.ClientIP(r, o.Trusted)
			if d := o.Limits.PageAt(o.Now(), ip, ru.cost(r)); !d.OK {
				s.refuse(w, r, ru, d)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// forbid answers 403 in the words of the MCP addresses' refusals: for the
// admin who reads it, not for a reader (no reader reaches it).
func (s *Server) forbid(w http.ResponseWriter, ru rule, msg string) {
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, msg, http.StatusForbidden)
	s.reqs.WithLabelValues(ru.label, "403").Inc()
}

// limitedData is the 429 page's template data.
type limitedData struct {
	// Everyone is set when the whole server is at its limit, not the
	// reader's address.
	Everyone bool
	Seconds  int
}

// refuse answers 429 with Retry-After: a short page in the reader's
// language, or JSON for /status.json.
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, ru rule, d inbound.Decision) {
	secs := d.RetryAfterSeconds()
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	everyone := d.Layer == inbound.Process
	if ru.label == "status.json" {
		msg := "BesluitBron: too many requests from this address; retry after " + strconv.Itoa(secs) + " s"
		if everyone {
			msg = "BesluitBron: too many requests to this server; retry after " + strconv.Itoa(secs) + " s"
		}
		b, _ := json.Marshal(map[string]any{"error": msg, "limit": d.Layer.String(), "retry_after_seconds": secs})
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		h.Set("Access-Control-Allow-Origin", "*")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write(append(b, '\n'))
		s.reqs.WithLabelValues(ru.label, "429").Inc()
		return
	}
	pg := s.newPage(w, r, "title.limited")
	pg.Data = &limitedData{Everyone: everyone, Seconds: secs}
	s.renderAs(w, "limited", "layout", ru.label, http.StatusTooManyRequests, pg)
}

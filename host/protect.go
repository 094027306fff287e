package host

import (
	"fmt"
	"net/http"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/host/internal/mcpserver"
	"github.com/besluitbron/besluitbron/host/internal/ratelimit"
)

// protect wraps the MCP addresses with the transport checks (Origin) and
// the client rate limits of [mcp_rate_limit]: one bucket for the process,
// one per MCP address, one per session or, before a session exists, per
// client address (package ratelimit). Refusals are counted per layer on
// the host's metrics.
//
// Each call builds its own limits; a Host serves one handler.
func (h *Host) protect(next http.Handler) http.Handler {
	s, rl := h.cfg.Server, h.cfg.MCPRateLimit
	trusted := config.Prefixes(s.TrustedProxies)
	// Both were validated when the configuration was loaded.
	origins, err := ratelimit.NewOrigins(s.AllowedOrigins)
	if err != nil {
		panic(fmt.Sprintf("server.allowed_origins%v", err))
	}
	var lim *ratelimit.Limiter
	if rl.Enabled {
		addrs := []string{"/mcp/unified/v1", "/sse"}
		for _, id := range h.mcp.IDs() {
			addrs = append(addrs, "/mcp/"+id+"/v1")
		}
		lim, err = ratelimit.New(&ratelimit.Options{
			Process:   ratelimit.Limit{RPS: rl.ProcessRPS, Burst: rl.ProcessBurst},
			Address:   ratelimit.Limit{RPS: rl.AddressRPS, Burst: rl.AddressBurst},
			Session:   ratelimit.Limit{RPS: rl.SessionRPS, Burst: rl.SessionBurst},
			IP:        ratelimit.Limit{RPS: rl.IPRPS, Burst: rl.IPBurst},
			Addresses: addrs,
		})
		if err != nil {
			panic(fmt.Sprintf("mcp_rate_limit: %v", err))
		}
	}
	now := time.Now
	if h.o.Clock != nil {
		now = h.o.Clock.Now
	}
	g := ratelimit.NewGuard(next, ratelimit.GuardOptions{
		Limiter:  lim,
		Origins:  origins,
		ClientIP: func(r *http.Request) netip.Addr { return ratelimit.ClientIP(r, trusted) },
		Now:      now,
	})
	if err := h.registry.Register(ratelimit.NewCollector(g)); err != nil {
		// A second Handler on the same Host: the first one's figures stay.
		if _, dup := err.(prometheus.AlreadyRegisteredError); !dup {
			h.log.Warn("client rate limit metrics not registered", "error", err)
		}
	}
	return g
}

// clientAddr is the client's address as the limits and the scheduler see
// it: the connection's peer, or the forwarded address when the peer is in
// server.trusted_proxies. The MCP layer uses it as the session of clients
// without one.
func (h *Host) clientAddr(r *http.Request) string {
	a, ok := ratelimit.ClientIPFromContext(r.Context())
	if !ok {
		a = ratelimit.ClientIP(r, config.Prefixes(h.cfg.Server.TrustedProxies))
	}
	if !a.IsValid() {
		return mcpserver.RemoteIP(r)
	}
	return a.String()
}

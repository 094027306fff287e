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
// one per connector on every address (and one for the calls that touch no
// connector), one per session or, before a session exists, per client
// address (package ratelimit). Refusals are counted per layer and per
// connector on the host's metrics.
//
// Which connector a message counts against: on /mcp/<id>/v1, <id>; on
// /mcp/unified/v1 and /sse (and their HTTP+SSE message endpoints), the
// connector of the tool a tools/call names, or of the resource a
// resources/read names, as the host registered them (tool_prefix and
// resource_base included); anything else there counts against
// ratelimit.NoConnector.
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
	var (
		lim   *ratelimit.Limiter
		route func(string, ratelimit.Message) (string, bool)
	)
	if rl.Enabled {
		if msg := rl.Deprecation(); msg != "" {
			h.log.Warn(msg)
		}
		ids := h.mcp.IDs()
		lim, err = ratelimit.New(&ratelimit.Options{
			Process:    ratelimit.Limit{RPS: rl.ProcessRPS, Burst: rl.ProcessBurst},
			Connector:  ratelimit.Limit{RPS: rl.ConnectorRPS, Burst: rl.ConnectorBurst},
			Session:    ratelimit.Limit{RPS: rl.SessionRPS, Burst: rl.SessionBurst},
			IP:         ratelimit.Limit{RPS: rl.IPRPS, Burst: rl.IPBurst},
			Connectors: ids,
		})
		if err != nil {
			panic(fmt.Sprintf("mcp_rate_limit: %v", err))
		}
		route = messageRoute(ids, h.mcp.Owners())
	}
	now := time.Now
	if h.o.Clock != nil {
		now = h.o.Clock.Now
	}
	g := ratelimit.NewGuard(next, ratelimit.GuardOptions{
		Limiter:      lim,
		Origins:      origins,
		ClientIP:     func(r *http.Request) netip.Addr { return ratelimit.ClientIP(r, trusted) },
		Now:          now,
		Route:        route,
		MaxBodyBytes: int64(s.MaxBodyKB) << 10,
	})
	if err := h.registry.Register(ratelimit.NewCollector(g)); err != nil {
		// A second Handler on the same Host: the first one's figures stay.
		if _, dup := err.(prometheus.AlreadyRegisteredError); !dup {
			h.log.Warn("client rate limit metrics not registered", "error", err)
		}
	}
	return g
}

// messageRoute names the connector bucket of a message sent to an MCP
// address: the address's own connector, or on the addresses serving every
// connector the owner of the tool or resource it names.
func messageRoute(ids []string, owners *mcpserver.Owners) func(string, ratelimit.Message) (string, bool) {
	fixed := make(map[string]string, len(ids))
	for _, id := range ids {
		fixed["/mcp/"+id+"/v1"] = id
	}
	return func(address string, m ratelimit.Message) (string, bool) {
		if id, ok := fixed[address]; ok {
			return id, true
		}
		if address != "/mcp/unified/v1" && address != "/sse" {
			return "", false
		}
		switch m.Method {
		case "tools/call":
			if id, ok := owners.Tool(m.Tool); ok {
				return id, true
			}
		case "resources/read":
			if id, ok := owners.Resource(m.URI); ok {
				return id, true
			}
		}
		return ratelimit.NoConnector, true
	}
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

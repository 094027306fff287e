package mcpserver

import (
	"context"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
)

// Cache hints on results (MCP 2026-07-28, server/utilities/caching.mdx;
// changelog, minor change 5): server/discover, the four list methods and
// resources/read carry ttlMs, how long a client may consider the result
// fresh, and cacheScope, whether a shared cache may hand it to another
// caller. The go-sdk writes both fields on those results for every
// protocol version and asks [ServerOptions.SetCacheable] for their values;
// without it every result would say 0 ms, public.
//
//   - server/discover and the lists: [ListTTL], public. They are the same
//     for every caller and fixed while the server runs (the configuration
//     decides them at start; the server never sends list_changed), so a
//     client need not ask again for minutes.
//   - resources/read of a connector's resource: fresh for as long as the
//     earliest cached platform answer the read was built from, which is
//     what the connector's cache class (its TTL) decided when the answer
//     was stored; 0 when the read used an answer that is not cached
//     (volatile, a refusal) or nothing fetched. Public: a platform's
//     document is a public record, the same for every caller.
//   - resources/read of the host's resources: 0, since they change without
//     a TTL (besluitbron://status after every status round, a watch when
//     a check finds something); a watch is private to its owner, so a
//     shared cache must not hand it to anyone else (the scope "private").

// ListTTL is the ttlMs of server/discover and of the list results.
const ListTTL = 5 * time.Minute

// The cacheScope values.
const (
	scopePublic  = "public"
	scopePrivate = "private"
)

// setCacheable is every address's [mcp.ServerOptions.SetCacheable]: it
// sets the hints of the discover and list results, and of a host
// resource's read; a connector resource's read keeps what its handler
// set (readCacheable).
func (s *Server) setCacheable(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	rr, read := req.(*mcp.ReadResourceRequest)
	if !read {
		c.TTLMs, c.CacheScope = int(ListTTL/time.Millisecond), scopePublic
		return
	}
	if rr.Params == nil {
		return
	}
	for _, hr := range s.o.HostResources {
		if hr.Resource != nil && hr.Resource.URI == rr.Params.URI {
			c.TTLMs, c.CacheScope = 0, scopePublic
			return
		}
	}
	for _, ht := range s.o.HostTemplates {
		if ht.Prefix != "" && strings.HasPrefix(rr.Params.URI, ht.Prefix) {
			c.TTLMs, c.CacheScope = 0, scopePrivate
			return
		}
	}
}

// readCacheable is the hints of a connector resource's read whose call
// summed up as sum, at now.
func readCacheable(sum callinfo.Summary, now time.Time) mcp.Cacheable {
	c := mcp.Cacheable{CacheScope: scopePublic}
	if !sum.ValidUntil.IsZero() {
		if d := sum.ValidUntil.Sub(now); d > 0 {
			c.TTLMs = int(d / time.Millisecond)
		}
	}
	return c
}

// now is the server's clock (Options.Now), the one the cache's validity
// is read on.
func (s *Server) now() time.Time {
	if s.o.Now != nil {
		return s.o.Now()
	}
	return time.Now()
}

package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/host/internal/platforms"
	"github.com/besluitbron/besluitbron/host/internal/serve/auth"
)

// NewClientKey makes a fresh API key for the named client name (`besluitbron
// new-key <name>`): the key to hand the client, and the plugins.toml lines
// that configure it, which hold only its sha256, and the environment
// variable that may stand in for them. An unusable name is an error
// saying what a name may be.
func NewClientKey(name string) (key, tomlLines, envLine string, err error) {
	if err := config.CheckClientName(name); err != nil {
		return "", "", "", err
	}
	key, sum, err := auth.NewKey()
	if err != nil {
		return "", "", "", fmt.Errorf("new key: %w", err)
	}
	return key, fmt.Sprintf("[clients.%s]\nkey_sha256 = %q\n", name, sum),
		fmt.Sprintf("%sCLIENTS__%s__KEY_SHA256=%s", config.EnvPrefix, strings.ToUpper(name), sum), nil
}

// AuthSummary is the line check-config prints of server.auth: "" when it
// is "none"; else the mode and whom it admits.
func (h *Host) AuthSummary() string {
	switch h.cfg.Server.AuthMode() {
	case config.AuthKeys:
		names := h.cfg.ClientNames()
		return fmt.Sprintf("auth: keys, %d named clients (%s): requests to the MCP addresses need Authorization: Bearer <key>", len(names), strings.Join(names, ", "))
	case config.AuthOAuth:
		o := h.cfg.Server.OAuth
		return fmt.Sprintf("auth: oauth, access tokens of %s for %s; metadata at %s", o.Issuer, o.Audience, auth.MetadataPath)
	}
	return ""
}

// TracingSummary is the line check-config prints of tracing: "" when it
// is off; else where the traces go and which part of the calls.
func (h *Host) TracingSummary() string {
	if h.traces == nil {
		return ""
	}
	ratio := h.cfg.Tracing.SampleRatio
	return fmt.Sprintf("tracing: every tool call's trace to %s (OTLP/HTTP), %g of the calls that start here; a client's traceparent decides for its own", h.traces.Where(), ratio)
}

// CacheReport is one platform's saved cache, as `besluitbron cache stats`
// shows it (package platforms, which writes the caches, reads them).
type CacheReport = platforms.CacheReport

// CacheClassReport is one class of a platform's saved cache.
type CacheClassReport = platforms.CacheClassReport

// CacheReports reads every configured platform's saved cache without
// starting a server. version is this binary's version: entries of another
// build, or of another module than the configured one, are counted as
// such.
func CacheReports(cfg *Config, version string) []CacheReport {
	return platforms.CacheReports(cfg, version)
}

// ClearCache empties one platform's saved cache and asks a running server
// to empty its copy (it does within a few seconds). Other platforms are
// untouched. It returns the report of what was there.
func ClearCache(cfg *Config, id string) (CacheReport, error) {
	return platforms.ClearCache(cfg, id)
}

// ConnectorSummary describes one loaded connector, for check-config.
type ConnectorSummary = platforms.ConnectorSummary

// QuotaSummary is one quota a connector's services count against.
type QuotaSummary = platforms.QuotaSummary

// Summary describes every loaded connector, in id order.
func (h *Host) Summary() []ConnectorSummary { return h.set.Summary(h.plan.Unified) }

// ModuleDigests maps each loaded connector id to the hex sha256 of its
// module file, the value connectors.<id>.sha256 pins.
func (h *Host) ModuleDigests() map[string]string {
	out := make(map[string]string, len(h.platforms))
	for _, p := range h.platforms {
		out[p.ID] = p.SHA256
	}
	return out
}

// UnifiedTools names the tools /mcp/unified/v1 lists, in its order, as a
// client's tools/list receives them: asked through an MCP session on the
// unified server itself, so that check-config counts what the edge
// serves, the host's own besluitbron_* tools included and whatever
// server.tools and connectors.<id>.expose removed left out (counting the
// connectors' tools instead said 27 where clients were listed 29).
func (h *Host) UnifiedTools(ctx context.Context) ([]string, error) {
	ct, st := mcp.NewInMemoryTransports()
	ss, err := h.mcp.Unified().Connect(ctx, st, nil)
	if err != nil {
		return nil, fmt.Errorf("listing the unified tools: %w", err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "besluitbron-check", Version: h.o.Version}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, fmt.Errorf("listing the unified tools: %w", err)
	}
	defer cs.Close()
	var names []string
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing the unified tools: %w", err)
		}
		names = append(names, t.Name)
	}
	return names, nil
}

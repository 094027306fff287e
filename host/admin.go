package host

import (
	"slices"
	"sort"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/platforms"
	"github.com/besluitbron/besluitbron/host/internal/upstream/quota"
)

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
type ConnectorSummary struct {
	ID string
	// Module is the path as configured; Path the file loaded (resolved
	// against the config file's folder).
	Module, Path string
	Runtime      string
	// SHA256 is the module file's digest, the value connectors.<id>.sha256
	// pins.
	SHA256 string
	// Tools counts the connector's tools (its own address serves them
	// all); Unified those the unified address serves.
	Tools, Unified int
	// Quotas are the upstream quotas its services use.
	Quotas []QuotaSummary
	// Asked are the client features its manifest asks for; Granted those
	// of them connectors.<id>.grant grants (the rest are refused).
	Asked, Granted []string
	// ClientFeatures says both in words, as the start log does.
	ClientFeatures string
}

// QuotaSummary is one quota a connector's services count against.
type QuotaSummary struct {
	// Name is the upstream host or named quota.
	Name string
	// Units per Per; Units 0 when no limit is kept.
	Units float64
	Per   time.Duration
	// SharedWith are the other connectors counting against it.
	SharedWith []string
}

// Summary describes every loaded connector, in id order.
func (h *Host) Summary() []ConnectorSummary {
	limited := map[string]*quota.Limiter{}
	for _, q := range h.quotas {
		limited[q.Name] = q
	}
	var out []ConnectorSummary
	for _, p := range h.platforms {
		s := ConnectorSummary{ID: p.ID, Module: p.Config.Module, Path: h.cfg.Path(p.Config.Module), Runtime: p.Config.Runtime,
			SHA256: p.SHA256, Tools: len(p.Manifest.Tools), Unified: h.plan.unified[p.ID],
			Asked: p.Manifest.ClientFeatures, ClientFeatures: platforms.ClientFeaturesText(p.ID, p.Manifest, p.Config)}
		s.Granted, _ = p.Config.Granted(p.Manifest)
		seen := map[string]bool{}
		for _, c := range h.claims {
			if c.Platform != p.ID || seen[c.Quota] {
				continue
			}
			seen[c.Quota] = true
			qs := QuotaSummary{Name: c.Quota}
			if q := limited[c.Quota]; q != nil {
				qs.Units, qs.Per = q.Limit.Units, q.Limit.Per
				for _, u := range q.Users {
					if u.Platform != p.ID && !slices.Contains(qs.SharedWith, u.Platform) {
						qs.SharedWith = append(qs.SharedWith, u.Platform)
					}
				}
			}
			s.Quotas = append(s.Quotas, qs)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ModuleDigests maps each loaded connector id to the hex sha256 of its
// module file, the value connectors.<id>.sha256 pins.
func (h *Host) ModuleDigests() map[string]string {
	out := make(map[string]string, len(h.platforms))
	for _, p := range h.platforms {
		out[p.ID] = p.SHA256
	}
	return out
}

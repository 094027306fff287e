package platforms

import (
	"slices"
	"sort"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/quota"
)

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

// Summary describes every loaded connector, in id order; unified
// counts the tools the unified address serves of each (Exposure.Unified).
func (s *Set) Summary(unified map[string]int) []ConnectorSummary {
	limited := map[string]*quota.Limiter{}
	for _, q := range s.Quotas {
		limited[q.Name] = q
	}
	var out []ConnectorSummary
	for _, p := range s.Platforms {
		cs := ConnectorSummary{ID: p.ID, Module: p.Config.Module, Path: s.cfg.Path(p.Config.Module), Runtime: p.Config.Runtime,
			SHA256: p.SHA256, Tools: len(p.Manifest.Tools), Unified: unified[p.ID],
			Asked: p.Manifest.ClientFeatures, ClientFeatures: ClientFeaturesText(p.ID, p.Manifest, p.Config)}
		cs.Granted, _ = p.Config.Granted(p.Manifest)
		seen := map[string]bool{}
		for _, c := range s.Claims {
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
			cs.Quotas = append(cs.Quotas, qs)
		}
		out = append(out, cs)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

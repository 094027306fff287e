package host

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/platforms"
	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/host/internal/upstream/quota"
)

// CacheReport is one platform's saved cache, as `besluitbron cache stats`
// shows it. Figures are those of the last save: a running server saves
// every cache.save_interval and at shutdown.
type CacheReport struct {
	Connector string `json:"connector"`
	Dir       string `json:"dir"`
	// Saved is false when nothing is saved (never run, or cleared).
	Saved   bool      `json:"saved"`
	SavedAt time.Time `json:"saved_at,omitzero"`
	// Version is the BesluitBron version that saved it.
	Version       string `json:"version,omitempty"`
	CapacityBytes int    `json:"capacity_bytes,omitempty"`
	// Entries and MemoryBytes are fastcache's own figures (a value over
	// 64 KB counts once per 64 KB piece).
	Entries     uint64 `json:"entries"`
	MemoryBytes uint64 `json:"memory_bytes"`
	// ClearPending: `cache clear` was run and no server has applied it yet.
	ClearPending bool               `json:"clear_pending,omitempty"`
	Classes      []CacheClassReport `json:"classes,omitempty"`
	// Problem says why the report is incomplete (unreadable or damaged
	// snapshot, module not readable), or is empty.
	Problem string `json:"problem,omitempty"`
}

// CacheClassReport is one class of a platform's saved cache: what it
// holds (read from the snapshot) and its cumulative counters.
type CacheClassReport struct {
	Class string        `json:"class"`
	TTL   time.Duration `json:"ttl"`
	// Entries and Bytes held; Expired of them past their TTL (served
	// only as stale); OtherVersion written by another build than this
	// binary with the configured module (discarded when requested).
	Entries      uint64 `json:"entries"`
	Bytes        uint64 `json:"bytes"`
	Expired      uint64 `json:"expired"`
	OtherVersion uint64 `json:"other_version"`
	cache.Counters
}

// CacheReports reads every configured platform's saved cache without
// starting a server. version is this binary's version: entries of another
// build, or of another module than the configured one, are counted as
// such.
func CacheReports(cfg *Config, version string) []CacheReport {
	root := cfg.Path(cfg.Cache.Dir)
	var out []CacheReport
	for _, id := range slices.Sorted(maps.Keys(cfg.Connectors)) {
		r := CacheReport{Connector: id, ClearPending: root != "" && cache.ClearPending(cache.PlatformDir(root, id))}
		if root == "" {
			r.Problem = "cache.dir is empty: caches live in memory only"
			out = append(out, r)
			continue
		}
		r.Dir = cache.PlatformDir(root, id)
		m, err := cache.ReadSaved(r.Dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			out = append(out, r)
			continue
		case err != nil:
			r.Problem = err.Error()
			out = append(out, r)
			continue
		}
		r.Saved, r.SavedAt, r.Version, r.CapacityBytes, r.Entries, r.MemoryBytes = true, m.SavedAt, m.Version, m.MaxBytes, m.Entries, m.MemoryBytes
		var stamp uint64
		if wasm, err := os.ReadFile(cfg.Path(cfg.Connectors[id].Module)); err != nil {
			r.Problem = fmt.Sprintf("connectors.%s.module unreadable (%v): other-version counts are against an unknown module", id, err)
		} else {
			sum := sha256.Sum256(wasm)
			stamp = cache.Stamp(version, hex.EncodeToString(sum[:]))
		}
		content, err := cache.Scan(m, stamp, time.Now())
		if err != nil {
			r.Problem = fmt.Sprintf("snapshot unreadable, the server will start this platform empty: %v", err)
		}
		for _, class := range slices.Sorted(maps.Keys(m.TTL)) {
			c := content[class]
			r.Classes = append(r.Classes, CacheClassReport{Class: class, TTL: m.TTL[class], Entries: c.Entries, Bytes: c.Bytes,
				Expired: c.Expired, OtherVersion: c.OtherVersion, Counters: m.Classes[class]})
		}
		out = append(out, r)
	}
	return out
}

// ClearCache empties one platform's saved cache and asks a running server
// to empty its copy (it does within a few seconds). Other platforms are
// untouched. It returns the report of what was there.
func ClearCache(cfg *Config, id string) (CacheReport, error) {
	if _, ok := cfg.Connectors[id]; !ok {
		return CacheReport{}, fmt.Errorf("no connector %q in the config (configured: %s)", id, strings.Join(slices.Sorted(maps.Keys(cfg.Connectors)), ", "))
	}
	root := cfg.Path(cfg.Cache.Dir)
	if root == "" {
		return CacheReport{}, fmt.Errorf("cache.dir is empty: caches live in memory only; restart the server to empty them")
	}
	dir := cache.PlatformDir(root, id)
	m, err := cache.RequestClear(dir)
	r := CacheReport{Connector: id, Dir: dir, Saved: m.Dir != "", SavedAt: m.SavedAt, Version: m.Version, CapacityBytes: m.MaxBytes, Entries: m.Entries, MemoryBytes: m.MemoryBytes}
	if err != nil {
		return r, fmt.Errorf("clearing the cache of %s in %s: %w", id, dir, err)
	}
	return r, nil
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
			SHA256: p.SHA256, Tools: len(p.Manifest.Tools), Unified: h.unified[p.ID],
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

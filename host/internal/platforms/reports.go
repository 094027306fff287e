package platforms

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
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
func CacheReports(cfg *config.Config, version string) []CacheReport {
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
func ClearCache(cfg *config.Config, id string) (CacheReport, error) {
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

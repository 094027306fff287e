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
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/cache"
	"github.com/besluitbron/besluitbron/host/internal/fetch"
)

// clearPoll is how often a running server looks for a `besluitbron cache
// clear` request: the command works on the files, so the server must
// notice it soon.
const clearPoll = 2 * time.Second

// caches is the host's side of the per-platform caches. Its zero value is
// ready: the metrics are registered with the first cache.
type caches struct {
	mu      sync.Mutex
	metrics *cache.Metrics
	stores  []*cache.Store
	stop    chan struct{}
	done    chan struct{}
}

// newCache returns the platform's cache, or nil when caching is off. It
// loads what an earlier run saved under cache.dir/<id>.
func (h *Host) newCache(p *platform) (fetch.Cache, error) {
	if !h.cfg.Cache.Enabled {
		return nil, nil
	}
	ttl := map[string]time.Duration{}
	for _, c := range p.manifest.CacheClasses {
		ttl[c.Name] = p.cfg.TTLFor(c)
	}
	dir := ""
	if root := h.cfg.Path(h.cfg.Cache.Dir); root != "" {
		dir = cache.PlatformDir(root, p.id)
	}
	now := time.Now
	if h.o.Clock != nil {
		now = h.o.Clock.Now
	}
	cs := &h.caches
	cs.mu.Lock()
	if cs.metrics == nil {
		cs.metrics = cache.NewMetrics(h.registry)
	}
	m := cs.metrics
	cs.mu.Unlock()
	s, err := cache.Open(cache.Options{
		Platform:     p.id,
		Title:        p.manifest.Title,
		MaxBytes:     p.cfg.CacheMB << 20,
		TTL:          ttl,
		Version:      h.o.Version,
		ModuleSHA256: p.sha256,
		Dir:          dir,
		Now:          now,
		Logger:       h.log,
		Metrics:      m,
		OnClear: func() {
			if h.memo != nil {
				h.memo.Clear(p.id) // kept results were built on what is cleared
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("connectors.%s.cache_mb: %w", p.id, err)
	}
	cs.mu.Lock()
	cs.stores = append(cs.stores, s)
	cs.mu.Unlock()
	return s, nil
}

// startCaches starts the loop that saves each platform's cache every
// cache.save_interval (only what changed) and applies `besluitbron cache
// clear` requests within clearPoll. closeCaches stops it.
func (h *Host) startCaches() {
	cs := &h.caches
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.stores) == 0 || h.cfg.Cache.Dir == "" || cs.stop != nil {
		return
	}
	stores := append([]*cache.Store(nil), cs.stores...)
	cs.stop, cs.done = make(chan struct{}), make(chan struct{})
	go h.cacheLoop(stores, h.cfg.Cache.SaveInterval, cs.stop, cs.done)
}

func (h *Host) cacheLoop(stores []*cache.Store, every time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	poll := time.NewTicker(clearPoll)
	defer poll.Stop()
	save := time.NewTicker(every)
	defer save.Stop()
	for {
		select {
		case <-stop:
			return
		case <-poll.C:
			for _, s := range stores {
				s.PollClear()
			}
		case <-save.C:
			for _, s := range stores {
				if err := s.Checkpoint(); err != nil {
					h.log.Warn("cache not saved; the next save retries", "error", err)
				}
			}
		}
	}
}

// closeCaches stops the save loop and saves every platform's cache.
func (h *Host) closeCaches() error {
	cs := &h.caches
	cs.mu.Lock()
	stop, done, stores := cs.stop, cs.done, cs.stores
	cs.stop, cs.done, cs.stores = nil, nil, nil
	cs.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	var errs []error
	for _, s := range stores {
		if err := s.Close(); err != nil {
			h.log.Warn("cache not saved at shutdown", "error", err)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

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

// countReuse counts a kept result's answers as hits of the platform's cache:
// the question was answered from them.
func (p *platform) countReuse(classes []string) {
	s, ok := p.cache.(interface{ CountHits(class string, n int) })
	if !ok {
		return
	}
	n := map[string]int{}
	for _, c := range classes {
		n[c]++
	}
	for c, k := range n {
		s.CountHits(c, k)
	}
}

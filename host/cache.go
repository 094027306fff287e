package host

import (
	"errors"
	"fmt"
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

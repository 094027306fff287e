package platforms

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
)

// clearPoll is how often a running server looks for a `besluitbron cache
// clear` request: the command works on the files, so the server must
// notice it soon.
const clearPoll = 2 * time.Second

// caches is the upkeep of the per-platform caches. Its zero value is
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
func (s *Set) newCache(p *Platform) (fetch.Cache, error) {
	if !s.cfg.Cache.Enabled {
		return nil, nil
	}
	ttl := map[string]time.Duration{}
	for _, c := range p.Manifest.CacheClasses {
		ttl[c.Name] = p.Config.TTLFor(c)
	}
	dir := ""
	if root := s.cfg.Path(s.cfg.Cache.Dir); root != "" {
		dir = cache.PlatformDir(root, p.ID)
	}
	now := s.now
	cs := &s.caches
	cs.mu.Lock()
	if cs.metrics == nil {
		cs.metrics = cache.NewMetrics(s.reg)
	}
	m := cs.metrics
	cs.mu.Unlock()
	st, err := cache.Open(cache.Options{
		Platform:     p.ID,
		Title:        p.Manifest.Title,
		MaxBytes:     p.Config.CacheMB << 20,
		TTL:          ttl,
		Version:      s.version,
		ModuleSHA256: p.SHA256,
		Dir:          dir,
		Now:          now,
		Logger:       s.log,
		Metrics:      m,
		OnClear: func() {
			if s.onClear != nil {
				s.onClear(p.ID) // kept results were built on what is cleared
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("connectors.%s.cache_mb: %w", p.ID, err)
	}
	cs.mu.Lock()
	cs.stores = append(cs.stores, st)
	cs.mu.Unlock()
	return st, nil
}

// Start starts the loop that saves each platform's cache every
// cache.save_interval (only what changed) and applies `besluitbron cache
// clear` requests within clearPoll. Close stops it.
func (s *Set) Start() {
	cs := &s.caches
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if len(cs.stores) == 0 || s.cfg.Cache.Dir == "" || cs.stop != nil {
		return
	}
	stores := append([]*cache.Store(nil), cs.stores...)
	cs.stop, cs.done = make(chan struct{}), make(chan struct{})
	go s.cacheLoop(stores, s.cfg.Cache.SaveInterval, cs.stop, cs.done)
}

func (s *Set) cacheLoop(stores []*cache.Store, every time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	poll := s.newTicker(clearPoll)
	defer poll.Stop()
	save := s.newTicker(every)
	defer save.Stop()
	for {
		select {
		case <-stop:
			return
		case <-poll.C:
			for _, st := range stores {
				st.PollClear()
			}
		case <-save.C:
			for _, st := range stores {
				if err := st.Checkpoint(); err != nil {
					s.log.Warn("cache not saved; the next save retries", "error", err)
				}
			}
		}
	}
}

// closeCaches stops the save loop and saves every platform's cache.
func (s *Set) closeCaches() error {
	cs := &s.caches
	cs.mu.Lock()
	stop, done, stores := cs.stop, cs.done, cs.stores
	cs.stop, cs.done, cs.stores = nil, nil, nil
	cs.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
	var errs []error
	for _, st := range stores {
		if err := st.Close(); err != nil {
			s.log.Warn("cache not saved at shutdown", "error", err)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// CountReuse counts a kept result's answers as hits of the platform's cache:
// the question was answered from them.
func (p *Platform) CountReuse(classes []string) {
	s, ok := p.Cache.(interface{ CountHits(class string, n int) })
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

// Behind is where a call still waiting for an instance of the connector,
// behind more others waiting there, is expected to wait at the
// platform's limits: at the quota where the wait is longest
// ([quota.Limiter.Behind]), named as a task's status names a limit. ok is
// false when no quota of the platform can tell (it has none, or only
// quotas shared through the cluster).
func (p *Platform) Behind(more int) (limit string, refill time.Duration, place int, wait time.Duration, ok bool) {
	for _, q := range p.Limiters {
		n, w, known := q.Behind(more)
		if known && (!ok || w > wait) {
			limit, refill, place, wait, ok = q.Owner()+"'s limit", q.Refill(), n, w, true
		}
	}
	return limit, refill, place, wait, ok
}

package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/host/internal/runtime/admission"
	"github.com/besluitbron/besluitbron/host/internal/runtime/nativert"
	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmrt"
	"github.com/besluitbron/besluitbron/host/internal/upstream/cache"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/cluster"
	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
	"github.com/besluitbron/besluitbron/host/internal/upstream/quota"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// platform is one loaded connector with its policy.
type platform struct {
	id       string
	cfg      config.Connector
	conn     connector.Connector
	sha256   string
	manifest connector.Manifest
	gate     *fetch.Gate
	// limiters are the quotas the platform's services count against,
	// shared ones included (another connector's services may use them
	// too); uses its limited services' ways to them, by service name.
	limiters []*quota.Limiter
	uses     map[string]*quota.Use
	cache    fetch.Cache
	adm      *admission.Admission
}

// buildPlatforms opens the cluster link (when cluster.redis_url is set),
// loads every connector's runtime and manifest in parallel, builds the
// quotas from all manifests and the config together (services of any
// connectors that name one upstream host share one limiter), equips each
// platform with its cache and fetch gate, and registers the replica.
func (h *Host) buildPlatforms(ctx context.Context) error {
	for _, step := range []func(context.Context) error{
		h.openCluster, h.loadConnectors,
		func(context.Context) error { return h.buildQuotas() },
		func(context.Context) error { return h.equipPlatforms() },
		h.startCluster,
	} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	h.registry.MustRegister(quota.NewCollector(h.quotas), &runtimeCollector{h: h})
	return nil
}

// weightOf is the session's weight at p's quotas, the smallest of them (1
// when none is limited): admission to p's instances follows the shares
// its schedulers give. A shared quota counts the session's calls through
// every connector that uses it.
func (h *Host) weightOf(p *platform) admission.Weight {
	now := h.now
	return func(session string) float64 {
		return sched.MinWeight(now(), session, p.limiters)
	}
}

// loadConnectors loads every enabled connector's runtime and manifest, in
// parallel; the platforms that loaded are kept (Close releases them) even
// when another failed.
func (h *Host) loadConnectors(ctx context.Context) error {
	ids := make([]string, 0, len(h.cfg.Connectors))
	for id, c := range h.cfg.Connectors {
		if c.Enabled {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	plats := make([]*platform, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			plats[i], errs[i] = h.loadOne(ctx, id, h.cfg.Connectors[id])
		}()
	}
	wg.Wait()
	for _, p := range plats {
		if p != nil {
			h.platforms = append(h.platforms, p)
		}
	}
	return errors.Join(errs...)
}

// loadOne loads a connector's runtime and reads its manifest, checked
// against the admin's keys for it.
func (h *Host) loadOne(ctx context.Context, id string, cc config.Connector) (*platform, error) {
	p := &platform{id: id, cfg: cc, uses: map[string]*quota.Use{}}
	// The admission exists before the runtime: a runtime keeps an
	// instance beyond its warm pool for a call waiting here, instead of
	// closing it and instantiating another for that call.
	p.adm = admission.New(cc.MaxInstances, h.weightOf(p))
	conn, sum, err := h.loadRuntime(ctx, id, cc, h.cfg.Path(cc.Module), p.adm.Waiting)
	if err != nil {
		return nil, err
	}
	m, _ := conn.Describe(ctx)
	if err := h.cfg.CheckConnector(id, m); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	p.conn, p.sha256, p.manifest = conn, sum, m
	return p, nil
}

// equipPlatforms gives every platform its cache and its fetch gate, on the
// quotas buildQuotas made, in parallel (a cache may load a large file).
func (h *Host) equipPlatforms() error {
	errs := make([]error, len(h.platforms))
	var wg sync.WaitGroup
	for i, p := range h.platforms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = h.equip(p)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (h *Host) equip(p *platform) error {
	id, cc, m := p.id, p.cfg, p.manifest
	lims := map[string]fetch.Limiter{}
	for service, u := range p.uses {
		lims[service] = u
	}
	cache, err := h.newCache(p)
	if err != nil {
		return err
	}
	p.cache = cache
	var rewrites []fetch.Rewrite
	for _, rw := range cc.URLRewrites {
		from, to, _ := config.SplitRewrite(rw)
		rewrites = append(rewrites, fetch.Rewrite{From: from, To: to})
	}
	gate, err := fetch.New(fetch.Options{
		Manifest:         m,
		BaseURL:          cc.BaseURL,
		Rewrites:         rewrites,
		PrivateNetworks:  config.Prefixes(cc.PrivateNetworks),
		MaxResponseBytes: int64(cc.MaxResponseMB) << 20,
		RequestTimeout:   cc.RequestTimeout,
		Logger:           h.log,
		UserAgent:        "BesluitBron/" + h.o.Version,
		Limiters:         lims,
		Cache:            h.clusterTier(p, cache),
		// A 429's Retry-After and the RateLimit headers correct the
		// schedulers, which read the host's clock, and the path is
		// measured on it: so must the gate.
		Now: h.now,
	})
	if err != nil {
		return err
	}
	p.gate = gate
	attrs := []any{"connector", id, "version", m.Version, "sha256", p.sha256[:12], "tools", len(m.Tools),
		"client_features", clientFeaturesText(id, m, cc)}
	if w, ok := p.conn.(*wasmrt.Connector); ok {
		// How a call past its deadline is stopped: the loop budget, or
		// wazero's slower checks for a module the rewriter left alone.
		stop := "loop budget"
		if !w.Instrumented {
			stop = "wazero checks"
		}
		attrs = append(attrs, "deadline_stop", stop)
	}
	h.log.Info("connector loaded", attrs...)
	return nil
}

// runtimeLoader starts a connector whose module file (bytes b, hex sha256
// sum, already checked against the config's pin) is at path.
type runtimeLoader func(h *Host, ctx context.Context, id string, cc config.Connector, path string, b []byte, sum string, wanted func() bool) (connector.Connector, error)

// runtimes maps connectors.<id>.runtime to its loader. Every loader
// returns a plain connector.Connector: nothing after loadRuntime knows,
// or may ask, which runtime runs a connector.
var runtimes = map[string]runtimeLoader{
	"wasm":    (*Host).loadWasm,
	"process": (*Host).loadProcess,
}

// buildTarget says which make target builds every module of a runtime,
// and the file name a module of that runtime has under bin/plugins/.
var buildTarget = map[string]struct{ all, suffix string }{
	"wasm":    {"make build", ".wasm"},
	"process": {"make native", ""},
}

// missingModule explains a module file that cannot be read: the path as
// configured and as resolved (relative paths resolve against the config
// file's folder, not the working directory), and the remedy that would
// produce that very file. `make` is suggested only when the resolved path
// is a repository's bin/plugins/<name> for a connector that repository
// has (plugins/<name>), with the folder to run it in; a file found
// relative to the working directory instead is named, since that is the
// usual mistake.
func missingModule(id string, cc config.Connector, cfgDir, path string, err error) error {
	key := "connectors." + id + ".module"
	where := path
	if cc.Module != path {
		where = fmt.Sprintf("%s (%q resolved against the config file's folder %s)", path, cc.Module, cfgDir)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: cannot read %s: %w", key, where, err)
	}
	msg := fmt.Sprintf("%s: no file at %s", key, where)
	bt := buildTarget[cc.Runtime]
	name := filepath.Base(path)
	if bt.suffix != "" {
		name = strings.TrimSuffix(name, bt.suffix)
	}
	binDir := filepath.Dir(path)
	root := filepath.Dir(filepath.Dir(binDir))
	if filepath.Base(binDir) == "plugins" && filepath.Base(filepath.Dir(binDir)) == "bin" && filepath.Base(path) == name+bt.suffix &&
		isFile(filepath.Join(root, "Makefile")) && isDir(filepath.Join(root, "plugins", name, "cmd")) {
		target := "bin/plugins/" + name + bt.suffix
		run := fmt.Sprintf("`make %s` (or `%s` for every connector)", target, bt.all)
		if wd, _ := os.Getwd(); wd != root {
			run = fmt.Sprintf("`make -C %s %s` (or `%s` there for every connector)", root, target, bt.all)
		}
		return fmt.Errorf("%s: build it with %s", msg, run)
	}
	if !filepath.IsAbs(cc.Module) {
		if abs, aerr := filepath.Abs(cc.Module); aerr == nil && abs != path && isFile(abs) {
			return fmt.Errorf("%s; a file %s exists relative to the working directory, but relative paths resolve against the config file's folder: write module = %q", msg, abs, abs)
		}
		return fmt.Errorf("%s: check the path (relative paths resolve against the config file's folder, not the working directory)", msg)
	}
	return fmt.Errorf("%s: check the path", msg)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// loadRuntime loads the connector configured as id from path with the
// runtime cc names, after checking the file against cc's sha256 pin. It
// returns the connector and the file's hex sha256.
func (h *Host) loadRuntime(ctx context.Context, id string, cc config.Connector, path string, wanted func() bool) (connector.Connector, string, error) {
	load, ok := runtimes[cc.Runtime]
	if !ok { // config validation allows only the keys above
		return nil, "", fmt.Errorf("connectors.%s.runtime %q: want \"wasm\" or \"process\"", id, cc.Runtime)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", missingModule(id, cc, h.cfg.Dir, path, err)
	}
	s := sha256.Sum256(b)
	sum := hex.EncodeToString(s[:])
	if cc.SHA256 != "" && cc.SHA256 != sum {
		return nil, "", fmt.Errorf("connectors.%s.sha256: module %s has sha256 %s, config pins %s", id, path, sum, cc.SHA256)
	}
	conn, err := load(h, ctx, id, cc, path, b, sum, wanted)
	if err != nil {
		return nil, "", err
	}
	return conn, sum, nil
}

func (h *Host) loadWasm(ctx context.Context, id string, cc config.Connector, _ string, b []byte, sum string, wanted func() bool) (connector.Connector, error) {
	var recordDir string // load records beside the compiled code
	if h.ccache != nil {
		recordDir = h.cfg.Path(h.cfg.Runtime.CompilationCacheDir)
	}
	c, err := wasmrt.Load(ctx, wasmrt.Options{
		ID:               id,
		Wasm:             b,
		PoolSize:         cc.PoolSize,
		MaxInstances:     cc.MaxInstances,
		Wanted:           wanted,
		MemoryLimitMB:    cc.MemoryLimitMB,
		CallTimeout:      cc.CallTimeout,
		Grant:            cc.Grant,
		Client:           askClient,
		CompilationCache: h.ccache,
		CacheDir:         recordDir,
		SHA256:           sum,
		Pinned:           cc.SHA256 != "",
		Logger:           h.log,
	})
	if errors.Is(err, wasmrt.ErrRecordAltered) {
		// The pin holds for what runs: a record naming other code is a
		// refusal at start, in the pin's name when there is one.
		if cc.SHA256 != "" {
			return nil, fmt.Errorf("connectors.%s.sha256 pins %s, and the module has it; %w", id, cc.SHA256, err)
		}
		return nil, fmt.Errorf("connectors.%s.module: %w", id, err)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// clientFeaturesText says what a connector asked for and got, the same
// in check-config and the start log: "none asked", or "elicitation
// granted; sampling not granted (connectors.<id>.grant)".
func clientFeaturesText(id string, m connector.Manifest, cc config.Connector) string {
	granted, withheld := cc.Granted(m)
	var parts []string
	if len(granted) > 0 {
		parts = append(parts, strings.Join(granted, ", ")+" granted")
	}
	if len(withheld) > 0 {
		parts = append(parts, strings.Join(withheld, ", ")+" asked for, not granted (connectors."+id+".grant)")
	}
	if len(parts) == 0 {
		return "none asked"
	}
	return strings.Join(parts, "; ")
}

// askClient is how a runtime reaches the MCP client of a call for the
// client features the connector was granted: through the call's record,
// which the MCP layer gave the client and which then keeps the result out
// of the kept results (see callinfo.Info.AskClient).
func askClient(ctx context.Context) connector.Client {
	return callinfo.From(ctx).AskClient()
}

// loadProcess starts the native binary. The sum checked here is pinned
// for every later restart too: a binary replaced on disk is refused
// rather than run, even when the config pins no sha256.
func (h *Host) loadProcess(ctx context.Context, id string, cc config.Connector, path string, _ []byte, sum string, _ func() bool) (connector.Connector, error) {
	return nativert.Load(ctx, nativert.Options{
		ID:            id,
		Path:          path,
		SHA256:        sum,
		PoolSize:      cc.MaxInstances, // a process serves its calls concurrently: it bounds calls, not processes
		MemoryLimitMB: cc.MemoryLimitMB,
		CallTimeout:   cc.CallTimeout,
		Grant:         cc.Grant,
		Client:        askClient,
		Logger:        h.log,
	})
}

// buildQuotas makes the quotas from every loaded manifest and the config:
// the services of any connectors that name one upstream host (or one named
// quota) share one limiter, at the strictest of their limits (quota.Build
// logs a conflict once, naming its sources). Each platform then holds the
// quotas its services use, shared ones included, and each limited
// service's way to its quota. In Redis mode each quota is shared with the
// other replicas under its own name.
func (h *Host) buildQuotas() error {
	byID := map[string]*platform{}
	var claims []quota.Claim
	for _, p := range h.platforms {
		byID[p.id] = p
		claims = append(claims, quota.Claims(p.id, p.manifest, func(s connector.Service) (sched.Limit, bool) {
			units, per := p.cfg.Limit(s)
			_, admin := p.cfg.Limits[s.Name]
			return sched.Limit{Units: units, Per: per}, admin
		})...)
	}
	qs, err := quota.Build(claims, &sched.Options{Clock: h.o.Clock}, h.log)
	if err != nil {
		return err
	}
	h.quotas, h.claims = qs, claims
	for _, q := range qs {
		q.Via(h.clusterLimiter(q))
		for _, u := range q.Users {
			p := byID[u.Platform]
			p.uses[u.Service] = q.Use(u.Platform, u.Service)
			if !slices.Contains(p.limiters, q) {
				p.limiters = append(p.limiters, q)
			}
		}
		if q.Shared() {
			h.log.Info("quota shared by several connectors: one limit for them together", "quota", q.Name,
				"limit", quota.FormatLimit(q.Limit), "from", q.Source, "connectors", usersText(q.Users))
		}
	}
	return nil
}

// usersText lists a quota's users as "<id> (<service>), …".
func usersText(us []quota.User) string {
	var parts []string
	for _, u := range us {
		parts = append(parts, u.Platform+" ("+u.Service+")")
	}
	return strings.Join(parts, ", ")
}

// clusterState is the host's side of [cluster]: nil fields when
// cluster.redis_url is unset, and then nothing here runs.
type clusterState struct {
	c *cluster.Cluster
}

// openCluster connects to Redis when cluster.redis_url is set. A replica
// that cannot reach Redis at start does not start: it could not know how
// many replicas share the limits.
func (h *Host) openCluster(ctx context.Context) error {
	cc := h.cfg.Cluster
	if cc.RedisURL == "" {
		return nil
	}
	c, err := cluster.New(ctx, cluster.Options{
		URL:       cc.RedisURL,
		ReplicaID: cc.ReplicaID,
		Lease:     cc.Lease,
		Timeout:   cc.Timeout,
		Logger:    h.log,
		Metrics:   cluster.NewMetrics(h.registry),
	})
	if err != nil {
		return err
	}
	h.cl.c = c
	return nil
}

// clusterLimiter shares a quota through Redis under its name, or returns
// l unchanged without a cluster. Call it once per quota.
func (h *Host) clusterLimiter(l *quota.Limiter) fetch.Limiter {
	if h.cl.c == nil {
		return l
	}
	return h.cl.c.SharedQuota(l)
}

// clusterTier puts the full-text tier in Redis behind a platform's cache,
// or returns c unchanged without a cluster.
func (h *Host) clusterTier(p *platform, c fetch.Cache) fetch.Cache {
	if h.cl.c == nil || c == nil {
		return c
	}
	ttl := map[string]time.Duration{}
	for _, cl := range p.manifest.CacheClasses {
		if cl.Name == connector.ClassDocument {
			ttl[cl.Name] = p.cfg.TTLFor(cl)
		}
	}
	now := h.now
	return h.cl.c.Tier(c, cluster.TierOptions{Platform: p.id, TTL: ttl, Version: h.o.Version, ModuleSHA256: p.sha256, Now: now})
}

// startCluster registers this replica and starts its heartbeats, once the
// limiters exist.
func (h *Host) startCluster(ctx context.Context) error {
	if h.cl.c == nil {
		return nil
	}
	if err := h.cl.c.Start(ctx); err != nil {
		return err
	}
	h.log.Info("cluster: sharing every platform's limit through Redis", "replica", h.cl.c.ReplicaID(), "lease", h.cfg.Cluster.Lease)
	return nil
}

// closeCluster leaves the cluster: this replica's waiting calls leave the
// shared queues at once.
func (h *Host) closeCluster() error {
	if h.cl.c == nil {
		return nil
	}
	return h.cl.c.Close()
}

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
	now := h.now
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
	poll := h.newTicker(clearPoll)
	defer poll.Stop()
	save := h.newTicker(every)
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

// runtimeCollector exports each connector's runtime figures: instances in
// its pool (a WebAssembly runtime reports them), their memory, and the fair
// admission to them.
type runtimeCollector struct{ h *Host }

var (
	descInstances = prometheus.NewDesc("besluitbron_runtime_instances", "Connector instances alive (idle or busy).", []string{"platform"}, nil)
	descIdle      = prometheus.NewDesc("besluitbron_runtime_idle_instances", "Connector instances waiting for a call.", []string{"platform"}, nil)
	descMemory    = prometheus.NewDesc("besluitbron_runtime_idle_memory_bytes", "Linear memory held by idle WebAssembly instances.", []string{"platform"}, nil)
	descSlotsFree = prometheus.NewDesc("besluitbron_admission_free_slots", "Calls a connector can start now.", []string{"platform"}, nil)
	descWaiting   = prometheus.NewDesc("besluitbron_admission_waiting_calls", "Calls waiting for a connector instance.", []string{"platform"}, nil)
)

// Describe implements prometheus.Collector.
func (c *runtimeCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descInstances, descIdle, descMemory, descSlotsFree, descWaiting} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *runtimeCollector) Collect(ch chan<- prometheus.Metric) {
	for _, p := range c.h.platforms {
		if ps, ok := p.conn.(interface{ PoolStats() wasmrt.PoolStats }); ok {
			st := ps.PoolStats()
			ch <- prometheus.MustNewConstMetric(descInstances, prometheus.GaugeValue, float64(st.Instances), p.id)
			ch <- prometheus.MustNewConstMetric(descIdle, prometheus.GaugeValue, float64(st.Idle), p.id)
			ch <- prometheus.MustNewConstMetric(descMemory, prometheus.GaugeValue, float64(st.MemoryBytes), p.id)
		}
		if p.adm != nil {
			free, waiting := p.adm.Stats()
			ch <- prometheus.MustNewConstMetric(descSlotsFree, prometheus.GaugeValue, float64(free), p.id)
			ch <- prometheus.MustNewConstMetric(descWaiting, prometheus.GaugeValue, float64(waiting), p.id)
		}
	}
}

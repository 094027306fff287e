package platforms

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
	"sync/atomic"
	"time"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/host/internal/runtime/admission"
	"github.com/besluitbron/besluitbron/host/internal/runtime/clientcall"
	"github.com/besluitbron/besluitbron/host/internal/runtime/nativert"
	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmrt"
	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/cluster"
	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
	"github.com/besluitbron/besluitbron/host/internal/upstream/quota"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// weightOf is the session's weight at p's quotas, the smallest of them (1
// when none is limited): admission to p's instances follows the shares
// its schedulers give. A shared quota counts the session's calls through
// every connector that uses it.
func (s *Set) weightOf(p *Platform) admission.Weight {
	now := s.now
	return func(session string) float64 {
		return sched.MinWeight(now(), session, p.Limiters)
	}
}

// loadConnectors loads every enabled connector's runtime and manifest, in
// parallel; the platforms that loaded are kept (Close releases them) even
// when another failed.
func (s *Set) loadConnectors(ctx context.Context) error {
	ids := make([]string, 0, len(s.cfg.Connectors))
	for id, c := range s.cfg.Connectors {
		if c.Enabled {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	plats := make([]*Platform, len(ids))
	errs := make([]error, len(ids))
	var (
		wg   sync.WaitGroup
		done atomic.Int32
	)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A first start compiles every module (30 to 100 s on two
			// cores without a compilation cache): a line per connector
			// when it starts and when it is done says the start is
			// moving, and which connector is the slow one.
			start := s.now()
			s.log.Info(fmt.Sprintf("loading connector %s (%d of %d)…", id, i+1, len(ids)), "connector", id)
			plats[i], errs[i] = s.loadOne(ctx, id, s.cfg.Connectors[id])
			if errs[i] != nil {
				return
			}
			// Counted before it is said: what reads the count after
			// the line sees this connector in it.
			if s.loaded != nil {
				s.loaded(id)
			}
			n := done.Add(1)
			took := s.now().Sub(start)
			s.log.Info(fmt.Sprintf("%s ready in %.1f s (%d of %d loaded)", id, took.Seconds(), n, len(ids)), "connector", id, "took", took)
		}()
	}
	wg.Wait()
	for _, p := range plats {
		if p != nil {
			s.Platforms = append(s.Platforms, p)
		}
	}
	return errors.Join(errs...)
}

// loadOne loads a connector's runtime and reads its manifest, checked
// against the admin's keys for it.
func (s *Set) loadOne(ctx context.Context, id string, cc config.Connector) (*Platform, error) {
	p := &Platform{ID: id, Config: cc, uses: map[string]*quota.Use{}}
	// The admission exists before the runtime: a runtime keeps an
	// instance beyond its warm pool for a call waiting here, instead of
	// closing it and instantiating another for that call.
	p.Admission = admission.New(cc.MaxInstances, s.weightOf(p))
	conn, sum, err := s.loadRuntime(ctx, id, cc, s.cfg.Path(cc.Module), p.Admission.Waiting)
	if err != nil {
		return nil, err
	}
	m, _ := conn.Describe(ctx)
	if err := s.cfg.CheckConnector(id, m); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	p.Conn, p.SHA256, p.Manifest, p.Stamp = conn, sum, m, s.version+"/"+sum
	return p, nil
}

// equipPlatforms gives every platform its cache and its fetch gate, on the
// quotas buildQuotas made, in parallel (a cache may load a large file).
func (s *Set) equipPlatforms() error {
	errs := make([]error, len(s.Platforms))
	var wg sync.WaitGroup
	for i, p := range s.Platforms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.equip(p)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (s *Set) equip(p *Platform) error {
	id, cc, m := p.ID, p.Config, p.Manifest
	lims := map[string]fetch.Limiter{}
	for service, u := range p.uses {
		lims[service] = u
	}
	cache, err := s.newCache(p)
	if err != nil {
		return err
	}
	p.Cache = cache
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
		Logger:           s.log,
		UserAgent:        "BesluitBron/" + s.version,
		Limiters:         lims,
		Cache:            s.clusterTier(p, cache),
		// A 429's Retry-After and the RateLimit headers correct the
		// schedulers, which read the host's clock, and the path is
		// measured on it: so must the gate.
		Now: s.now,
	})
	if err != nil {
		return err
	}
	p.Gate = gate
	attrs := []any{"connector", id, "version", m.Version, "sha256", p.SHA256[:12], "tools", len(m.Tools),
		"client_features", ClientFeaturesText(id, m, cc)}
	if w, ok := p.Conn.(*wasmrt.Connector); ok {
		// How a call past its deadline is stopped: the loop budget, or
		// wazero's slower checks for a module the rewriter left alone.
		stop := "loop budget"
		if !w.Instrumented {
			stop = "wazero checks"
		}
		attrs = append(attrs, "deadline_stop", stop)
	}
	s.log.Info("connector loaded", attrs...)
	return nil
}

// runtimeLoader starts a connector whose module file (bytes b, hex sha256
// sum, already checked against the config's pin) is at path.
type runtimeLoader func(s *Set, ctx context.Context, id string, cc config.Connector, path string, b []byte, sum string, wanted func() bool) (connector.Connector, error)

// runtimes maps connectors.<id>.runtime to its loader. Every loader
// returns a plain connector.Connector: nothing after loadRuntime knows,
// or may ask, which runtime runs a connector.
var runtimes = map[string]runtimeLoader{
	"wasm":    (*Set).loadWasm,
	"process": (*Set).loadProcess,
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
func (s *Set) loadRuntime(ctx context.Context, id string, cc config.Connector, path string, wanted func() bool) (connector.Connector, string, error) {
	load, ok := runtimes[cc.Runtime]
	if !ok { // config validation allows only the keys above
		return nil, "", fmt.Errorf("connectors.%s.runtime %q: want \"wasm\" or \"process\"", id, cc.Runtime)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", missingModule(id, cc, s.cfg.Dir, path, err)
	}
	d := sha256.Sum256(b)
	sum := hex.EncodeToString(d[:])
	if cc.SHA256 != "" && cc.SHA256 != sum {
		return nil, "", fmt.Errorf("connectors.%s.sha256: module %s has sha256 %s, config pins %s", id, path, sum, cc.SHA256)
	}
	conn, err := load(s, ctx, id, cc, path, b, sum, wanted)
	if err != nil {
		return nil, "", err
	}
	return conn, sum, nil
}

func (s *Set) loadWasm(ctx context.Context, id string, cc config.Connector, _ string, b []byte, sum string, wanted func() bool) (connector.Connector, error) {
	var recordDir string // load records beside the compiled code
	if s.ccache != nil {
		recordDir = s.cfg.Path(s.cfg.Runtime.CompilationCacheDir)
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
		CompilationCache: s.ccache,
		CacheDir:         recordDir,
		SHA256:           sum,
		Pinned:           cc.SHA256 != "",
		Logger:           s.log,
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

// ClientFeaturesText says what a connector asked for and got, the same
// in check-config and the start log: "none asked", or "elicitation
// granted; sampling not granted (connectors.<id>.grant)".
func ClientFeaturesText(id string, m connector.Manifest, cc config.Connector) string {
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
func (s *Set) loadProcess(ctx context.Context, id string, cc config.Connector, path string, _ []byte, sum string, _ func() bool) (connector.Connector, error) {
	return nativert.Load(ctx, nativert.Options{
		ID:            id,
		Path:          path,
		SHA256:        sum,
		PoolSize:      cc.MaxInstances, // a process serves its calls concurrently: it bounds calls, not processes
		MemoryLimitMB: cc.MemoryLimitMB,
		CallTimeout:   cc.CallTimeout,
		Grant:         cc.Grant,
		Client:        askClient,
		Logger:        s.log,
	})
}

// buildQuotas makes the quotas from every loaded manifest and the config:
// the services of any connectors that name one upstream host (or one named
// quota) share one limiter, at the strictest of their limits (quota.Build
// logs a conflict once, naming its sources). Each platform then holds the
// quotas its services use, shared ones included, and each limited
// service's way to its quota. In Redis mode each quota is shared with the
// other replicas under its own name.
func (s *Set) buildQuotas() error {
	byID := map[string]*Platform{}
	var claims []quota.Claim
	for _, p := range s.Platforms {
		byID[p.ID] = p
		claims = append(claims, quota.Claims(p.ID, p.Manifest, func(s connector.Service) (sched.Limit, bool) {
			units, per := p.Config.Limit(s)
			_, admin := p.Config.Limits[s.Name]
			return sched.Limit{Units: units, Per: per}, admin
		})...)
	}
	qs, err := quota.Build(claims, &sched.Options{Clock: s.clock}, s.log)
	if err != nil {
		return err
	}
	s.Quotas, s.Claims = qs, claims
	for _, q := range qs {
		q.Via(s.clusterLimiter(q))
		q.PauseDeadlines(clientcall.Pause)
		for _, u := range q.Users {
			p := byID[u.Platform]
			p.uses[u.Service] = q.Use(u.Platform, u.Service)
			if !slices.Contains(p.Limiters, q) {
				p.Limiters = append(p.Limiters, q)
			}
		}
		if q.Shared() {
			s.log.Info("quota shared by several connectors: one limit for them together", "quota", q.Name,
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

// openCluster connects to Redis when cluster.redis_url is set. A replica
// that cannot reach Redis at start does not start: it could not know how
// many replicas share the limits.
func (s *Set) openCluster(ctx context.Context) error {
	cc := s.cfg.Cluster
	if cc.RedisURL == "" {
		return nil
	}
	c, err := cluster.New(ctx, cluster.Options{
		URL:       cc.RedisURL,
		ReplicaID: cc.ReplicaID,
		Lease:     cc.Lease,
		Timeout:   cc.Timeout,
		Logger:    s.log,
		Metrics:   cluster.NewMetrics(s.reg),
		// A host on a clock of its own (tests in virtual time) shares its
		// limits in that time too: Redis's clock would refill them in
		// real time, which the host's clock does not follow.
		Clock:        s.clock,
		ExplicitTime: s.clock != nil,
	})
	if err != nil {
		return err
	}
	s.Cluster = c
	return nil
}

// clusterLimiter shares a quota through Redis under its name, or returns
// l unchanged without a cluster. Call it once per quota.
func (s *Set) clusterLimiter(l *quota.Limiter) fetch.Limiter {
	if s.Cluster == nil {
		return l
	}
	return s.Cluster.SharedQuota(l)
}

// clusterTier puts the full-text tier in Redis behind a platform's cache,
// or returns c unchanged without a cluster.
func (s *Set) clusterTier(p *Platform, c fetch.Cache) fetch.Cache {
	if s.Cluster == nil || c == nil {
		return c
	}
	ttl := map[string]time.Duration{}
	for _, cl := range p.Manifest.CacheClasses {
		if cl.Name == connector.ClassDocument {
			ttl[cl.Name] = p.Config.TTLFor(cl)
		}
	}
	now := s.now
	return s.Cluster.Tier(c, cluster.TierOptions{Platform: p.ID, TTL: ttl, Version: s.version, ModuleSHA256: p.SHA256, Now: now})
}

// startCluster registers this replica and starts its heartbeats, once the
// limiters exist.
func (s *Set) startCluster(ctx context.Context) error {
	if s.Cluster == nil {
		return nil
	}
	if err := s.Cluster.Start(ctx); err != nil {
		return err
	}
	s.log.Info("cluster: sharing every platform's limit through Redis", "replica", s.Cluster.ReplicaID(), "lease", s.cfg.Cluster.Lease)
	return nil
}

// closeCluster leaves the cluster: this replica's waiting calls leave the
// shared queues at once.
func (s *Set) closeCluster() error {
	if s.Cluster == nil {
		return nil
	}
	return s.Cluster.Close()
}

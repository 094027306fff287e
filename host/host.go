package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/tetratelabs/wazero"

	"github.com/besluitbron/besluitbron/host/internal/admission"
	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/host/internal/fetch"
	"github.com/besluitbron/besluitbron/host/internal/limits"
	"github.com/besluitbron/besluitbron/host/internal/loadstatus"
	"github.com/besluitbron/besluitbron/host/internal/mcpserver"
	"github.com/besluitbron/besluitbron/host/internal/memo"
	"github.com/besluitbron/besluitbron/host/internal/wasmrt"
	"github.com/besluitbron/besluitbron/host/internal/web"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Config is the admin's configuration (plugins.toml and environment).
type Config = config.Config

// LoadConfig reads a config file (path may be "") and environment
// overrides (environ nil means os.Environ()). Errors name the key.
func LoadConfig(path string, environ []string) (*Config, error) {
	return config.Load(path, environ)
}

// Options configure a Host.
type Options struct {
	// Config is required.
	Config *Config
	// Version is BesluitBron's version: serverInfo.version and the cache
	// stamp.
	Version string
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Clock drives the schedulers (nil = the real clock; tests pass a
	// fake or run under testing/synctest).
	Clock sched.Clock
}

// Host is a running BesluitBron.
type Host struct {
	o         Options
	cfg       *Config
	log       *slog.Logger
	platforms []*platform
	mcp       *mcpserver.Server
	ccache    wazero.CompilationCache
	ready     bool
	registry  *prometheus.Registry
	memo      *memo.Store
	metrics   *hostMetrics
	quotas    []*limits.Limiter // every limited quota, by name (quotas.go)
	claims    []limits.Claim    // every service's claim on its quota, limited or not
	lstatus   *loadstatus.Job   // the Laadstatus job (status_tool.go)
	web       *web.Server       // the pages (web.go)
	caches    caches
	cl        clusterState   // cluster.go
	warnings  []string       // said at start (exposure of the unified address)
	unified   map[string]int // each connector's tools on the unified address
}

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
	limiters []*limits.Limiter
	uses     map[string]*limits.Use
	cache    fetch.Cache
	adm      *admission.Admission
}

// New loads every enabled connector and builds the MCP server, in this
// order:
//
//  1. the cluster link, when cluster.redis_url is set;
//  2. every connector's runtime and manifest, in parallel;
//  3. the quotas, from all manifests and the config together: services of
//     any connectors that name one upstream host share one limiter;
//  4. each platform's cache and fetch gate on its quotas, in parallel;
//  5. the replica's registration in the cluster, admission, the metrics,
//     the MCP server and the caches' upkeep.
//
// A connector that fails to load fails the start with an error naming it:
// an admin who enabled it expects it to work.
func New(ctx context.Context, o *Options) (*Host, error) {
	if o == nil || o.Config == nil {
		panic("host.New: nil Options or Config")
	}
	// Refused before anything is opened: a server with no connector
	// would start, with 0 tools, and hide the admin's mistake.
	if err := o.Config.CheckServable(); err != nil {
		return nil, err
	}
	h := &Host{o: *o, cfg: o.Config, log: o.Logger, registry: prometheus.NewRegistry()}
	if h.log == nil {
		h.log = slog.Default()
	}
	h.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	h.metrics = newHostMetrics(h.registry)
	if h.cfg.Cache.Enabled {
		// 64 MiB of kept tool results for all platforms: repeated
		// questions answered without running a connector.
		now := time.Now
		if h.o.Clock != nil {
			now = h.o.Clock.Now
		}
		h.memo = memo.New(64<<20, now)
	}
	if h.o.Version == "" {
		h.o.Version = "dev"
	}
	if dir := h.cfg.Path(h.cfg.Runtime.CompilationCacheDir); dir != "" {
		cc, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			h.log.Warn("compilation cache unavailable; modules compile at every start", "dir", dir, "error", err)
		} else {
			h.ccache = cc
		}
	}
	if err := h.openCluster(ctx); err != nil {
		h.Close(ctx)
		return nil, err
	}
	if err := h.loadConnectors(ctx); err != nil {
		h.Close(ctx)
		return nil, err
	}
	if err := h.buildQuotas(); err != nil {
		h.Close(ctx)
		return nil, err
	}
	if err := h.equipPlatforms(); err != nil {
		h.Close(ctx)
		return nil, err
	}
	if err := h.startCluster(ctx); err != nil {
		h.Close(ctx)
		return nil, err
	}
	var plats []mcpserver.Platform
	for _, p := range h.platforms {
		p.adm = admission.New(p.cfg.MaxInstances, h.weightOf(p))
		plats = append(plats, mcpserver.Platform{Manifest: p.manifest, Connector: p.conn, Host: p.gate,
			Admission: p.adm, ToolPrefix: p.cfg.ToolPrefix, ResourceBase: p.cfg.ResourceBase,
			Stamp: h.o.Version + "/" + p.sha256, Reused: p.countReuse})
	}
	h.registry.MustRegister(limits.NewCollector(h.quotas), &runtimeCollector{h: h})
	plan := h.planExposure()
	hostTools := h.hostTools(plan.onUnified)
	h.warnings = h.exposureWarnings(plan, hostTools)
	for _, w := range h.warnings {
		h.log.Warn(w)
	}
	srv, err := mcpserver.New(mcpserver.Options{
		Version:      h.o.Version,
		Platforms:    plats,
		HostTools:    hostTools,
		Logger:       h.log,
		Instructions: instructions(plan.onUnified),
		Observe:      h.metrics.observe,
		Memo:         h.memo,
	})
	if err != nil {
		h.Close(ctx)
		return nil, err
	}
	// mcpserver registers every connector on the unified address as on
	// its own; what connectors.<id>.expose and server.tools hide comes
	// off the unified server again before any client connects. A hidden
	// tool stays callable through h.mcp.Call, which the search page and
	// besluitbron_search use.
	u := srv.Unified()
	u.RemoveTools(plan.tools...)
	u.RemovePrompts(plan.prompts...)
	u.RemoveResources(plan.uris...)
	u.RemoveResourceTemplates(plan.uris...)
	h.unified = plan.unified
	h.mcp = srv
	h.startCaches()
	h.ready = true
	return h, nil
}

// weightOf is the session's weight at p's quotas, the smallest of them (1
// when none is limited): admission to p's instances follows the shares
// its schedulers give. A shared quota counts the session's calls through
// every connector that uses it.
func (h *Host) weightOf(p *platform) admission.Weight {
	now := time.Now
	if h.o.Clock != nil {
		now = h.o.Clock.Now
	}
	return func(session string) float64 {
		w, t := 1.0, now()
		for _, l := range p.limiters {
			w = min(w, l.Scheduler().WeightAt(t, session))
		}
		return w
	}
}

// instructions tell a client of the unified address which platforms it
// serves, by the prefix of their tools.
func instructions(ps []*platform) string {
	s := "BesluitBron searches and reads Dutch public decision-making. Tools are prefixed by platform:"
	for _, p := range ps {
		if pfx := p.toolPrefix(); pfx != "" {
			s += fmt.Sprintf(" %s = %s;", pfx, p.manifest.Title)
		}
	}
	return s + " Each tool's description says what it costs; prefer the cheaper route when it also answers the question. Cite results by their url."
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
	conn, sum, err := h.loadRuntime(ctx, id, cc, h.cfg.Path(cc.Module))
	if err != nil {
		return nil, err
	}
	m, _ := conn.Describe(ctx)
	if err := cc.Check(id, m); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	return &platform{id: id, cfg: cc, conn: conn, sha256: sum, manifest: m, uses: map[string]*limits.Use{}}, nil
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
	})
	if err != nil {
		return err
	}
	p.gate = gate
	attrs := []any{"connector", id, "version", m.Version, "sha256", p.sha256[:12], "tools", len(m.Tools)}
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

// Handler is the whole HTTP surface: the MCP addresses (behind the client
// rate limits), the web pages, metrics and health checks.
func (h *Host) Handler() http.Handler {
	mux := http.NewServeMux()
	mcpH := h.mcp.Handler(mcpserver.HTTPOptions{MaxBodyBytes: int64(h.cfg.Server.MaxBodyKB) << 10, ClientAddr: h.clientAddr})
	guarded := h.protect(mcpH)
	mux.Handle("/mcp/", guarded)
	mux.Handle("/sse", guarded) // the unified tools for HTTP+SSE clients that look there
	h.routes(mux)
	h.clusterRoutes(mux)
	return mux
}

// ListenAndServe serves HTTP on the configured address until ctx is done,
// then shuts down gracefully within server.shutdown_timeout. A command
// that loads connectors should call [Listen] before [New] and then
// [Host.Serve] instead, so that a busy address fails the start at once.
func (h *Host) ListenAndServe(ctx context.Context) error {
	ln, err := Listen(h.cfg.Server.Addr)
	if err != nil {
		return err
	}
	return h.Serve(ctx, ln)
}

// Listen binds the TCP address for [Host.Serve]. `besluitbron serve` calls
// it before [New]: loading seven connectors takes seconds (more without a
// compilation cache), and an address already in use should stop the start
// before that, not after. The kernel queues connections that arrive while
// the connectors load; they are answered once Serve runs. Errors name the
// address and what to do.
func Listen(addr string) (net.Listener, error) {
	if err := config.CheckAddr(addr); err != nil {
		return nil, fmt.Errorf("server.addr %v", err)
	}
	ln, err := net.Listen("tcp", addr)
	switch {
	case err == nil:
		return ln, nil
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("server.addr %s: address already in use: another process is listening there (stop it, or choose another address with --addr or server.addr)", addr)
	case errors.Is(err, syscall.EACCES):
		return nil, fmt.Errorf("server.addr %s: permission denied (ports below 1024 need privileges: use a higher port behind a proxy)", addr)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return nil, fmt.Errorf("server.addr %s: no network interface of this machine has that address (use 127.0.0.1, 0.0.0.0 or one of its own addresses)", addr)
	}
	return nil, fmt.Errorf("server.addr %s: %w", addr, err)
}

// CheckAddr checks a listen address's form ("host:port") without binding
// it, as Load checks server.addr; for an address given another way (the
// --addr flag).
func CheckAddr(addr string) error { return config.CheckAddr(addr) }

// Warnings are the start's warnings an admin should read (they are also
// logged): server.tools patterns that match no tool, a unified address
// left with no tool.
func (h *Host) Warnings() []string { return append([]string(nil), h.warnings...) }

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
	limited := map[string]*limits.Limiter{}
	for _, q := range h.quotas {
		limited[q.Name] = q
	}
	var out []ConnectorSummary
	for _, p := range h.platforms {
		s := ConnectorSummary{ID: p.id, Module: p.cfg.Module, Path: h.cfg.Path(p.cfg.Module), Runtime: p.cfg.Runtime,
			SHA256: p.sha256, Tools: len(p.manifest.Tools), Unified: h.unified[p.id]}
		seen := map[string]bool{}
		for _, c := range h.claims {
			if c.Platform != p.id || seen[c.Quota] {
				continue
			}
			seen[c.Quota] = true
			qs := QuotaSummary{Name: c.Quota}
			if q := limited[c.Quota]; q != nil {
				qs.Units, qs.Per = q.Limit.Units, q.Limit.Per
				for _, u := range q.Users {
					if u.Platform != p.id && !slices.Contains(qs.SharedWith, u.Platform) {
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

// Serve serves HTTP on ln until ctx is done.
func (h *Host) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           h.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(h.log.Handler(), slog.LevelWarn),
	}
	h.log.Info("serving", "addr", ln.Addr().String(), "unified", "http://"+ln.Addr().String()+"/mcp/unified/v1", "version", h.o.Version)
	defer h.startStatus(ctx)()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.cfg.Server.ShutdownTimeout)
	defer cancel()
	h.log.Info("shutting down")
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	return nil
}

// ServeStdio serves the unified tools to one client over stdin/stdout
// until the client disconnects or ctx is done.
func (h *Host) ServeStdio(ctx context.Context) error {
	defer h.startStatus(ctx)()
	return h.mcp.Unified().Run(ctx, &mcp.StdioTransport{})
}

// Server exposes the unified MCP server (tests use in-memory transports).
func (h *Host) Server() *mcp.Server { return h.mcp.Unified() }

// ModuleDigests maps each loaded connector id to the hex sha256 of its
// module file, the value connectors.<id>.sha256 pins.
func (h *Host) ModuleDigests() map[string]string {
	out := make(map[string]string, len(h.platforms))
	for _, p := range h.platforms {
		out[p.id] = p.sha256
	}
	return out
}

// Connectors lists the loaded connector ids.
func (h *Host) Connectors() []string { return h.mcp.IDs() }

// Close saves the caches and releases every connector.
func (h *Host) Close(ctx context.Context) error {
	errs := []error{h.closeCaches(), h.closeCluster()}
	for _, p := range h.platforms {
		errs = append(errs, p.conn.Close(ctx))
	}
	if h.ccache != nil {
		errs = append(errs, h.ccache.Close(ctx))
	}
	return errors.Join(errs...)
}

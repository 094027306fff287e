package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/tetratelabs/wazero"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/host/internal/platforms"
	"github.com/besluitbron/besluitbron/host/internal/serve/auth"
	"github.com/besluitbron/besluitbron/host/internal/serve/cite"
	"github.com/besluitbron/besluitbron/host/internal/serve/eventstore"
	"github.com/besluitbron/besluitbron/host/internal/serve/inbound"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/loadstatus"
	"github.com/besluitbron/besluitbron/host/internal/serve/mcpserver"
	"github.com/besluitbron/besluitbron/host/internal/serve/memo"
	"github.com/besluitbron/besluitbron/host/internal/serve/tasks"
	"github.com/besluitbron/besluitbron/host/internal/serve/watch"
	"github.com/besluitbron/besluitbron/host/internal/serve/web"
	"github.com/besluitbron/besluitbron/host/internal/upstream/cluster"
	"github.com/besluitbron/besluitbron/host/internal/upstream/quota"
	"github.com/besluitbron/besluitbron/internal/tracing"
	"github.com/besluitbron/besluitbron/sched"
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
	now       func() time.Time // Options.Clock's, or the real one
	cfg       *Config
	log       *slog.Logger
	platforms []*platform
	engine    *invoke.Engine // the invoke path every tool call takes
	mcp       *mcpserver.Server
	ccache    wazero.CompilationCache
	ready     atomic.Bool // every connector loaded, the edges built: /readyz reads it during the load (Open)
	registry  *prometheus.Registry
	memo      *memo.Store
	events    mcp.EventStore     // kept events of resumable streams (nil: none)
	set       *platforms.Set     // the platforms and what they share (buildPlatforms)
	quotas    []*quota.Limiter   // every limited quota, by name
	claims    []quota.Claim      // every service's claim on its quota, limited or not
	lstatus   *loadstatus.Job    // the Laadstatus job and besluitbron_status (features.go)
	web       *web.Server        // the pages (features.go)
	cl        *cluster.Cluster   // the Redis link, nil without cluster.redis_url
	warnings  []string           // said at start (exposure of the unified address)
	plan      platforms.Exposure // what the unified address serves (buildFeatures)
	tools     []invoke.HostTool
	cites     *cite.Book     // every search result's citation, and the last results (buildInvoke)
	watches   *watch.Manager // the watches (features.go), nil when off
	// stopCancels ends this replica's serving of the tasks/cancel other
	// replicas forward to it (Redis on); nil otherwise.
	stopCancels func()
	authn       *auth.Authenticator // who may call the MCP addresses (server.auth)
	// traces is the OpenTelemetry provider when [tracing] or the OTEL_*
	// variables name an endpoint; nil (off) otherwise.
	traces *tracing.Provider
	// statusOpts is what besluitbron_status says of this installation
	// (fixed once the platforms are loaded).
	statusOpts loadstatus.ToolOptions
	// loaded is closed when the load ends, loadErr set before then:
	// Serve, Wait and Close learn of the end and of a failure from it.
	loaded  chan struct{}
	loadErr error
	// nLoaded of total connectors have their runtime and manifest: what
	// /readyz says during the load.
	nLoaded atomic.Int32
	total   int
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
	h, err := prepare("host.New", o)
	if err != nil {
		return nil, err
	}
	h.load(ctx)
	if h.loadErr != nil {
		h.Close(ctx)
		return nil, h.loadErr
	}
	return h, nil
}

// Open is [New] for a server that answers while it loads: it checks the
// configuration as New does and returns at once, loading the connectors
// in the background. Meanwhile [Host.Serve] answers /healthz, /readyz
// with 503 "loading n of N connectors", /metrics, and every other path
// with 503 and a Retry-After; once the load ends it serves everything, or
// returns the load's error. A first start without a compilation cache
// compiles every module, 30 to 100 s on two cores: a monitor or an
// orchestrator that saw no answer for that long would take the process
// for dead.
//
// Until [Host.Wait] has returned nil, only Serve, Wait and Close may be
// called. Close waits for the load to end, then releases what it opened,
// whether it succeeded or not.
func Open(ctx context.Context, o *Options) (*Host, error) {
	h, err := prepare("host.Open", o)
	if err != nil {
		return nil, err
	}
	go h.load(ctx)
	return h, nil
}

// prepare checks o and builds the host before its load.
func prepare(caller string, o *Options) (*Host, error) {
	if o == nil || o.Config == nil {
		panic(caller + ": nil Options or Config")
	}
	// Refused before anything is opened: a server with no connector
	// would start, with 0 tools, and hide the admin's mistake.
	if err := o.Config.CheckServable(); err != nil {
		return nil, err
	}
	h := newHost(o)
	// Before the load, so that its logs carry trace ids; nothing is
	// opened when it fails.
	if err := h.startTracing(); err != nil {
		return nil, err
	}
	return h, nil
}

// load runs New's steps, records their error and closes h.loaded.
func (h *Host) load(ctx context.Context) {
	defer close(h.loaded)
	for _, build := range []func(context.Context) error{
		h.buildPlatforms, // cluster link, runtimes, quotas, caches, gates
		h.buildInvoke,    // the one invoke path over every platform
		h.buildFeatures,  // the Laadstatus, the host tools, the pages
		h.buildEdges,     // the MCP server over all of it
		h.buildAuth,      // who may call it (server.auth)
	} {
		if err := build(ctx); err != nil {
			h.loadErr = err
			return
		}
	}
	h.set.Start()
	if h.watches != nil {
		h.watches.Start()
	}
	h.ready.Store(true)
}

// Wait waits until the load [Open] started has ended and returns its
// error, or ctx's error first. After [New] it returns nil at once.
func (h *Host) Wait(ctx context.Context) error {
	select {
	case <-h.loaded:
		return h.loadErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// loadState is what /readyz and the paths that wait for the load say
// before the host is ready.
func (h *Host) loadState() string {
	select {
	case <-h.loaded:
		if h.loadErr != nil {
			return "the connectors failed to load (see the log)"
		}
	default:
	}
	return fmt.Sprintf("loading %d of %d connectors", h.nLoaded.Load(), h.total)
}

// newHost is a host with what every later step reads: the clock, the
// logger, the metrics registry, the event store, the kept results and the
// compilation cache.
func newHost(o *Options) *Host {
	h := &Host{o: *o, cfg: o.Config, log: o.Logger, registry: prometheus.NewRegistry(), now: time.Now, loaded: make(chan struct{})}
	for _, c := range h.cfg.Connectors {
		if c.Enabled {
			h.total++
		}
	}
	if o.Clock != nil {
		// One clock for everything that reads the time: the schedulers,
		// caches, kept results, admission and the status job.
		h.now = o.Clock.Now
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	h.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if mb := h.cfg.Server.EventStoreMB; mb > 0 {
		// The events of every stream, for clients that resume one.
		es := eventstore.New(mb << 20)
		h.registry.MustRegister(es.Collector())
		h.events = es
	}
	if h.cfg.Cache.Enabled {
		// 64 MiB of kept tool results for all platforms: repeated
		// questions answered without running a connector.
		h.memo = memo.New(64<<20, h.now)
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
	return h
}

// startTracing turns traces on when [tracing] endpoint or the standard
// OTEL_EXPORTER_OTLP_* variables name a collector, before anything logs
// a call: the host's logger then adds the trace and span ids of a traced
// call to its lines. Off, the logger and every call path stay as they
// were.
func (h *Host) startTracing() error {
	t := h.cfg.Tracing
	p, err := tracing.New(tracing.Config{Endpoint: t.Endpoint, ServiceName: t.ServiceName, SampleRatio: t.SampleRatio,
		Version: h.o.Version, Getenv: os.Getenv, Now: h.now})
	if err != nil || p == nil {
		return err
	}
	h.traces = p
	h.log = slog.New(tracing.LogHandler(h.log.Handler()))
	h.log.Info("tracing on", "endpoint", p.Where(), "sample_ratio", t.SampleRatio)
	return nil
}

// platform is one loaded connector with its policy, as package platforms
// equips it.
type platform = platforms.Platform

// buildPlatforms has package platforms open the cluster link, load every
// connector's runtime and manifest, build the quotas and equip each
// platform with its cache and fetch gate; the host keeps what its
// features read.
func (h *Host) buildPlatforms(ctx context.Context) error {
	s, err := platforms.Build(ctx, platforms.Options{
		Config:           h.cfg,
		Logger:           h.log,
		Registerer:       h.registry,
		Clock:            h.o.Clock,
		Version:          h.o.Version,
		CompilationCache: h.ccache,
		OnClear: func(id string) {
			if h.memo != nil {
				h.memo.Clear(id)
			}
		},
		Loaded: func(string) { h.nLoaded.Add(1) },
	})
	h.set = s
	h.platforms, h.quotas, h.claims, h.cl = s.Platforms, s.Quotas, s.Claims, s.Cluster
	return err
}

// buildInvoke builds the invoke path every tool call takes, the host's
// features' and the MCP clients' alike.
func (h *Host) buildInvoke(context.Context) error {
	var ps []*invoke.Platform
	for _, p := range h.platforms {
		ps = append(ps, &invoke.Platform{Manifest: p.Manifest, Connector: p.Conn, Host: p.Gate,
			Admission: p.Admission, Stamp: p.Stamp, Reused: p.CountReuse})
	}
	h.cites = cite.NewBook(h.now, 0) // every search result gets its citation on the invoke path
	e, err := invoke.New(invoke.Options{Platforms: ps, Memo: h.memo, Logger: h.log, Observe: invoke.Metrics(h.registry), Results: h.cites.Annotate,
		Tracing: h.traces})
	h.engine = e
	return err
}

// replicaID is this replica's id in the cluster, written in its tasks'
// records; "" without a cluster.
func (h *Host) replicaID() string {
	if h.cl == nil {
		return ""
	}
	return h.cl.ReplicaID()
}

// taskRecords is where the tasks' records are shared: the cluster's
// Redis, or nowhere without one.
func (h *Host) taskRecords() tasks.Shared {
	if h.cl == nil {
		return nil
	}
	return h.cl.TaskRecords()
}

// buildEdges builds the MCP server: every connector's tools, resources
// and prompts on its own address and the unified one, with the host's
// tools and the Laadstatus resource, over the invoke path.
func (h *Host) buildEdges(context.Context) error {
	plan := h.plan
	var plats []mcpserver.Platform
	for i, p := range h.platforms {
		plats = append(plats, mcpserver.Platform{Platform: h.engine.Platforms()[i], ToolPrefix: p.Config.ToolPrefix, ResourceBase: p.Config.ResourceBase, Grant: p.Config.Grant,
			Behind: func(more int) (tasks.Wait, bool) {
				limit, refill, place, wait, ok := p.Behind(more)
				return tasks.Wait{Limit: limit, Refill: refill, Position: place, ETA: wait}, ok
			}})
	}
	srv, err := mcpserver.New(mcpserver.Options{
		Version:       h.o.Version,
		Platforms:     plats,
		Engine:        h.engine,
		HostTools:     h.tools,
		Logger:        h.log,
		HostResources: []mcpserver.HostResource{h.statusResource()},
		HostTemplates: h.watchResource(),
		Instructions:  plan.Instructions(),
		Tracing:       h.traces,
		Now:           h.now,
		// Calls that wait at a platform's limit become MCP tasks for
		// clients that declare the extension, in virtual time under a
		// test's clock; with Redis on, every replica reads their records.
		Tasks: tasks.New(tasks.Options{Now: h.now, Shared: h.taskRecords(), Replica: h.replicaID(), Keep: h.cfg.Server.TaskKeep, MaxLife: h.cfg.Server.TaskMaxLife,
			MaxTasks: h.cfg.Server.MaxTasks, MaxPerClient: h.cfg.Server.MaxTasksPerClient,
			MaxBytes: int64(h.cfg.Server.TasksMB) << 20, MaxBytesPerClient: int64(h.cfg.Server.TasksMBPerClient) << 20}),
	})
	if err != nil {
		return err
	}
	// mcpserver registers every connector on the unified address as on
	// its own; what connectors.<id>.expose and server.tools hide comes
	// off the unified server again before any client connects. A hidden
	// tool stays callable through the invoke path, which the search page
	// and besluitbron_search use.
	u := srv.Unified()
	u.RemoveTools(plan.Tools...)
	u.RemovePrompts(plan.Prompts...)
	u.RemoveResources(plan.URIs...)
	u.RemoveResourceTemplates(plan.URIs...)
	h.mcp = srv
	if h.cl != nil {
		// A tasks/cancel another replica receives for a task whose call
		// runs here is forwarded here (tasks.Forwarder), and ends it.
		stop, err := h.cl.TaskRecords().ServeCancels(srv.CancelForwarded)
		if err != nil {
			return err
		}
		h.stopCancels = stop
	}
	// After every status round: tell besluitbron://status's subscribers.
	h.lstatus.Notify(func() { srv.ResourceUpdated(context.Background(), statusURI) })
	return nil
}

// Handler is the whole HTTP surface: the MCP addresses (behind the client
// rate limits), the web pages (behind the same Host and Origin rules and
// the same client limits, per page: guardPages), metrics and health
// checks (outside both: a monitor must reach them whatever the load).
func (h *Host) Handler() http.Handler {
	mux := http.NewServeMux()
	mcpH := h.mcp.Handler(mcpserver.HTTPOptions{
		MaxBodyBytes:         int64(h.cfg.Server.MaxBodyKB) << 10,
		ClientAddr:           h.clientAddr,
		SessionTimeout:       h.cfg.Server.SessionIdleTimeout,
		MaxSessions:          h.cfg.Server.MaxSessions,
		MaxSessionsPerIP:     h.cfg.Server.MaxSessionsPerIP,
		MaxStreamsPerSession: h.cfg.Server.MaxStreamsPerSession,
		MaxStreamsPerIP:      h.cfg.Server.MaxStreamsPerIP,
		MaxBatch:             h.cfg.Server.MaxBatch,
		EventStore:           h.events,
		ResumeGrace:          h.cfg.Server.ResumeGrace,
		PollAfter:            pollAfter(h.cfg.Server.StreamPollAfter),
		PollRetry:            h.cfg.Server.StreamRetry,
		Clock:                h.o.Clock,
		Registerer:           h.registry,
	})
	// server.auth: a request without a valid credential is refused
	// (401) before the limits or the MCP handler see it; the go-sdk
	// binds each session to the client that started it.
	guarded := h.protect(h.authn.SDK(mcpH))
	mux.Handle("/mcp/", h.authn.Wrap(guarded))
	mux.Handle("/sse", h.authn.Wrap(guarded)) // the unified tools for HTTP+SSE clients that look there
	if md := h.authMetadata(); md != nil {
		mux.Handle("GET "+auth.MetadataPath, md)
		mux.Handle("GET "+auth.MetadataPath+"/", md)
	}
	h.routes(mux)
	return h.guardPages(guarded, mux)
}

// buildAuth builds the authenticator of server.auth: the named clients'
// key hashes, or the OAuth token verifier on the host's clock; its
// admissions and refusals are counted on the metrics
// (besluitbron_auth_requests_total{client,outcome}, client a configured
// name, "oauth" or "refused").
func (h *Host) buildAuth(context.Context) error {
	s := h.cfg.Server
	o := auth.Options{Mode: s.AuthMode()}
	switch o.Mode {
	case auth.Keys:
		hashes := map[string]string{}
		for name, c := range h.cfg.Clients {
			hashes[name] = c.KeySHA256
		}
		ks, err := auth.NewKeySet(hashes)
		if err != nil {
			return err
		}
		o.Keys = ks
	case auth.OAuth:
		v, err := auth.NewOAuthVerifier(auth.OAuthOptions{Issuer: s.OAuth.Issuer, Audience: s.OAuth.Audience,
			JWKSURL: s.OAuth.JWKSURL, PublicURL: s.OAuth.PublicURL, Leeway: s.OAuth.Leeway, Now: h.now})
		if err != nil {
			return err
		}
		o.OAuth = v
	}
	if o.Mode != auth.None {
		reqs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "besluitbron_auth_requests_total",
			Help: "Requests to the MCP addresses judged by server.auth: by client (a configured name, oauth, or refused) and outcome (ok, or why refused)."},
			[]string{"client", "outcome"})
		if err := h.registry.Register(reqs); err != nil {
			return err
		}
		o.Observe = func(label, outcome string) { reqs.WithLabelValues(label, outcome).Inc() }
	}
	a, err := auth.New(o)
	h.authn = a
	return err
}

// authMetadata serves the protected-resource metadata (RFC 9728) under
// server.auth = "oauth": the server's at /.well-known/oauth-protected-resource
// and each MCP address's with its path after that; nil otherwise.
func (h *Host) authMetadata() http.Handler {
	if h.authn.Mode() != auth.OAuth {
		return nil
	}
	paths := map[string]bool{"/mcp/unified/v1": true, "/sse": true}
	for _, id := range h.mcp.IDs() {
		paths["/mcp/"+id+"/v1"] = true
	}
	return h.authn.OAuthVerifier().MetadataHandler(func(p string) bool { return paths[p] })
}

// pollAfter is server.stream_poll_after for the MCP handler, where 0
// means its default and "never" is negative.
func pollAfter(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// ListenAndServe serves HTTP on the configured address until ctx is done,
// then shuts down gracefully within server.shutdown_timeout. A command
// that loads connectors should call [Listen] before [Open] and then
// [Host.Serve] instead, so that a busy address fails the start at once
// and the health checks answer while the connectors load.
func (h *Host) ListenAndServe(ctx context.Context) error {
	ln, err := Listen(h.cfg.Server.Addr)
	if err != nil {
		return err
	}
	return h.Serve(ctx, ln)
}

// Listen binds the TCP address for [Host.Serve]. `besluitbron serve` calls
// it before [Open]: loading seven connectors takes seconds (a minute and
// more without a compilation cache), and an address already in use should
// stop the start before that, not after. Errors name the address and what
// to do.
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

// Serve serves HTTP on ln until ctx is done, or until the load [Open]
// started fails (its error is returned); while that load runs it answers
// the health checks only (see Open). It serves within the [server] caps
// and timeouts: at most max_connections open connections and
// max_connections_per_ip from one peer address, shared among the
// addresses when full and reserved_connections of them kept for
// monitoring (past them, a 503 before the request is read:
// inbound.Conns), the request's headers within
// read_header_timeout and all of it within read_timeout, a non-streaming
// answer within write_timeout (a streaming one must make progress within
// it: inbound.Deadlines), and a kept-alive connection closed after
// idle_timeout without a request.
func (h *Host) Serve(ctx context.Context, ln net.Listener) error {
	s := h.cfg.Server
	conns := inbound.LimitConnsReserve(ln, s.MaxConnections, s.MaxConnectionsPerIP, min(s.ReservedConnections, s.MaxConnections/4))
	if err := h.registry.Register(inbound.NewConnCollector(conns)); err != nil {
		// A second Serve on the same Host: the first one's figures stay.
		if _, dup := err.(prometheus.AlreadyRegisteredError); !dup {
			h.log.Warn("connection metrics not registered", "error", err)
		}
	}
	srv := &http.Server{
		// Connection deadlines are wall-clock time, whatever clock the
		// schedulers read.
		Handler: inbound.Deadlines(inbound.ReserveOnly(h.whenLoaded(h.Handler, true), nil), s.WriteTimeout, time.Now),
		// The Conns learn which connections wait between requests (the
		// first to go when a place is taken back) and which requests run
		// on a reserved place (monitoring only).
		ConnState:         conns.ConnState,
		ConnContext:       conns.ConnContext,
		ReadHeaderTimeout: s.ReadHeaderTimeout,
		ReadTimeout:       s.ReadTimeout,
		WriteTimeout:      s.WriteTimeout,
		IdleTimeout:       s.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(h.log.Handler(), slog.LevelWarn),
	}
	ln = conns
	var admin *http.Server
	if a := s.AdminAddr; a != "" {
		aln, err := Listen(a)
		if err != nil {
			return fmt.Errorf("server.admin_addr: %w", err)
		}
		admin = &http.Server{Handler: h.whenLoaded(h.AdminHandler, false), ReadHeaderTimeout: s.ReadHeaderTimeout, ReadTimeout: s.ReadTimeout,
			WriteTimeout: s.WriteTimeout, IdleTimeout: s.IdleTimeout, ErrorLog: srv.ErrorLog}
		h.log.Info("serving monitoring", "admin_addr", aln.Addr().String())
		go admin.Serve(inbound.LimitConns(aln, 64, 0))
		defer admin.Close()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if !h.ready.Load() {
		h.log.Info("listening while the connectors load: /healthz answers, /readyz says when they are loaded",
			"addr", ln.Addr().String(), "connectors", h.total)
		select {
		case <-h.loaded:
		case err := <-errc:
			return err
		case <-ctx.Done():
			h.shutdown(ctx, srv)
			return nil
		}
		if h.loadErr != nil {
			srv.Close() // nothing was served but the health checks
			return h.loadErr
		}
	}
	h.log.Info("serving", "addr", ln.Addr().String(), "unified", "http://"+ln.Addr().String()+"/mcp/unified/v1", "version", h.o.Version,
		"auth", h.authn.Mode(), "clients", len(h.cfg.Clients))
	defer h.startStatus(ctx)()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	h.shutdown(ctx, srv)
	return nil
}

// shutdown stops srv gracefully within server.shutdown_timeout, at once
// past it.
func (h *Host) shutdown(ctx context.Context, srv *http.Server) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.cfg.Server.ShutdownTimeout)
	defer cancel()
	h.log.Info("shutting down")
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
}

// whenLoaded serves what full builds once the load has succeeded, and
// until then the health checks, the metrics (on the public address only
// where server.admin_addr does not serve them) and a 503 with Retry-After
// for every other path. full is built once, by the first request after
// the load: a request that follows Wait's return is always served by it.
func (h *Host) whenLoaded(full func() http.Handler, public bool) http.Handler {
	get := sync.OnceValue(full)
	loading := http.NewServeMux()
	h.healthRoutes(loading)
	switch {
	case !public:
		loading.Handle("GET /metrics", h.metricsHandler())
	case h.cfg.Server.AdminAddr == "":
		loading.Handle("GET /metrics", h.monitored(h.metricsHandler()))
	}
	loading.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "5")
		http.Error(w, h.loadState()+"; try again shortly", http.StatusServiceUnavailable)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.ready.Load() {
			get().ServeHTTP(w, r)
			return
		}
		loading.ServeHTTP(w, r)
	})
}

// ServeStdio serves the unified tools to one client over stdin/stdout
// until the client disconnects or ctx is done (see [Host.ServeIO]).
func (h *Host) ServeStdio(ctx context.Context) error {
	return h.ServeIO(ctx, os.Stdin, os.Stdout)
}

// ServeIO serves the unified tools to one client reading newline-delimited
// JSON-RPC from in and writing it to out, until ctx is done or in ends;
// every request read before the end is answered first (a client may pipe
// its requests and close its end at once: mcpserver.StdioTransport).
func (h *Host) ServeIO(ctx context.Context, in io.Reader, out io.Writer) error {
	defer h.startStatus(ctx)()
	return h.mcp.Unified().Run(ctx, mcpserver.StdioTransport(in, out))
}

// Server exposes the unified MCP server (tests use in-memory transports).
func (h *Host) Server() *mcp.Server { return h.mcp.Unified() }

// Connectors lists the loaded connector ids.
func (h *Host) Connectors() []string { return h.mcp.IDs() }

// Ready waits until every connector can run a call. A connector loaded
// from its load record (the compilation cache folder keeps one per
// module) is compiled in the background after New returns, and its first
// calls wait for that; Ready is for callers that want the wait up front,
// such as a readiness probe or a measurement of the calls themselves. It
// returns the first connector's load error, or ctx's.
func (h *Host) Ready(ctx context.Context) error {
	for _, p := range h.platforms {
		if r, ok := p.Conn.(interface{ Ready(context.Context) error }); ok {
			if err := r.Ready(ctx); err != nil {
				return fmt.Errorf("%s: %w", p.ID, err)
			}
		}
	}
	return nil
}

// Close saves the caches and releases every connector.
func (h *Host) Close(ctx context.Context) error {
	<-h.loaded // what a load in progress opens is closed with the rest
	var errs []error
	if h.stopCancels != nil {
		h.stopCancels()
	}
	if h.watches != nil {
		errs = append(errs, h.watches.Close())
	}
	if h.set != nil {
		errs = append(errs, h.set.Close(ctx))
	}
	if h.ccache != nil {
		errs = append(errs, h.ccache.Close(ctx))
	}
	// Last: the spans of calls that ended while closing go out too.
	errs = append(errs, h.traces.Shutdown(ctx))
	return errors.Join(errs...)
}

// protect wraps the MCP addresses with the transport checks (Origin) and
// the client rate limits of [mcp_rate_limit]: one bucket for the process,
// one per connector on every address (and one for the calls that touch no
// connector), one per session or, before a session exists, per client
// address (package inbound). Refusals are counted per layer and per
// connector on the host's metrics.
//
// Which connector a message counts against: on /mcp/<id>/v1, <id>; on
// /mcp/unified/v1 and /sse (and their HTTP+SSE message endpoints), the
// connector of the tool a tools/call names, or of the resource a
// resources/read names, as the host registered them (tool_prefix and
// resource_base included); anything else there counts against
// inbound.NoConnector.
//
// Each call builds its own limits; a Host serves one handler. The pages
// of that handler draw on the same limits (Guard.Limits).
func (h *Host) protect(next http.Handler) *inbound.Guard {
	s, rl := h.cfg.Server, h.cfg.MCPRateLimit
	trusted := config.Prefixes(s.TrustedProxies)
	// Both were validated when the configuration was loaded.
	origins, err := inbound.NewOrigins(s.AllowedOrigins)
	if err != nil {
		panic(fmt.Sprintf("server.allowed_origins%v", err))
	}
	var (
		lim   *inbound.Limits
		route func(string, inbound.Message) (string, bool)
	)
	if rl.Enabled {
		if msg := rl.Deprecation(); msg != "" {
			h.log.Warn(msg)
		}
		ids := h.mcp.IDs()
		lim, err = inbound.New(&inbound.Options{
			Process:    inbound.Limit{RPS: rl.ProcessRPS, Burst: rl.ProcessBurst},
			Connector:  inbound.Limit{RPS: rl.ConnectorRPS, Burst: rl.ConnectorBurst},
			Session:    inbound.Limit{RPS: rl.SessionRPS, Burst: rl.SessionBurst},
			IP:         inbound.Limit{RPS: rl.IPRPS, Burst: rl.IPBurst},
			Client:     clientLimit(rl),
			Connectors: ids,
			// A session's buckets are forgotten when the session would be.
			SessionIdle: h.cfg.Server.SessionIdleTimeout,
		})
		if err != nil {
			panic(fmt.Sprintf("mcp_rate_limit: %v", err))
		}
		route = h.mcp.Route()
	}
	now := h.now
	g := inbound.NewGuard(next, inbound.GuardOptions{
		Limits:   lim,
		Origins:  origins,
		ClientIP: func(r *http.Request) netip.Addr { return inbound.ClientIP(r, trusted) },
		Now:      now,
		Route:    route,
		Principal: func(r *http.Request) string {
			p, _ := auth.FromContext(r.Context())
			return p.ID()
		},
		MaxBodyBytes: int64(s.MaxBodyKB) << 10,
		MaxBatch:     s.MaxBatch,
		MarkChecked:  h.traces != nil,
	})
	if err := h.registry.Register(inbound.NewCollector(g)); err != nil {
		// A second Handler on the same Host: the first one's figures stay.
		if _, dup := err.(prometheus.AlreadyRegisteredError); !dup {
			h.log.Warn("client rate limit metrics not registered", "error", err)
		}
	}
	return g
}

// clientLimit is mcp_rate_limit's limit of one client address over all
// its requests: client_rps and client_burst, each defaulting (0) to half
// of the smaller of the process and connector limits, so that one address
// never spends more than half of a shared bucket.
func clientLimit(rl config.RateLimit) inbound.Limit {
	def := inbound.DefaultClient(inbound.Limit{RPS: rl.ProcessRPS, Burst: rl.ProcessBurst}, inbound.Limit{RPS: rl.ConnectorRPS, Burst: rl.ConnectorBurst})
	if rl.ClientRPS > 0 {
		def.RPS = rl.ClientRPS
	}
	if rl.ClientBurst > 0 {
		def.Burst = rl.ClientBurst
	}
	return def
}

// clientAddr is the client's address as the limits and the scheduler see
// it: the connection's peer, or the forwarded address when the peer is in
// server.trusted_proxies. The MCP layer uses it as the session of clients
// without one.
func (h *Host) clientAddr(r *http.Request) string {
	a, ok := inbound.ClientIPFromContext(r.Context())
	if !ok {
		a = inbound.ClientIP(r, config.Prefixes(h.cfg.Server.TrustedProxies))
	}
	if !a.IsValid() {
		return mcpserver.RemoteIP(r)
	}
	return a.String()
}

// routes adds the non-MCP endpoints: metrics (unless server.admin_addr
// serves them), health, and the web pages.
func (h *Host) routes(mux *http.ServeMux) {
	if h.cfg.Server.AdminAddr == "" {
		mux.Handle("GET /metrics", h.monitored(h.metricsHandler()))
	}
	// This replica's view of the cluster; the Redis address and errors
	// only on the admin address.
	mux.Handle("GET /status/cluster.json", h.monitored(cluster.StatusHandler(h.cl, false)))
	h.healthRoutes(mux)
	h.webRoutes(mux)
}

func (h *Host) metricsHandler() http.Handler {
	return promhttp.HandlerFor(h.registry, promhttp.HandlerOpts{Registry: h.registry})
}

// monitored puts a monitoring path of the public address behind the
// pages' Host rule and a cap on concurrent renders (inbound.Monitor).
func (h *Host) monitored(next http.Handler) http.Handler {
	origins, err := inbound.NewOrigins(h.cfg.Server.AllowedOrigins)
	if err != nil { // validated when the configuration was loaded
		panic(fmt.Sprintf("server.allowed_origins%v", err))
	}
	return inbound.NewMonitor(next, origins, config.Prefixes(h.cfg.Server.TrustedProxies))
}

// AdminHandler is what server.admin_addr serves: /metrics, /healthz,
// /readyz and the whole /status/cluster.json, without the public
// address's Host rule and caps (an admin's own network).
func (h *Host) AdminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h.metricsHandler())
	h.healthRoutes(mux)
	mux.Handle("GET /status/cluster.json", cluster.StatusHandler(h.cl, true))
	return mux
}

// healthRoutes adds /healthz and /readyz.
func (h *Host) healthRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if !h.ready.Load() {
			http.Error(w, h.loadState(), http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
}

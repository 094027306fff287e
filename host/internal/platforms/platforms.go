package platforms

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/tetratelabs/wazero"

	"github.com/besluitbron/besluitbron/host/internal/config"
	"github.com/besluitbron/besluitbron/host/internal/runtime/admission"
	"github.com/besluitbron/besluitbron/host/internal/upstream/cluster"
	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
	"github.com/besluitbron/besluitbron/host/internal/upstream/quota"
	"github.com/besluitbron/besluitbron/sched"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// Options are what assembling the platforms reads from the host: every
// one of them is shared with the rest of the host (one clock, one log,
// one registry), so the host owns them and hands them in.
type Options struct {
	// Config is the admin's configuration; its enabled connectors are
	// the platforms built.
	Config *config.Config
	// Logger receives the load, quota and cluster lines an admin reads
	// at start.
	Logger *slog.Logger
	// Registerer takes the cache, cluster, quota and runtime metrics, on
	// the host's registry so that /metrics shows them with the rest.
	Registerer prometheus.Registerer
	// Clock drives the schedulers, the caches' TTLs and the save loop
	// (nil = the real clock), so that a test's fake clock drives all of
	// them together.
	Clock sched.Clock
	// Version is BesluitBron's version: the User-Agent, the caches' and
	// the cluster tier's stamp.
	Version string
	// CompilationCache keeps compiled WebAssembly between starts (nil:
	// every start compiles); its folder also holds the load records.
	CompilationCache wazero.CompilationCache
	// OnClear is called with a platform's id when `besluitbron cache
	// clear` empties its cache: the host's kept results were built on
	// what is cleared, and they belong to the serving side, which this
	// package may not import.
	OnClear func(platform string)
	// Loaded is called with a connector's id once its runtime and
	// manifest are loaded (nil: not called), from the goroutine that
	// loaded it: the host counts these for /readyz while the rest load.
	Loaded func(id string)
}

// Platform is one loaded connector with its policy, equipped: what the
// host serves it with.
type Platform struct {
	// ID is the connector's key in the config (connectors.<id>).
	ID string
	// Config is the connector's section of the config.
	Config config.Connector
	// Conn is the running connector, whichever runtime runs it.
	Conn connector.Connector
	// SHA256 is the module file's hex digest, the value connectors.<id>.sha256 pins.
	SHA256 string
	// Manifest is what the connector described at load, checked against
	// the admin's keys for it.
	Manifest connector.Manifest
	// Gate is the connector's only way to its platform: quotas, cache,
	// network rules.
	Gate *fetch.Gate
	// Limiters are the quotas the platform's services count against,
	// shared ones included (another connector's services may use them
	// too).
	Limiters []*quota.Limiter
	// Cache is the platform's cache, nil when caching is off.
	Cache fetch.Cache
	// Admission is the fair admission to the connector's instances.
	Admission *admission.Admission
	// Stamp is the version and module a kept result was made with: a
	// result of another build or module is not served.
	Stamp string
	// uses are its limited services' ways to their quotas, by service
	// name.
	uses map[string]*quota.Use
}

// Set is every enabled connector's platform with what they share: the
// quotas, the cluster link and the caches' upkeep.
type Set struct {
	// Platforms are the loaded platforms, in id order.
	Platforms []*Platform
	// Quotas are every limited quota, by name.
	Quotas []*quota.Limiter
	// Claims are every service's claim on its quota, limited or not.
	Claims []quota.Claim
	// Cluster is the Redis link, nil when cluster.redis_url is unset.
	Cluster *cluster.Cluster

	cfg     *config.Config
	log     *slog.Logger
	reg     prometheus.Registerer
	now     func() time.Time
	clock   sched.Clock
	version string
	ccache  wazero.CompilationCache
	onClear func(platform string)
	loaded  func(id string)
	caches  caches
}

// Build opens the cluster link (when cluster.redis_url is set), loads
// every connector's runtime and manifest in parallel, builds the quotas
// from all manifests and the config together (services of any connectors
// that name one upstream host share one limiter), equips each platform
// with its cache and fetch gate, and registers the replica.
//
// On an error the Set is returned with what was opened (the platforms
// that loaded are kept even when another failed), so that the caller's
// Close releases it.
func Build(ctx context.Context, o Options) (*Set, error) {
	s := &Set{cfg: o.Config, log: o.Logger, reg: o.Registerer, now: time.Now, clock: o.Clock,
		version: o.Version, ccache: o.CompilationCache, onClear: o.OnClear, loaded: o.Loaded}
	if o.Clock != nil {
		s.now = o.Clock.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	for _, step := range []func(context.Context) error{
		s.openCluster, s.loadConnectors,
		func(context.Context) error { return s.buildQuotas() },
		func(context.Context) error { return s.equipPlatforms() },
		s.startCluster,
	} {
		if err := step(ctx); err != nil {
			return s, err
		}
	}
	s.reg.MustRegister(quota.NewCollector(s.Quotas), &runtimeCollector{s: s})
	return s, nil
}

// Close saves the caches, leaves the cluster and releases every
// connector.
func (s *Set) Close(ctx context.Context) error {
	errs := []error{s.closeCaches(), s.closeCluster()}
	for _, p := range s.Platforms {
		errs = append(errs, p.Conn.Close(ctx))
	}
	return errors.Join(errs...)
}

package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/providers/env/v2"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/v2"

	"github.com/besluitbron/besluitbron/internal/weborigin"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// EnvPrefix prefixes every environment override.
const EnvPrefix = "BESLUITBRON_"

// notConfigEnv are variables under EnvPrefix that are not configuration:
// the test and soak switches of make test and make soak, and go-plugin's
// handshake cookie of native connectors. They are skipped, so that a
// config loaded while they are set (every host test under make soak) is
// not refused for an unknown key.
var notConfigEnv = map[string]bool{"soak": true, "require_browser": true, "require_redis": true, "ts_client_dir": true, "connector": true}

// Config is the whole configuration.
type Config struct {
	Server       Server               `koanf:"server"`
	Log          Log                  `koanf:"log"`
	Runtime      Runtime              `koanf:"runtime"`
	Cache        Cache                `koanf:"cache"`
	MCPRateLimit RateLimit            `koanf:"mcp_rate_limit"`
	Status       Status               `koanf:"status"`
	Cluster      Cluster              `koanf:"cluster"`
	Watch        Watch                `koanf:"watch"`
	Tracing      Tracing              `koanf:"tracing"`
	Connectors   map[string]Connector `koanf:"connectors"`
	// Clients are the named clients ([clients.<name>]): who may call the
	// MCP addresses when server.auth = "keys", each by the sha256 of its
	// API key, and whom the fair scheduler and the client limits count.
	Clients map[string]Client `koanf:"clients"`
	// Dir is the directory relative paths resolve against.
	Dir string `koanf:"-"`
	// File is the file the configuration was read from ("" when none),
	// which errors found after loading name.
	File string `koanf:"-"`
	// Warnings are what Load found worth telling the admin without
	// refusing: environment variables that look meant for BesluitBron
	// but are not spelled BESLUITBRON_ (envwarn.go). The start logs each.
	Warnings []string `koanf:"-"`
}

// Server configures the HTTP listener.
type Server struct {
	Addr            string        `koanf:"addr" form:"\"host:port\" in quotes, such as \"127.0.0.1:8080\" (\":8080\" listens on every interface)"`
	TrustedProxies  []string      `koanf:"trusted_proxies" form:"a list of CIDRs in brackets, such as [\"10.0.0.0/8\"]"`
	AllowedOrigins  []string      `koanf:"allowed_origins" form:"a list of origins in brackets, such as [\"https://app.example\"]"`
	ShutdownTimeout time.Duration `koanf:"shutdown_timeout"`
	MaxBodyKB       int           `koanf:"max_body_kb"`
	// Tools, when set, lists which tools the unified address
	// (/mcp/unified/v1, /sse and stdio) serves: patterns matched against
	// the names clients see, with * for any run of characters and ? for
	// one (path.Match), e.g. ["obv_*", "tk_search", "besluitbron_search"].
	// Empty (the default) serves every tool. It trims the list an
	// assistant reads at every session; each connector's own address
	// (/mcp/<id>/v1) keeps all of its tools whatever the patterns say,
	// and a hidden tool stays callable by the host itself (the search
	// page, besluitbron_search). A connector none of whose tools match
	// is hidden from the unified address as with
	// connectors.<id>.expose = false. A pattern that matches no tool is
	// reported at start (a likely typo) but does not stop it.
	Tools []string `koanf:"tools" form:"a list of tool name patterns in brackets, such as [\"<id>_*\", \"besluitbron_search\"]"`

	// AdminAddr, when set, is a second listener ("host:port") serving
	// only monitoring: /metrics, /healthz, /readyz and the whole
	// /status/cluster.json (with Redis errors and replica names). The
	// public address then serves no /metrics. Empty (the default): the
	// public address serves /metrics, behind the Host rule and a cap on
	// concurrent renders.
	AdminAddr string `koanf:"admin_addr" form:"\"host:port\" in quotes, such as \"127.0.0.1:9090\""`

	// The phases of one HTTP request (http.Server's timeouts).
	// ReadHeaderTimeout bounds the request line and headers;
	// ReadTimeout the whole request, body included, from the
	// connection's accept or its previous request; WriteTimeout a
	// non-streaming answer (a streaming SSE answer is exempt: its
	// handler clears the deadline); IdleTimeout a kept-alive connection
	// between requests.
	ReadHeaderTimeout time.Duration `koanf:"read_header_timeout"`
	ReadTimeout       time.Duration `koanf:"read_timeout"`
	WriteTimeout      time.Duration `koanf:"write_timeout"`
	IdleTimeout       time.Duration `koanf:"idle_timeout"`
	// MaxConnections caps the open connections in all, and
	// MaxConnectionsPerIP those of one remote address (behind a proxy:
	// the proxy's). A connection past either is answered 503 and closed
	// before its request is read.
	MaxConnections      int `koanf:"max_connections"`
	MaxConnectionsPerIP int `koanf:"max_connections_per_ip"`
	// ReservedConnections of the MaxConnections (at most a quarter of
	// them) are kept for monitoring (/healthz, /readyz, /metrics): a
	// client whose address holds its share of the others (or its cap) may
	// still open one for those paths.
	ReservedConnections int `koanf:"reserved_connections"`
	// MaxSessions and MaxSessionsPerIP cap the live MCP sessions in all
	// and per client IP; MaxStreamsPerSession and MaxStreamsPerIP the
	// open event streams (SSE) of one session and of one client IP.
	MaxSessions          int `koanf:"max_sessions"`
	MaxSessionsPerIP     int `koanf:"max_sessions_per_ip"`
	MaxStreamsPerSession int `koanf:"max_streams_per_session"`
	MaxStreamsPerIP      int `koanf:"max_streams_per_ip"`
	// SessionIdleTimeout ends a session no request has used for this
	// long.
	SessionIdleTimeout time.Duration `koanf:"session_idle_timeout"`
	// MaxBatch caps the elements of one JSON-RPC batch.
	MaxBatch int `koanf:"max_batch"`
	// EventStoreMB bounds the memory of the events kept for resuming
	// streams (0: streams are not resumable).
	EventStoreMB int `koanf:"event_store_mb"`
	// ResumeGrace is how long a call whose stream's connection closed
	// keeps running for the client to resume it.
	ResumeGrace time.Duration `koanf:"resume_grace"`
	// StreamPollAfter closes the event stream of a call still running
	// after this long, with a retry hint of StreamRetry, for the client
	// to resume (0: never).
	StreamPollAfter time.Duration `koanf:"stream_poll_after"`
	StreamRetry     time.Duration `koanf:"stream_retry"`
	// MaxTasks and TasksMB bound the MCP tasks kept (waiting calls and
	// finished results) in all; MaxTasksPerClient and TasksMBPerClient
	// those of one client. TaskKeep is how long a finished task's result
	// is kept; TaskMaxLife how long a task may work past the start its
	// queue expects for it (tasks.Options.MaxLife).
	MaxTasks          int           `koanf:"max_tasks"`
	MaxTasksPerClient int           `koanf:"max_tasks_per_client"`
	TasksMB           int           `koanf:"tasks_mb"`
	TasksMBPerClient  int           `koanf:"tasks_mb_per_client"`
	TaskKeep          time.Duration `koanf:"task_keep"`
	TaskMaxLife       time.Duration `koanf:"task_max_life"`

	// Auth says who may call the MCP addresses: "none" (the default:
	// anyone, counted per session and per address), "keys" (only the
	// [clients.<name>] with their API key, sent as Authorization: Bearer,
	// each counted as one client across its sessions) or "oauth" (JWT
	// access tokens of the [server.oauth] issuer; the token's subject is
	// the client).
	Auth string `koanf:"auth" form:"\"none\", \"keys\" or \"oauth\" in quotes"`
	// OAuth configures server.auth = "oauth".
	OAuth OAuth `koanf:"oauth"`
}

// Auth modes (server.auth).
const (
	AuthNone  = "none"
	AuthKeys  = "keys"
	AuthOAuth = "oauth"
)

// Client is one [clients.<name>] table: a named client of the MCP
// addresses. Only the sha256 of its API key is stored (`besluitbron
// new-key <name>` makes a key and prints this line).
type Client struct {
	KeySHA256 string `koanf:"key_sha256" form:"64 hexadecimal digits in quotes (the sha256 of the key; besluitbron new-key <name> prints it)"`
}

// OAuth configures BesluitBron as an OAuth 2.1 resource server
// (server.auth = "oauth"): it accepts JWT access tokens the issuer signed
// for the audience, and serves its protected-resource metadata (RFC 9728)
// naming the issuer.
type OAuth struct {
	// Issuer is the authorization server's issuer identifier (the tokens'
	// iss), an https URL (http only for a loopback host).
	Issuer string `koanf:"issuer" form:"a URL in quotes, such as \"https://login.example\""`
	// Audience is the aud a token must carry: this server's resource
	// identifier, usually its public unified address.
	Audience string `koanf:"audience" form:"a URL in quotes, such as \"https://besluitbron.example/mcp/unified/v1\""`
	// JWKSURL is where the issuer's signing keys are; empty: the jwks_uri
	// of the issuer's /.well-known/openid-configuration, else of its
	// /.well-known/oauth-authorization-server.
	JWKSURL string `koanf:"jwks_url" form:"a URL in quotes"`
	// PublicURL is this server's address as clients reach it
	// ("https://besluitbron.example"), from which the protected-resource
	// metadata's resource and its address in the 401 are made; empty:
	// the request's own scheme and Host.
	PublicURL string `koanf:"public_url" form:"a URL in quotes, such as \"https://besluitbron.example\""`
	// Leeway is the clock skew allowed on exp and nbf.
	Leeway time.Duration `koanf:"leeway"`
}

// Log configures log/slog.
type Log struct {
	Level  string `koanf:"level"`
	Format string `koanf:"format"`
}

// Status configures the load-status (Laadstatus) job: how often each
// platform is asked how fresh its data is, through the public session.
type Status struct {
	Enabled  bool          `koanf:"enabled"`
	Interval time.Duration `koanf:"interval"`
	// SlowAfter marks a platform slow when its probe takes longer.
	SlowAfter time.Duration `koanf:"slow_after"`
}

// Watch configures the watches (saved searches that tell what is new,
// host/internal/serve/watch): how much of each platform's quota all of
// them together may spend, how often one may be polled at most, how many
// may exist, and where they are kept across restarts.
type Watch struct {
	// Enabled serves besluitbron_watch, the feeds and the search page's
	// "follow" link; false: none of them.
	Enabled bool `koanf:"enabled"`
	// QuotaShare is the part of each platform's limit (0 < share <= 0.5)
	// that all watches' polls together may use in any window of the
	// limit's length: the rest stays for the people searching.
	QuotaShare float64 `koanf:"quota_share"`
	// MinInterval is the shortest time between two polls of one search.
	MinInterval time.Duration `koanf:"min_interval"`
	// MaxPerOwner caps the watches of one client (an MCP session, a
	// client address of the search page); MaxTotal caps them in all.
	MaxPerOwner int `koanf:"max_per_owner"`
	MaxTotal    int `koanf:"max_total"`
	// File is the JSON file they are kept in; empty: watches.json beside
	// cache.dir (in the folder that holds the cache folder). In a
	// cluster the watches are kept in Redis, and the file is read once,
	// into a store that holds none yet.
	File string `koanf:"file"`
}

// Tracing configures OpenTelemetry traces of tool calls (internal/tracing),
// sent over OTLP/HTTP. Off unless Endpoint is set here or the standard
// OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
// variables are; OTEL_SERVICE_NAME names the service when ServiceName
// does not.
type Tracing struct {
	// Endpoint is the collector's OTLP/HTTP base URL, such as
	// "http://127.0.0.1:4318" (/v1/traces is appended when it has no
	// path); it wins over the OTEL_* variables.
	Endpoint string `koanf:"endpoint" form:"a URL in quotes, such as \"http://127.0.0.1:4318\""`
	// ServiceName is the traces' service.name (default: OTEL_SERVICE_NAME,
	// then "besluitbron").
	ServiceName string `koanf:"service_name"`
	// SampleRatio is the part of the calls that start a trace here which
	// are recorded (default 1, every call); a call that arrives with a
	// client's traceparent follows the client's sampled flag.
	SampleRatio float64 `koanf:"sample_ratio" form:"a number from 0 to 1, such as 0.25"`
}

// Cluster configures several replicas sharing each platform's limit
// through Redis (host/internal/upstream/cluster). An empty RedisURL means one
// process on its own, with no server needed.
type Cluster struct {
	// RedisURL is redis://[user:pass@]host:port/db (rediss:// for TLS,
	// unix:///path.sock); Valkey speaks the same protocol.
	RedisURL string `koanf:"redis_url"`
	// ReplicaID names this replica; empty = host name, pid and a random
	// suffix. It must be unique among the replicas.
	ReplicaID string `koanf:"replica_id"`
	// Lease is how long a replica that stopped renewing still counts as
	// alive (default 15s); its waiting calls are dropped after it.
	Lease time.Duration `koanf:"lease"`
	// Timeout bounds one Redis command or scheduler script (default 2s);
	// one that takes longer falls the replica back to its own share.
	Timeout time.Duration `koanf:"timeout"`
}

// Runtime configures the WebAssembly runtime.
type Runtime struct {
	CompilationCacheDir string `koanf:"compilation_cache_dir"`
}

// Cache configures the per-platform caches.
type Cache struct {
	Dir          string        `koanf:"dir"`
	SaveInterval time.Duration `koanf:"save_interval"`
	Enabled      bool          `koanf:"enabled"`
}

// RateLimit configures the client limits on the MCP addresses: rate per
// second and burst for the whole process, each connector (on every
// address, and one more bucket for the calls that touch no connector),
// each session and each client IP before a session exists.
type RateLimit struct {
	Enabled        bool    `koanf:"enabled"`
	ProcessRPS     float64 `koanf:"process_rps"`
	ProcessBurst   int     `koanf:"process_burst"`
	ConnectorRPS   float64 `koanf:"connector_rps"`
	ConnectorBurst int     `koanf:"connector_burst"`
	SessionRPS     float64 `koanf:"session_rps"`
	SessionBurst   int     `koanf:"session_burst"`
	IPRPS          float64 `koanf:"ip_rps"`
	IPBurst        int     `koanf:"ip_burst"`
	// ClientRPS and ClientBurst limit one client address (IPv6 per /64)
	// over all its requests, its sessions' included, so that one address
	// cannot spend the process's or a connector's bucket for everyone.
	// Zero (the default): half the rate and burst of the smaller of the
	// process and connector limits.
	ClientRPS   float64 `koanf:"client_rps"`
	ClientBurst int     `koanf:"client_burst"`
	// AddressRPS and AddressBurst are the deprecated keys address_rps and
	// address_burst, from when each MCP address had one bucket: each
	// stands in for its connector_* twin when that is not set, and is
	// ignored otherwise (see [RateLimit.Deprecation]). Zero when unset.
	AddressRPS   float64 `koanf:"address_rps"`
	AddressBurst int     `koanf:"address_burst"`
	// deprecated lists the deprecated keys set, and whether the new key
	// beside each was set too.
	deprecated []deprecatedKey
}

type deprecatedKey struct {
	old, new string
	ignored  bool // the new key is set and wins
}

// rateLimitRenames are the deprecated [mcp_rate_limit] keys and their
// successors, with the successors' defaults.
var rateLimitRenames = []struct {
	old, new string
	def      any
}{
	{"address_rps", "connector_rps", 200.0},
	{"address_burst", "connector_burst", 400},
}

// renameRateLimitKeys lets a deprecated key stand in for its unset
// successor, and gives a successor set by neither its default.
func renameRateLimitKeys(k *koanf.Koanf) []deprecatedKey {
	var out []deprecatedKey
	for _, r := range rateLimitRenames {
		oldKey, newKey := "mcp_rate_limit."+r.old, "mcp_rate_limit."+r.new
		switch hasNew := k.Exists(newKey); {
		case k.Exists(oldKey):
			out = append(out, deprecatedKey{r.old, r.new, hasNew})
			if !hasNew {
				k.Set(newKey, k.Get(oldKey))
			}
		case !hasNew:
			k.Set(newKey, r.def)
		}
	}
	return out
}

// Deprecation is the line to log at start when the configuration uses
// deprecated keys ("" when it does not).
func (r RateLimit) Deprecation() string {
	if len(r.deprecated) == 0 {
		return ""
	}
	var parts []string
	for _, d := range r.deprecated {
		p := fmt.Sprintf("mcp_rate_limit.%s is deprecated: use %s", d.old, d.new)
		if d.ignored {
			p += fmt.Sprintf(" (%s is set and wins; %s is ignored)", d.new, d.old)
		} else {
			p += " (read as " + d.new + " for now)"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ") + ". The client limit is per connector on every address, no longer per address."
}

// Connector is one [connectors.<id>] table.
type Connector struct {
	// Runtime is "wasm" (Module is a .wasm file) or "process" (Module is
	// a native binary run under go-plugin).
	Runtime         string                   `koanf:"runtime"`
	Module          string                   `koanf:"module" form:"a path in quotes, such as \"bin/plugins/<id>.wasm\""`
	Enabled         bool                     `koanf:"enabled"`
	SHA256          string                   `koanf:"sha256"`
	BaseURL         string                   `koanf:"base_url"`
	URLRewrites     []string                 `koanf:"url_rewrites"`
	PrivateNetworks []string                 `koanf:"private_networks"`
	PoolSize        int                      `koanf:"pool_size"`
	MaxInstances    int                      `koanf:"max_instances"`
	MemoryLimitMB   int                      `koanf:"memory_limit_mb"`
	CallTimeout     time.Duration            `koanf:"call_timeout"`
	RequestTimeout  time.Duration            `koanf:"request_timeout"`
	MaxResponseMB   int                      `koanf:"max_response_mb"`
	CacheMB         int                      `koanf:"cache_mb"`
	Limits          map[string]ServiceLimit  `koanf:"limits"`
	TTL             map[string]time.Duration `koanf:"ttl"`
	// ToolPrefix, when set, replaces "<id>_" before the connector's tool
	// and prompt names ("" serves them unprefixed, as a test suite with
	// fixed names needs). Names must stay unique across connectors.
	ToolPrefix *string `koanf:"tool_prefix"`
	// ResourceBase, when set, replaces "besluitbron://<id>/" at the start
	// of the connector's resource URIs (e.g. "test://").
	ResourceBase string `koanf:"resource_base"`
	// Expose (default true) puts the connector on the unified address
	// (/mcp/unified/v1, /sse and stdio). false hides its tools, prompts
	// and resources there and leaves it out of besluitbron_search on that
	// address, while its own address /mcp/<id>/v1, the search page and
	// the Laadstatus keep serving it: an admin can offer a heavy or
	// niche platform to the clients that ask for it by address without
	// its tools weighing on every assistant's context.
	Expose bool `koanf:"expose"`
	// Grant are the client features the admin grants the connector:
	// "elicitation", "sampling", "roots" (connector.ClientFeatureNames),
	// each one its manifest asks for. Default: none. A feature not
	// granted is refused at the connector's call with an error naming
	// this key.
	Grant []string `koanf:"grant" form:"a list of client features in brackets, such as [\"elicitation\"]"`
}

// ServiceLimit overrides a declared service's limit: Units per Per.
type ServiceLimit struct {
	Units float64       `koanf:"units" form:"a number of units, such as 60"`
	Per   time.Duration `koanf:"per" form:"a duration in quotes, such as \"60s\""`
}

func defaults() map[string]any {
	return map[string]any{
		"server.addr":                    "127.0.0.1:8080",
		"server.shutdown_timeout":        "10s",
		"server.max_body_kb":             1024,
		"server.read_header_timeout":     "10s",
		"server.read_timeout":            "30s",
		"server.write_timeout":           "60s",
		"server.idle_timeout":            "120s",
		"server.max_connections":         1000,
		"server.max_connections_per_ip":  64,
		"server.reserved_connections":    16,
		"server.max_sessions":            2000,
		"server.max_sessions_per_ip":     50,
		"server.max_streams_per_session": 4,
		"server.max_streams_per_ip":      64,
		"server.session_idle_timeout":    "10m",
		"server.max_batch":               32,
		"server.event_store_mb":          16,
		"server.resume_grace":            "30s",
		"server.stream_poll_after":       "45s",
		"server.stream_retry":            "2s",
		"server.max_tasks":               20000,
		"server.max_tasks_per_client":    1000,
		"server.tasks_mb":                64,
		"server.tasks_mb_per_client":     8,
		"server.task_keep":               "10m",
		"server.task_max_life":           "1h",
		"server.auth":                    "none",
		"server.oauth.leeway":            "30s",
		"log.level":                      "info",
		"log.format":                     "text",
		"runtime.compilation_cache_dir":  "var/wazero",
		"cache.dir":                      "var/cache",
		"cache.save_interval":            "5m",
		"cache.enabled":                  true,
		"status.enabled":                 true,
		"status.interval":                "5m",
		"status.slow_after":              "5s",
		"watch.enabled":                  true,
		"watch.quota_share":              0.1,
		"watch.min_interval":             "15m",
		"watch.max_per_owner":            50,
		"watch.max_total":                10000,
		"cluster.lease":                  "15s",
		"tracing.sample_ratio":           1.0,
		"cluster.timeout":                "2s",
		"mcp_rate_limit.enabled":         true,
		"mcp_rate_limit.process_rps":     500.0,
		"mcp_rate_limit.process_burst":   1000,
		"mcp_rate_limit.session_rps":     20.0,
		"mcp_rate_limit.session_burst":   60,
		"mcp_rate_limit.ip_rps":          10.0,
		"mcp_rate_limit.ip_burst":        30,
	}
}

// connectorDefaults apply to every [connectors.<id>] table.
var connectorDefaults = map[string]any{
	"enabled":         true,
	"expose":          true,
	"runtime":         "wasm",
	"pool_size":       8,
	"max_instances":   64,
	"memory_limit_mb": 256,
	"call_timeout":    "90s",
	"request_timeout": "30s",
	"max_response_mb": 32,
	"cache_mb":        64,
}

var replicaID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

var listKeys = map[string]bool{"trusted_proxies": true, "allowed_origins": true, "private_networks": true, "url_rewrites": true, "tools": true, "grant": true}

// Load reads path (may be "" for defaults and environment only) and the
// environment given as KEY=VALUE lines (nil = os.Environ()).
func Load(path string, environ []string) (*Config, error) {
	k := koanf.New(".")
	var shapeErr error
	if err := k.Load(confmap.Provider(defaults(), "."), nil); err != nil {
		return nil, err
	}
	dir, _ := os.Getwd()
	if path != "" {
		// The file is parsed on its own and its shape checked before it
		// is merged: merged, a table replaced by a scalar (`server = 5`)
		// could be filled in again by the environment and go unseen.
		kf := koanf.New(".")
		if err := kf.Load(file.Provider(path), toml.Parser()); err != nil {
			return nil, syntaxError(path, err)
		}
		shapeErr = checkShape(kf.Raw(), nil)
		if err := k.Merge(kf); err != nil {
			return nil, err
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		dir = filepath.Dir(abs)
	}
	if environ == nil {
		environ = os.Environ()
	}
	var envErr error
	fromEnv := map[string]string{} // key → the variable that set it
	ke := koanf.New(".")
	err := ke.Load(env.Provider(".", env.Opt{
		Prefix:      EnvPrefix,
		EnvironFunc: func() []string { return environ },
		TransformFunc: func(key, v string) (string, any) {
			key = strings.ToLower(strings.TrimPrefix(key, EnvPrefix))
			if notConfigEnv[key] {
				return "", nil
			}
			if strings.Contains(key, ".") {
				envErr = errors.Join(envErr, fmt.Errorf("environment %s%s: use __ between path segments, not dots", EnvPrefix, strings.ToUpper(key)))
				return "", nil
			}
			key = strings.ReplaceAll(key, "__", ".")
			fromEnv[key] = EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "__"))
			segs := strings.Split(key, ".")
			if listKeys[segs[len(segs)-1]] {
				var items []any
				for _, s := range strings.Split(v, ",") {
					if s = strings.TrimSpace(s); s != "" {
						items = append(items, s)
					}
				}
				return key, items
			}
			return key, v
		},
	}), nil)
	if err != nil {
		return nil, err
	}
	if envErr != nil {
		return nil, envErr
	}
	warnings := envVariantWarnings(environ)
	if err := errors.Join(shapeErr, checkShape(ke.Raw(), fromEnv)); err != nil {
		if path != "" {
			return nil, fmt.Errorf("config %s:\n%w", path, indent(err))
		}
		return nil, fmt.Errorf("config:\n%w", indent(err))
	}
	if err := k.Merge(ke); err != nil {
		return nil, err
	}
	// Connector defaults go under each connector the file or environment
	// names, then the connector's own keys win.
	for _, id := range k.MapKeys("connectors") {
		for key, v := range connectorDefaults {
			p := "connectors." + id + "." + key
			if !k.Exists(p) {
				k.Set(p, v)
			}
		}
	}
	deprecated := renameRateLimitKeys(k)
	var cfg Config
	if err := decode(k, &cfg); err != nil {
		return nil, err
	}
	cfg.MCPRateLimit.deprecated = deprecated
	cfg.Dir, cfg.File, cfg.Warnings = dir, path, warnings
	if err := errors.Join(switchedOffLimits(k), cfg.validate()); err != nil {
		if path != "" {
			return nil, fmt.Errorf("config %s:\n%w", path, indent(err))
		}
		return nil, fmt.Errorf("config:\n%w", indent(err))
	}
	return &cfg, nil
}

// indent puts every line of a joined error under a two-space margin, one
// problem a line, so a config with several mistakes reads as a list.
func indent(err error) error {
	return errors.New("  " + strings.ReplaceAll(err.Error(), "\n", "\n  "))
}

// Validate checks the configuration again, as Load does: call it after
// changing a field (e.g. the --addr flag's Server.Addr).
func (c *Config) Validate() error { return c.validate() }

// CheckAddr checks a listen address: host:port, with a port number (0
// picks a free one) and a host that may be empty (every interface).
func CheckAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		if _, perr := strconv.Atoi(addr); perr == nil {
			return fmt.Errorf("%q is a port without a host: want \"host:port\", such as \"127.0.0.1:%s\" (\":%s\" listens on every interface)", addr, addr, addr)
		}
		return fmt.Errorf("%q: want \"host:port\", such as \"127.0.0.1:8080\" (%v)", addr, strings.TrimPrefix(err.Error(), "address "+addr+": "))
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q: the port %q is not a number from 0 to 65535", addr, port)
	}
	if strings.ContainsAny(host, " /") {
		return fmt.Errorf("%q: the host %q is not a host name or address", addr, host)
	}
	return nil
}

// EnabledIDs lists the connectors with enabled = true, sorted.
func (c *Config) EnabledIDs() []string {
	var ids []string
	for id, cc := range c.Connectors {
		if cc.Enabled {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// CheckServable refuses a configuration that would serve no connector.
// A server without connectors has nothing to offer (besluitbron_status
// would report on no platform and every address but the unified one
// would be missing), and the likely cause is a mistake: a table name
// mistyped, the file forgotten, every connector disabled while testing.
// Starting anyway with 0 tools would let that go unnoticed until an
// assistant finds nothing, so the start stops here and says why.
func (c *Config) CheckServable() error {
	if len(c.EnabledIDs()) > 0 {
		return nil
	}
	if len(c.Connectors) == 0 {
		return errors.New("config: no connectors: add a [connectors.<id>] table with module = \"bin/plugins/<id>.wasm\" for each platform to serve (plugins.toml in the repository lists all seven)")
	}
	ids := make([]string, 0, len(c.Connectors))
	for id := range c.Connectors {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return fmt.Errorf("config: every connector is disabled (enabled = false under %s): enable at least one", "[connectors."+strings.Join(ids, "], [connectors.")+"]")
}

// validPattern reports whether p is a usable server.tools pattern. path.Match
// reports a malformed pattern only when matching reaches the bad part, so
// the pattern is matched against a name that walks all of it: itself.
func validPattern(p string) bool {
	if strings.TrimSpace(p) == "" {
		return false
	}
	_, err := path.Match(p, p)
	return err == nil
}

// ToolExposed reports whether the unified address serves the tool clients
// know as name, by server.tools (every tool when it is empty).
func (s Server) ToolExposed(name string) bool {
	if len(s.Tools) == 0 {
		return true
	}
	for _, p := range s.Tools {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

func decode(k *koanf.Koanf, out *Config) error {
	var md mapstructure.Metadata
	err := k.UnmarshalWithConf("", out, koanf.UnmarshalConf{
		Tag: "koanf",
		DecoderConfig: &mapstructure.DecoderConfig{
			DecodeHook:       mapstructure.ComposeDecodeHookFunc(mapstructure.StringToTimeDurationHookFunc()),
			WeaklyTypedInput: true,
			ErrorUnused:      true,
			Metadata:         &md,
			Result:           out,
			TagName:          "koanf",
		},
	})
	if err != nil {
		return fmt.Errorf("config: %s", cleanDecodeError(err))
	}
	return nil
}

var quoted = regexp.MustCompile(`'([^']*)'`)

// cleanDecodeError rewrites mapstructure's "'connectors[<id>].pool_size'"
// into the dotted key an admin writes.
func cleanDecodeError(err error) string {
	s := err.Error()
	s = strings.ReplaceAll(s, "[", ".")
	s = strings.ReplaceAll(s, "]", "")
	s = strings.ReplaceAll(s, "has invalid keys:", "has unknown keys:")
	return quoted.ReplaceAllString(s, "$1")
}

var (
	idPattern         = regexp.MustCompile(`^[a-z][a-z0-9]{0,31}$`)
	toolPrefixPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{0,32}$`)
)

func (c *Config) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Server.Addr == "" {
		bad("server.addr: empty")
	} else if err := CheckAddr(c.Server.Addr); err != nil {
		bad("server.addr %v", err)
	} else if a := c.Server.AdminAddr; a != "" && a == c.Server.Addr {
		bad("server.admin_addr %s: the same as server.addr; give monitoring another port", a)
	}
	for i, p := range c.Server.Tools {
		if !validPattern(p) {
			bad("server.tools[%d] %q: want a tool name or a pattern with * and ?, such as \"<id>_*\"", i, p)
		}
	}
	for i, p := range c.Server.TrustedProxies {
		if _, err := parsePrefix(p); err != nil {
			bad("server.trusted_proxies[%d] %q: %v", i, p, err)
		}
	}
	for i, o := range c.Server.AllowedOrigins {
		if _, err := weborigin.Parse(o); err != nil {
			bad("server.allowed_origins[%d] %v", i, err)
		}
	}
	if c.Server.ShutdownTimeout <= 0 {
		bad("server.shutdown_timeout: must be positive")
	}
	if c.Server.MaxBodyKB <= 0 {
		bad("server.max_body_kb: must be positive")
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"read_header_timeout", c.Server.ReadHeaderTimeout},
		{"read_timeout", c.Server.ReadTimeout},
		{"write_timeout", c.Server.WriteTimeout},
		{"idle_timeout", c.Server.IdleTimeout},
		{"session_idle_timeout", c.Server.SessionIdleTimeout},
		{"resume_grace", c.Server.ResumeGrace},
		{"stream_retry", c.Server.StreamRetry},
		{"task_keep", c.Server.TaskKeep},
		{"task_max_life", c.Server.TaskMaxLife},
	} {
		if d.v <= 0 {
			bad("server.%s: must be positive", d.name)
		}
	}
	if s := c.Server; s.ReadHeaderTimeout > 0 && s.ReadTimeout > 0 && s.ReadHeaderTimeout > s.ReadTimeout {
		bad("server.read_header_timeout %v: at most read_timeout (%v), which bounds the headers too", s.ReadHeaderTimeout, s.ReadTimeout)
	}
	for _, n := range []struct {
		name string
		v    int
	}{
		{"max_connections", c.Server.MaxConnections},
		{"max_connections_per_ip", c.Server.MaxConnectionsPerIP},
		{"max_sessions", c.Server.MaxSessions},
		{"max_sessions_per_ip", c.Server.MaxSessionsPerIP},
		{"max_streams_per_session", c.Server.MaxStreamsPerSession},
		{"max_streams_per_ip", c.Server.MaxStreamsPerIP},
		{"max_batch", c.Server.MaxBatch},
		{"max_tasks", c.Server.MaxTasks},
		{"max_tasks_per_client", c.Server.MaxTasksPerClient},
		{"tasks_mb", c.Server.TasksMB},
		{"tasks_mb_per_client", c.Server.TasksMBPerClient},
	} {
		if n.v < 1 {
			bad("server.%s: must be at least 1", n.name)
		}
	}
	if s := c.Server; s.MaxTasksPerClient > s.MaxTasks && s.MaxTasks > 0 {
		bad("server.max_tasks_per_client %d: at most max_tasks (%d)", s.MaxTasksPerClient, s.MaxTasks)
	}
	if s := c.Server; s.TasksMBPerClient > s.TasksMB && s.TasksMB > 0 {
		bad("server.tasks_mb_per_client %d: at most tasks_mb (%d)", s.TasksMBPerClient, s.TasksMB)
	}
	if c.Server.EventStoreMB < 0 {
		bad("server.event_store_mb: must be 0 (streams not resumable) or more")
	}
	if c.Server.StreamPollAfter < 0 {
		bad("server.stream_poll_after: must be 0s (never) or positive")
	}
	if r := c.Server.StreamRetry; r > time.Minute {
		bad("server.stream_retry %v: at most 1m (a client waits this long before it resumes)", r)
	}
	if a := c.Server.AdminAddr; a != "" {
		if err := CheckAddr(a); err != nil {
			bad("server.admin_addr %v", err)
		}
	}
	if s := c.Server; s.ReservedConnections < 0 {
		bad("server.reserved_connections %d: want 0 or more (at most a quarter of max_connections is used)", s.ReservedConnections)
	}
	if s := c.Server; s.MaxConnectionsPerIP > s.MaxConnections && s.MaxConnections >= 1 {
		bad("server.max_connections_per_ip %d: at most max_connections (%d)", s.MaxConnectionsPerIP, s.MaxConnections)
	}
	if s := c.Server; s.MaxSessionsPerIP > s.MaxSessions && s.MaxSessions >= 1 {
		bad("server.max_sessions_per_ip %d: at most max_sessions (%d)", s.MaxSessionsPerIP, s.MaxSessions)
	}
	switch strings.ToLower(c.Log.Level) {
	case "debug", "info", "warn", "error":
	default:
		bad("log.level %q: want debug, info, warn or error", c.Log.Level)
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		bad("log.format %q: want text or json", c.Log.Format)
	}
	if c.Status.Interval < time.Minute {
		bad("status.interval: at least 1m (each check spends platform quota)")
	}
	if c.Status.SlowAfter <= 0 {
		bad("status.slow_after: must be positive")
	}
	if w := c.Watch; w.QuotaShare <= 0 || w.QuotaShare > 0.5 || w.QuotaShare != w.QuotaShare {
		bad("watch.quota_share %v: want a part of each quota above 0 and at most 0.5 (0.1 is a tenth)", w.QuotaShare)
	}
	if c.Watch.MinInterval < time.Second || c.Watch.MinInterval > 7*24*time.Hour {
		bad("watch.min_interval %v: want between 1s and 168h", c.Watch.MinInterval)
	}
	if c.Watch.MaxPerOwner < 1 || c.Watch.MaxPerOwner > 10000 {
		bad("watch.max_per_owner %d: want 1 to 10000", c.Watch.MaxPerOwner)
	}
	if c.Watch.MaxTotal < 1 || c.Watch.MaxTotal > 1000000 {
		bad("watch.max_total %d: want 1 to 1000000", c.Watch.MaxTotal)
	}
	if e := c.Tracing.Endpoint; e != "" {
		if u, err := url.Parse(e); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("tracing.endpoint %q: want the collector's OTLP/HTTP URL, such as \"http://127.0.0.1:4318\"", e)
		}
	}
	if r := c.Tracing.SampleRatio; r < 0 || r > 1 || r != r {
		bad("tracing.sample_ratio %v: want a part of the calls from 0 to 1 (0.25 records a quarter)", r)
	}
	if n := c.Tracing.ServiceName; len(n) > 256 || strings.ContainsAny(n, "\n\r") {
		bad("tracing.service_name: want one line of at most 256 characters")
	}
	if c.Cluster.RedisURL != "" {
		if u := c.Cluster.RedisURL; !strings.HasPrefix(u, "redis://") && !strings.HasPrefix(u, "rediss://") && !strings.HasPrefix(u, "unix://") {
			bad("cluster.redis_url: want redis://host:port, rediss://host:port or unix:///path")
		}
		if c.Cluster.Lease < 300*time.Millisecond || c.Cluster.Lease > 10*time.Minute {
			bad("cluster.lease %v: want between 300ms and 10m", c.Cluster.Lease)
		}
		if c.Cluster.Timeout < 100*time.Millisecond || c.Cluster.Timeout > time.Minute {
			bad("cluster.timeout %v: want between 100ms and 1m", c.Cluster.Timeout)
		}
		if id := c.Cluster.ReplicaID; id != "" && !replicaID.MatchString(id) {
			bad("cluster.replica_id %q: use 1 to 128 letters, digits, dots, dashes, colons or underscores", id)
		}
	}
	if c.Cache.SaveInterval <= 0 {
		bad("cache.save_interval: must be positive")
	}
	r := c.MCPRateLimit
	rps := map[string]float64{"process_rps": r.ProcessRPS, "connector_rps": r.ConnectorRPS, "session_rps": r.SessionRPS, "ip_rps": r.IPRPS}
	bursts := map[string]int{"process_burst": r.ProcessBurst, "connector_burst": r.ConnectorBurst, "session_burst": r.SessionBurst, "ip_burst": r.IPBurst}
	for _, d := range r.deprecated {
		// A deprecated key standing in for its successor is checked under
		// the name the admin wrote; an ignored one is checked too.
		if !d.ignored {
			delete(rps, d.new)
			delete(bursts, d.new)
		}
		switch d.old {
		case "address_rps":
			rps[d.old] = r.AddressRPS
		case "address_burst":
			bursts[d.old] = r.AddressBurst
		}
	}
	for name, v := range rps {
		if !(v > 0) || math.IsInf(v, 0) {
			bad("mcp_rate_limit.%s: must be a positive number of requests per second", name)
		}
	}
	for name, v := range bursts {
		if v < 1 {
			bad("mcp_rate_limit.%s: must be at least 1", name)
		}
	}
	if v := r.ClientRPS; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		bad("mcp_rate_limit.client_rps: must be a positive number of requests per second, or 0 for half the smaller of process_rps and connector_rps")
	}
	if r.ClientBurst < 0 {
		bad("mcp_rate_limit.client_burst: must be at least 1, or 0 for half the smaller of process_burst and connector_burst")
	}
	ids := make([]string, 0, len(c.Connectors))
	for id := range c.Connectors {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		cc := c.Connectors[id]
		pfx := "connectors." + id
		if !idPattern.MatchString(id) {
			bad("%s: id must be lower-case letters and digits", pfx)
		}
		switch cc.Runtime {
		case "wasm", "process":
		default:
			bad("%s.runtime %q: want \"wasm\" or \"process\"", pfx, cc.Runtime)
		}
		if cc.Enabled && cc.Module == "" {
			bad("%s.module: empty (path to the connector's .wasm, or its native binary for runtime = \"process\")", pfx)
		}
		if cc.SHA256 != "" && !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(cc.SHA256) {
			bad("%s.sha256: want 64 lower-case hex digits", pfx)
		}
		for i, rw := range cc.URLRewrites {
			if _, _, ok := SplitRewrite(rw); !ok {
				bad("%s.url_rewrites[%d] %q: want \"https://from.example => http://to.example/prefix\"", pfx, i, rw)
			}
		}
		for i, p := range cc.PrivateNetworks {
			if _, err := parsePrefix(p); err != nil {
				bad("%s.private_networks[%d] %q: %v", pfx, i, p, err)
			}
		}
		for name, v := range map[string]int{"pool_size": cc.PoolSize, "memory_limit_mb": cc.MemoryLimitMB, "max_response_mb": cc.MaxResponseMB} {
			if v < 1 {
				bad("%s.%s: must be at least 1", pfx, name)
			}
		}
		if cc.MaxInstances < cc.PoolSize {
			bad("%s.max_instances %d: at least pool_size (%d)", pfx, cc.MaxInstances, cc.PoolSize)
		}
		if cc.CacheMB < 32 {
			bad("%s.cache_mb: at least 32 (the cache's minimum)", pfx)
		}
		if cc.CallTimeout <= 0 || cc.RequestTimeout <= 0 {
			bad("%s: call_timeout and request_timeout must be positive", pfx)
		}
		for s, l := range cc.Limits {
			if l.Units < 0 || (l.Units > 0 && l.Per <= 0) {
				bad("%s.limits.%s: want units above 0 and a positive per", pfx, s)
			}
		}
		if cc.ToolPrefix != nil && !toolPrefixPattern.MatchString(*cc.ToolPrefix) {
			bad("%s.tool_prefix %q: want at most 32 letters, digits, _ . or -", pfx, *cc.ToolPrefix)
		}
		if cc.ResourceBase != "" {
			if u, err := url.Parse(cc.ResourceBase); err != nil || u.Scheme == "" || u.RawQuery != "" || u.Fragment != "" {
				bad("%s.resource_base %q: want the start of an absolute URI such as \"test://\"", pfx, cc.ResourceBase)
			}
		}
		for class, ttl := range cc.TTL {
			if ttl < 0 {
				bad("%s.ttl.%s: negative", pfx, class)
			}
		}
		for i, f := range cc.Grant {
			switch {
			case !connector.KnownClientFeature(f):
				bad("%s.grant[%d] %q: not a client feature; want one of %s", pfx, i, f, quoteAll(connector.ClientFeatureNames()))
			case slices.Index(cc.Grant, f) < i:
				bad("%s.grant[%d] %q: granted twice", pfx, i, f)
			}
		}
	}
	errs = append(errs, c.validateAuth()...)
	return errors.Join(errs...)
}

func parsePrefix(s string) (netip.Prefix, error) {
	if p, err := netip.ParsePrefix(s); err == nil {
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("want a CIDR such as 10.0.0.0/8 or an address")
	}
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// SplitRewrite parses "from => to".
func SplitRewrite(s string) (from, to string, ok bool) {
	from, to, ok = strings.Cut(s, "=>")
	from, to = strings.TrimSpace(from), strings.TrimSpace(to)
	return from, to, ok && from != "" && to != ""
}

// Prefixes parses CIDRs or addresses already checked by Load.
func Prefixes(list []string) []netip.Prefix {
	var out []netip.Prefix
	for _, s := range list {
		if p, err := parsePrefix(s); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// Path resolves a path from the config against the config file's
// directory.
func (c *Config) Path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir, p)
}

// WatchFile is where the watches are kept: watch.file, or watches.json
// beside cache.dir (its parent folder), so that a cache folder cleared by
// `besluitbron cache clear` or deleted by hand keeps them.
func (c *Config) WatchFile() string {
	if c.Watch.File != "" {
		return c.Path(c.Watch.File)
	}
	dir := c.Path(c.Cache.Dir)
	if dir == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(filepath.Clean(dir)), "watches.json")
}

// Check verifies a connector's limits and TTL overrides against its
// manifest, naming the key of anything the connector does not declare.
func (cc Connector) Check(id string, m connector.Manifest) error {
	var errs []error
	for s := range cc.Limits {
		if _, ok := m.Service(s); !ok {
			errs = append(errs, fmt.Errorf("connectors.%s.limits.%s: connector %q declares no service %q (it has %s)", id, s, id, s, serviceNames(m)))
		}
	}
	for c := range cc.TTL {
		if _, ok := m.CacheClass(c); !ok {
			errs = append(errs, fmt.Errorf("connectors.%s.ttl.%s: connector %q declares no cache class %q", id, c, id, c))
		}
	}
	for i, f := range cc.Grant {
		switch {
		case m.AsksFor(f):
		case len(m.ClientFeatures) == 0:
			errs = append(errs, fmt.Errorf("connectors.%s.grant[%d] %q: connector %q asks for no client feature; grant it nothing", id, i, f, id))
		default:
			errs = append(errs, fmt.Errorf("connectors.%s.grant[%d] %q: connector %q does not ask for it; it asks for %s (its manifest's client_features)", id, i, f, id, quoteAll(m.ClientFeatures)))
		}
	}
	return errors.Join(errs...)
}

// CheckConnector is [Connector.Check] of connector id, its errors under
// the name of the configuration's file, as Load's are.
func (c *Config) CheckConnector(id string, m connector.Manifest) error {
	err := c.Connectors[id].Check(id, m)
	switch {
	case err == nil:
		return nil
	case c.File != "":
		return fmt.Errorf("config %s:\n%w", c.File, indent(err))
	}
	return fmt.Errorf("config:\n%w", indent(err))
}

// Granted splits the client features a connector's manifest asks for
// into those the admin granted and those it did not, each in the
// manifest's order: what check-config and the start log report.
func (cc Connector) Granted(m connector.Manifest) (granted, withheld []string) {
	for _, f := range m.ClientFeatures {
		if slices.Contains(cc.Grant, f) {
			granted = append(granted, f)
		} else {
			withheld = append(withheld, f)
		}
	}
	return granted, withheld
}

// quoteAll lists names quoted: "a", "b", "c".
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func serviceNames(m connector.Manifest) string {
	var n []string
	for _, s := range m.Services {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

// Limit returns the effective limit of a service: the admin's override or
// the manifest's declaration.
func (cc Connector) Limit(s connector.Service) (units float64, per time.Duration) {
	if l, ok := cc.Limits[s.Name]; ok {
		units, per = s.Units, time.Duration(s.Per)
		if l.Units != 0 || l.Per == 0 {
			units = l.Units
		}
		if l.Per != 0 {
			per = l.Per
		}
		return units, per
	}
	return s.Units, time.Duration(s.Per)
}

// TTLFor returns the effective TTL of a cache class.
func (cc Connector) TTLFor(c connector.CacheClass) time.Duration {
	if t, ok := cc.TTL[c.Name]; ok {
		return t
	}
	return time.Duration(c.TTL)
}

// Package cache owns the per-platform response caches: one [Store] per
// connector, on github.com/VictoriaMetrics/fastcache, implementing
// fetch.Cache for the connector's fetch gate. Connectors never cache
// themselves; they name a cache class per fetch and the host does the
// rest.
//
//	s, err := cache.Open(cache.Options{
//		Platform: id, Title: manifest.Title, MaxBytes: 64 << 20,
//		TTL:     map[string]time.Duration{"search": 10 * time.Minute},
//		Version: manifest.Version, ModuleSHA256: sha, Dir: filepath.Join("var/cache", id),
//	})
//	resp, outcome, err := s.Do(ctx, "search", key, fill) // outcome: hit, miss, stale, bypass
//	err = s.Close() // saves and frees the memory
//
// # Design
//
// Separate per platform. Each platform has its own fastcache with its own
// budget (connectors.<id>.cache_mb), its own fills and its own folder, so
// a slow or failing platform, a full cache or a cleared cache touches no
// other.
//
// Keys fully describe the request. The gate's key (class, method,
// normalised URL with sorted query, digest of body and headers) is
// prefixed with the class and never holds a session: sessions share the
// cache. Keys over 512 bytes are replaced by their sha256.
//
// Values carry time and version. fastcache knows neither, so every value
// starts with a 29-byte header: a format byte, a stamp, the write time and
// the expiry, then status, headers and body. The stamp is a digest of the
// BesluitBron version and the connector module's sha256. An entry is
// judged only when it is asked for: another stamp means another build
// wrote it, so it is deleted, counted as a version discard and the
// platform is asked again; nothing is cleared ahead of time, so a restart
// of the same build keeps everything and an upgrade costs only what is
// asked again. An entry is fresh while now is before both its expiry and
// its write time plus the class's current TTL, so a shortened TTL applies
// at once.
//
// Order on the fetch path. The gate asks the store first; only a miss
// calls fill, and only fill waits at the platform's limiter and reaches
// the platform. A hit therefore costs the platform's quota nothing.
//
// Coalescing. Identical concurrent misses share one fill
// (golang.org/x/sync/singleflight, DoChan). The fill runs on a context
// that keeps the first caller's values (its session, for the fair
// scheduler) and deadline but not its cancellation, so a caller that goes
// away ends only its own wait. When the last waiter has gone the fill is
// cancelled and forgotten: nobody pays the platform for an answer nobody
// waits for. A waiter leaves from its own context's callback, the fill's
// Err and Done report the end of its last waiter the instant it happens
// (a context derived then, the fetch gate's, starts out ended), and a
// caller whose context has already ended starts no fill at all (issue
// 27: calls a client gave up on still reached the platform). A later caller with a longer deadline than the first still
// shares the first caller's deadline; in practice every call of a
// connector has the same call_timeout.
//
// What is stored. Only 2xx responses that the gate calls cacheable and
// whose body has the length its Content-Length announced. Errors, 429s,
// 5xx and truncated bodies never are. fastcache's Set silently drops an
// entry of 64 KiB or more, so such values go through SetBig. SetBig cuts a
// value into 64 KiB pieces spread over 512 buckets, each a ring of
// cache_mb/32 chunks; a bucket that receives more pieces than it has
// chunks loses the first ones, silently. The store computes fastcache's
// placement before writing and refuses (and counts as oversize) a value
// that would not come back, and any value over an eighth of the cache. At
// 32 MiB (one chunk per bucket) even a 200 KB text is refused now and
// then; at 256 MiB values up to about 32 MB fit. Raise cache_mb for a
// platform with large documents.
//
// Stale if error. When the platform fails (a 5xx, a connection failure or
// a timeout) and an expired entry of this version exists, that entry is
// served: the outcome is stale, the call gets a note saying how old it is,
// and the stale counter moves. An entry of another version is never
// served.
//
// Survives restarts. [Store.Checkpoint] saves the cache when it changed
// (the host calls it every cache.save_interval and at shutdown):
// SaveToFileConcurrent into a temporary folder with a meta.json recording
// the cache size, the checksums of the data files and the counters, then
// one atomic rename. [Open] loads the newest complete snapshot. A
// snapshot of another size (cache_mb changed) is loaded at its own size
// and its entries moved, oldest first, into a cache of the new size, so
// the newest are kept when it shrinks (resize, persist.go). A missing,
// damaged or unreadable snapshot means an empty cache and a warning,
// never a failed start.
//
// One owner per folder. A process takes an advisory lock (flock) on the
// platform's folder; a second process on the same folder (two stdio
// clients, say) reads the saved cache at start and never writes it.
//
// Clearing. `besluitbron cache clear <id>` works on the files
// ([RequestClear]): it removes the snapshot and leaves a request that a
// running server applies within seconds ([Store.PollClear]) and a
// starting one applies at load.
//
// # Time
//
// Expiry is judged only by Options.Now, so tests run TTLs in virtual
// time.
//
// # Concurrency
//
// A Store is safe for concurrent use; saving runs alongside reads and
// writes (fastcache allows it). The zero Store is not usable.
package cache

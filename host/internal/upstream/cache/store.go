package cache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/VictoriaMetrics/fastcache"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/host/internal/upstream/callinfo"
	"github.com/besluitbron/besluitbron/host/internal/upstream/fetch"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// MinBytes is the smallest cache fastcache makes: a smaller budget is
// silently rounded up to it, so Open refuses one instead.
const MinBytes = 32 << 20

// bigValue is where fastcache's Set silently drops an entry: 4 bytes of
// lengths plus key plus value must stay below one 64 KiB chunk.
const bigValue = 1 << 16

// Options configure a [Store]. Platform and MaxBytes are required; zero
// values of the rest mean defaults.
type Options struct {
	// OnClear, when set, runs when a clear request is applied, before the
	// cleared cache is saved (the host forgets kept tool results there).
	OnClear func()
	// Platform is the connector id: metric label, log field, folder name.
	Platform string
	// Title is the platform's name in the note on a stale answer
	// (default Platform).
	Title string
	// MaxBytes is the cache's budget, at least [MinBytes]. A value larger
	// than MaxBytes/8, or one whose 64 KiB pieces would overwrite each
	// other in fastcache's buckets, is refused and counted as oversize:
	// fastcache could not return it.
	MaxBytes int
	// TTL maps each cache class the connector declares to its time to
	// live (the manifest's, overridden by plugins.toml). A class that is
	// absent or has TTL 0 is not cached.
	TTL map[string]time.Duration
	// Version is BesluitBron's version and ModuleSHA256 the connector
	// module's sha256: together the stamp of every entry written.
	Version, ModuleSHA256 string
	// Dir is the platform's own folder for the saved cache; "" keeps the
	// cache in memory only.
	Dir string
	// Now is the clock (default time.Now). Expiry is judged by it alone.
	Now func() time.Time
	// Logger receives warnings about unreadable or unsaveable caches
	// (default slog.Default()).
	Logger *slog.Logger
	// Metrics, when set, receives the store's figures.
	Metrics *Metrics
}

// Counters are one class's cumulative figures since the platform's cache
// was created. They are saved with the cache, so they survive restarts.
type Counters struct {
	Hits            uint64 `json:"hits"`
	Misses          uint64 `json:"misses"`
	Stale           uint64 `json:"stale"`
	Coalesced       uint64 `json:"coalesced"`
	VersionDiscards uint64 `json:"version_discards"`
	Oversize        uint64 `json:"oversize_refusals"`
	Stored          uint64 `json:"stored"`
	StoredBytes     uint64 `json:"stored_bytes"`
	// TextsKept counts extracted texts kept (one per extraction a
	// connector handed over); TextPages counts pages served from them.
	TextsKept uint64 `json:"texts_kept"`
	TextPages uint64 `json:"text_pages"`
}

// class is one cache class's policy and counters.
type class struct {
	name                                                                    string
	ttl                                                                     time.Duration
	hits, misses, stale, coalesced, discards, oversize, stored, storedBytes ctr
	textsKept, textPages                                                    ctr
	forgotten                                                               ctr // stored, then dropped because the call failed
}

// ctr is a cumulative counter (restored from disk) with its Prometheus
// twin (this process only).
type ctr struct {
	n atomic.Uint64
	p prometheus.Counter // nil without metrics
}

func (c *ctr) add(d uint64) {
	c.n.Add(d)
	if c.p != nil {
		c.p.Add(float64(d))
	}
}

func (c *class) counters() Counters {
	return Counters{
		Hits: c.hits.n.Load(), Misses: c.misses.n.Load(), Stale: c.stale.n.Load(), Coalesced: c.coalesced.n.Load(),
		VersionDiscards: c.discards.n.Load(), Oversize: c.oversize.n.Load(), Stored: c.stored.n.Load(), StoredBytes: c.storedBytes.n.Load(),
		TextsKept: c.textsKept.n.Load(), TextPages: c.textPages.n.Load(),
	}
}

func (c *class) restore(k Counters) {
	c.hits.n.Add(k.Hits)
	c.misses.n.Add(k.Misses)
	c.stale.n.Add(k.Stale)
	c.coalesced.n.Add(k.Coalesced)
	c.discards.n.Add(k.VersionDiscards)
	c.oversize.n.Add(k.Oversize)
	c.stored.n.Add(k.Stored)
	c.storedBytes.n.Add(k.StoredBytes)
	c.textsKept.n.Add(k.TextsKept)
	c.textPages.n.Add(k.TextPages)
}

// Store is one platform's cache. It implements fetch.Cache: a fresh entry
// of this version answers at once; anything else goes through fill, with
// identical concurrent misses sharing one fill.
//
// A Store is safe for concurrent use. Its zero value is not usable: build
// one with [Open], and [Store.Close] it to save it and free its memory.
type Store struct {
	o       Options
	c       *fastcache.Cache
	stamp   uint64
	classes map[string]*class
	flights flightGroup

	// changes counts writes, deletions and clears; saved is its value at
	// the last full save, so an unchanged cache is not rewritten.
	changes atomic.Uint64
	saveMu  sync.Mutex
	saved   uint64
	// countersSaved is the sum of all counters at the last save.
	countersSaved uint64
	// current is the snapshot folder last saved or loaded; seq its
	// sequence number.
	current string
	seq     int64
	closed  bool
	// off is set by Close: every fetch then bypasses the cache.
	off atomic.Bool
	// owner is set when this process holds the folder's lock; only the
	// owner saves. unlock releases it.
	owner  bool
	unlock func()
	// afterLookup, when set (tests), runs between a miss's lookup and its
	// flight.
	afterLookup func()
}

// Open builds the platform's cache and loads what was saved under o.Dir.
// A saved cache of another size keeps its entries that fit the new one.
// A saved cache that is missing, corrupt, unreadable or
// of another format gives an empty cache and a warning, never an error:
// errors are only for invalid options.
func Open(o Options) (*Store, error) {
	if o.Platform == "" {
		return nil, errors.New("cache: Options.Platform is empty")
	}
	if o.MaxBytes < MinBytes {
		return nil, fmt.Errorf("cache %s: size %d bytes is below the minimum of %d MiB", o.Platform, o.MaxBytes, MinBytes>>20)
	}
	if o.Title == "" {
		o.Title = o.Platform
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.TTL = maps.Clone(o.TTL)
	s := &Store{o: o, stamp: Stamp(o.Version, o.ModuleSHA256), classes: map[string]*class{}}
	for name, ttl := range o.TTL {
		if ttl < 0 {
			return nil, fmt.Errorf("cache %s: class %q has a negative TTL", o.Platform, name)
		}
		cl := &class{name: name, ttl: ttl}
		o.Metrics.bind(o.Platform, cl)
		s.classes[name] = cl
	}
	if o.Dir != "" {
		unlock, owner, err := lockDir(o.Dir)
		switch {
		case err != nil:
			o.Logger.Warn("cache folder unusable; this platform's cache lives in memory only", "connector", o.Platform, "dir", o.Dir, "error", err)
		case !owner:
			o.Logger.Info("another BesluitBron process owns this cache folder: this one reads it at start and never saves", "connector", o.Platform, "dir", o.Dir)
		default:
			s.owner, s.unlock = true, unlock
		}
	}
	s.c = s.load()
	if o.Metrics != nil {
		o.Metrics.add(s)
	}
	return s, nil
}

// Fill is what [Store.Do] calls on a miss: it asks the platform and says
// whether the response may be stored.
type Fill = func(context.Context) (resp connector.FetchResponse, cacheable bool, err error)

type lookupState int

const (
	absent lookupState = iota
	fresh
	expired
	otherVersion
)

// lookup reads k and judges it at now. The returned value is owned by the
// caller.
func (s *Store) lookup(cl *class, k []byte, now time.Time) ([]byte, lookupState) {
	v, ok := s.c.HasGet(nil, k)
	if !ok {
		return nil, absent
	}
	if len(v) == 16 { // a SetBig index: hash and length of the pieces
		if v = s.c.GetBig(nil, k); len(v) == 0 {
			return nil, absent // a piece was evicted
		}
	}
	stamp, written, expires, err := peek(v)
	switch {
	case err != nil:
		s.c.Del(k)
		return nil, absent
	case stamp != s.stamp:
		return nil, otherVersion
	case now.Before(expires) && now.Before(written.Add(cl.ttl)):
		// The configured TTL also applies to older entries, so an admin
		// who shortens it is obeyed at once.
		return v, fresh
	}
	return v, expired
}

// Do answers a fetch of class with the given key: from the cache when a
// fresh entry of this version exists, else through fill. It returns the
// outcome for the call's _meta: [callinfo.Hit], [callinfo.Miss],
// [callinfo.Stale] or, for a class that is not cached, [callinfo.Bypass].
//
// Only a 2xx response that fill calls cacheable, whose body is complete
// and which fits the budget is stored. When the platform fails (5xx or a
// connection failure or timeout) and an expired entry of this version
// exists, that entry is served as stale and a note with its age is added
// to the call.
//
// Identical concurrent misses share one fill. The fill runs on a context
// that keeps ctx's values and deadline but not its cancellation: a caller
// that goes away ends only its own wait. When every waiter has gone the
// fill is cancelled, so a platform's quota is not spent on nobody.
func (s *Store) Do(ctx context.Context, class, key string, fill Fill) (connector.FetchResponse, string, error) {
	info := callinfo.From(ctx)
	cl := s.classes[class]
	if cl == nil || cl.ttl <= 0 || s.off.Load() {
		info.Volatile()
		resp, _, err := fill(ctx)
		return resp, callinfo.Bypass, err
	}
	k := storeKey(class, key)
	now := s.o.Now()
	v, state := s.lookup(cl, k, now)
	switch state {
	case fresh:
		if e, err := decodeEntry(v); err == nil {
			cl.hits.add(1)
			info.Until(e.validUntil(cl.ttl))
			info.UsedClass(cl.name)
			return e.resp, callinfo.Hit, nil
		}
		s.c.Del(k)
		state = absent
	case otherVersion:
		// Discarded only now that it is asked for: nothing is cleared
		// ahead of time.
		s.c.Del(k)
		s.changes.Add(1)
		cl.discards.add(1)
	}
	if s.afterLookup != nil {
		s.afterLookup()
	}
	led := false
	val, shared, err := s.flights.do(ctx, string(k), func(fctx context.Context) any {
		led = true
		// Between this caller's lookup and its flight another flight may
		// have filled the entry: look again, so that identical requests
		// reach the platform once whatever the interleaving.
		if v, st := s.lookup(cl, k, s.o.Now()); st == fresh {
			if e, err := decodeEntry(v); err == nil {
				return fillResult{resp: e.resp, hit: true, until: e.validUntil(cl.ttl)}
			}
		}
		return s.fill(fctx, cl, k, fill)
	})
	if err != nil {
		cl.misses.add(1)
		info.Volatile()
		if ctx.Err() != nil {
			return connector.FetchResponse{}, callinfo.Miss, &connector.FetchError{Kind: connector.FetchCanceled,
				Message: fmt.Sprintf("the call ended while waiting for %s: %v", s.o.Title, ctx.Err())}
		}
		return connector.FetchResponse{}, callinfo.Miss, err
	}
	r := val.(fillResult)
	if shared {
		r.resp = cloneResponse(r.resp) // each caller owns its response
		if !led {
			cl.coalesced.add(1)
		}
	}
	if r.until.IsZero() {
		info.Volatile() // not stored: the result built on it may not be kept
	} else {
		info.Until(r.until)
		info.UsedClass(cl.name)
		if !r.hit {
			// Stored during this call: if the connector cannot use it,
			// forget it rather than serve the same failure for its TTL.
			info.OnFailure(func() { s.forget(cl, k) })
		}
	}
	if r.hit {
		cl.hits.add(1)
		return r.resp, callinfo.Hit, nil
	}
	if state == expired && platformFailed(r) {
		if e, derr := decodeEntry(v); derr == nil {
			info.Volatile()
			cl.stale.add(1)
			callinfo.From(ctx).Note(staleNote(s.o.Title, r, e, now))
			return e.resp, callinfo.Stale, nil
		}
	}
	cl.misses.add(1)
	return r.resp, callinfo.Miss, r.err
}

// fillResult is what one shared fill produced.
type fillResult struct {
	resp  connector.FetchResponse
	err   error
	hit   bool      // found in the cache after all
	until time.Time // when the stored answer expires; zero if not stored
}

// fill runs the caller's fill once for everyone waiting on k and stores
// what may be stored.
func (s *Store) fill(ctx context.Context, cl *class, k []byte, fill Fill) fillResult {
	resp, cacheable, err := fill(ctx)
	r := fillResult{resp: resp, err: err}
	if err == nil && cacheable && resp.Status >= 200 && resp.Status < 300 && complete(resp) {
		now := s.o.Now()
		if s.put(cl, k, resp, now) {
			r.until = now.Add(cl.ttl)
		}
	}
	return r
}

// put stores resp under k, written at now, and reports whether it did.
func (s *Store) put(cl *class, k []byte, resp connector.FetchResponse, now time.Time) bool {
	if !s.write(cl, k, &entry{stamp: s.stamp, written: now, expires: now.Add(cl.ttl), resp: resp}) {
		return false
	}
	s.changes.Add(1)
	cl.stored.add(1)
	return true
}

// write stores e under k when fastcache can give it back, counting a
// refusal as oversize, and adds the encoded size to the class's bytes.
func (s *Store) write(cl *class, k []byte, e *entry) bool {
	n := encodedLen(e.resp)
	if n < 0 {
		return false // a header longer than 64 KiB: not worth a format for
	}
	if n+len(k) > s.o.MaxBytes/8 {
		cl.oversize.add(1)
		s.o.Logger.Debug("response too large for the cache", "connector", s.o.Platform, "class", cl.name, "bytes", n)
		return false
	}
	v := appendEntry(make([]byte, 0, n), e)
	if 4+len(k)+len(v) >= bigValue {
		if !fitsBig(k, v, s.o.MaxBytes) {
			cl.oversize.add(1)
			s.o.Logger.Debug("response does not fit the cache's geometry", "connector", s.o.Platform, "class", cl.name, "bytes", n)
			return false
		}
		s.c.SetBig(k, v)
	} else {
		s.c.Set(k, v)
	}
	cl.storedBytes.add(uint64(len(v)))
	return true
}

// platformFailed reports whether the platform, not the caller or the
// host's policy, failed: a 5xx, or a connection failure or timeout.
func platformFailed(r fillResult) bool {
	if r.err != nil {
		var fe *connector.FetchError
		return errors.As(r.err, &fe) && fe.Kind == connector.FetchUnavailable
	}
	return r.resp.Status >= 500 && r.resp.Status <= 599
}

func staleNote(title string, r fillResult, e entry, now time.Time) string {
	why := fmt.Sprintf("answered HTTP %d", r.resp.Status)
	if r.err != nil {
		why = "could not be reached"
	}
	return fmt.Sprintf("%s %s; this answer comes from BesluitBron's cache and is %s old (stored %s, expired %s ago).",
		title, why, age(now.Sub(e.written)), e.written.UTC().Format(time.RFC3339), age(now.Sub(e.expires)))
}

// age renders a duration the way a reader says it: "3 days 4 h",
// "2 h 5 min", "7 min", "40 s".
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%d days %d h", int(d.Hours())/24, int(d.Hours())%24)
}

func cloneResponse(r connector.FetchResponse) connector.FetchResponse {
	r.Header = maps.Clone(r.Header)
	if r.Body != nil {
		r.Body = append([]byte(nil), r.Body...)
	}
	return r
}

// Stats are a store's figures now.
type Stats struct {
	Platform string
	// Entries, MemoryBytes and CapacityBytes come from fastcache; a value
	// over 64 KB counts once per 64 KB piece.
	Entries, MemoryBytes, CapacityBytes uint64
	// Waiting is how many fetches wait now for a fill.
	Waiting int
	// Classes are the cumulative counters per class.
	Classes map[string]Counters
}

// Stats returns the store's figures.
func (s *Store) Stats() Stats {
	var fs fastcache.Stats
	s.c.UpdateStats(&fs)
	st := Stats{Platform: s.o.Platform, Entries: fs.EntriesCount, MemoryBytes: fs.BytesSize, CapacityBytes: uint64(s.o.MaxBytes), Waiting: s.flights.waiting(), Classes: map[string]Counters{}}
	for name, c := range s.classes {
		st.Classes[name] = c.counters()
	}
	return st
}

var _ fetch.Cache = (*Store)(nil)

// Platform is the connector id the store belongs to.
func (s *Store) Platform() string { return s.o.Platform }

// CountHits counts n hits of class without a lookup: a kept tool result
// (package memo) answered a question from answers of this class.
func (s *Store) CountHits(class string, n int) {
	if cl := s.classes[class]; cl != nil && n > 0 {
		cl.hits.add(uint64(n))
	}
}

// forget deletes the entry under k (written during a call whose result
// failed).
func (s *Store) forget(cl *class, k []byte) {
	s.c.Del(k)
	s.changes.Add(1)
	cl.forgotten.add(1)
}

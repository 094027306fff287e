package platformsim

import (
	"bytes"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Platforms are the connector ids the Sim serves, each under /<id>/.
var Platforms = []string{"obv", "ori", "tk", "opentk", "obk", "rechtspraak", "openarchivaris"}

// Zoek is zoek.officielebekendmakingen.nl, the publication files that the
// obk and tk connectors both read next to their own base URL: the Sim
// serves it under /zoek/, counts it in Stats under this key, and takes
// faults for it under this name, like a platform of its own.
const Zoek = "zoek"

const zoekPrefix = Zoek

// knownPlatform reports whether id is a platform or the zoek host: what
// Stats counts and SetFault takes.
func knownPlatform(id string) bool {
	for _, p := range Platforms {
		if p == id {
			return true
		}
	}
	return id == Zoek
}

// hostPaths is what each prefix stands for: the base URL path of the
// platform's API on its real host, so that a connector's base_url override
// is the Sim's root plus this.
var hostPaths = map[string]string{
	"obv":            "",
	"ori":            "/v1/elastic",
	"tk":             "/OData/v4/2.0",
	"opentk":         "/tkconv",
	"obk":            "",
	"rechtspraak":    "",
	"openarchivaris": "",
}

// BaseURLs maps each connector id to the base_url that points it at a Sim
// served at root (e.g. "http://127.0.0.1:9100").
func BaseURLs(root string) map[string]string {
	root = strings.TrimRight(root, "/")
	out := map[string]string{}
	for _, id := range Platforms {
		out[id] = root + "/" + id + hostPaths[id]
	}
	return out
}

// ZoekHost is the real host of the publication files that the obk and
// tk connectors read besides their base URL.
const ZoekHost = "https://zoek.officielebekendmakingen.nl"

// URLRewrites maps connector ids to the connectors.<id>.url_rewrites that
// send their second host to a Sim served at root: the publication files of
// zoek.officielebekendmakingen.nl (obk_get_document, and tk's official-XML
// route for Kamerstukken).
func URLRewrites(root string) map[string][]string {
	rw := ZoekHost + " => " + strings.TrimRight(root, "/") + "/" + zoekPrefix
	return map[string][]string{"obk": {rw}, "tk": {rw}}
}

// counted are the keys of Stats.Platforms: the platforms and the zoek host.
func counted() []string { return append(append([]string(nil), Platforms...), Zoek) }

// Options configure a Sim.
type Options struct {
	// DataDir is the repository's testdata directory (required).
	DataDir string
	// Now is the clock of the bucket, the window counter and "recent"
	// filters (default time.Now).
	Now func() time.Time
	// Logger receives one line per request (default slog.Default()).
	Logger *slog.Logger
	// Seed makes fractional fault rates repeatable.
	Seed uint64
	// Window is the sliding window of Stats' MaxWindowUnits (default 60s).
	Window time.Duration
	// OBVCapacity and OBVRate are OpenBesluitvorming's bucket (default 60
	// units, 1 unit per second).
	OBVCapacity float64
	OBVRate     float64
}

// backend is one platform's API.
type backend interface {
	// cost is what the request costs the platform's own limit (1 where
	// the platform has none).
	cost(r *http.Request) float64
	// serve answers a request whose path has the prefix stripped.
	serve(w http.ResponseWriter, r *http.Request)
	// serverError is the platform's own 5xx answer.
	serverError(reqID string) (status int, ctype string, body []byte)
	// tooMany is the platform's 429 body.
	tooMany(retryAfter int) (ctype string, body []byte)
}

// Sim serves the seven platforms. Create it with [New]; it is safe for
// concurrent use.
type Sim struct {
	o        Options
	log      *slog.Logger
	backends map[string]backend
	done     chan struct{}
	closeOne sync.Once

	mu       sync.Mutex
	faults   map[string]Fault
	counters map[string]*counter
	buckets  map[string]*Bucket // OpenBesluitvorming's, per client address
	rng      *rand.Rand
	reqSeq   uint64
}

// New loads every platform's data. Errors name the file.
func New(o Options) (*Sim, error) {
	if o.DataDir == "" {
		return nil, fmt.Errorf("platformsim: Options.DataDir is required (the repository's testdata directory)")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Window <= 0 {
		o.Window = time.Minute
	}
	if o.OBVCapacity <= 0 {
		o.OBVCapacity = 60
	}
	if o.OBVRate <= 0 {
		o.OBVRate = 1
	}
	s := &Sim{
		o: o, log: o.Logger, done: make(chan struct{}),
		faults: map[string]Fault{}, counters: map[string]*counter{}, buckets: map[string]*Bucket{},
		rng: rand.New(rand.NewPCG(o.Seed, 0x5eed)),
	}
	for _, id := range counted() {
		s.counters[id] = newCounter()
	}
	d := dataDir(o.DataDir)
	loaders := map[string]func(dataDir) (backend, error){
		"obv": newOBV, "ori": newORI, "tk": newTK, "opentk": func(d dataDir) (backend, error) { return newOpenTK(d, o.Now) },
		"obk": newOBK, "rechtspraak": newRechtspraak, "openarchivaris": newOpenArchivaris, zoekPrefix: newZoek,
	}
	s.backends = map[string]backend{}
	for id, load := range loaders {
		b, err := load(d)
		if err != nil {
			return nil, fmt.Errorf("platformsim: %s: %w", id, err)
		}
		s.backends[id] = b
	}
	return s, nil
}

// Close releases hanging requests. The Sim still answers afterwards.
func (s *Sim) Close() { s.closeOne.Do(func() { close(s.done) }) }

// SetFault sets a platform's fault; the zero Fault clears it.
func (s *Sim) SetFault(platform string, f Fault) error {
	if !knownPlatform(platform) {
		return fmt.Errorf("platformsim: unknown platform %q (one of %s)", platform, strings.Join(counted(), ", "))
	}
	if err := f.Validate(); err != nil {
		return err
	}
	if err := f.validFor(platform); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.IsZero() {
		delete(s.faults, platform)
	} else {
		s.faults[platform] = f
	}
	return nil
}

// Faults returns the faults set, by platform.
func (s *Sim) Faults() map[string]Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]Fault{}
	for k, v := range s.faults {
		out[k] = v
	}
	return out
}

// ClearFaults makes every platform healthy again.
func (s *Sim) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = map[string]Fault{}
}

// Stats returns the counters.
func (s *Sim) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := Stats{Window: s.o.Window.String(), Platforms: map[string]PlatformStats{}}
	for id, c := range s.counters {
		out.Platforms[id] = c.snapshot()
	}
	return out
}

// ResetStats zeroes the counters and refills OpenBesluitvorming's buckets.
func (s *Sim) ResetStats() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range counted() {
		s.counters[id] = newCounter()
	}
	s.buckets = map[string]*Bucket{}
}

// Handler serves every platform under /<id>/, the publication files of
// zoek.officielebekendmakingen.nl under /zoek/, the admin API under
// /_sim/ and an index at /.
func (s *Sim) Handler() http.Handler {
	mux := http.NewServeMux()
	for _, id := range Platforms {
		mux.Handle("/"+id+"/", s.platformHandler(id))
	}
	mux.Handle("/"+zoekPrefix+"/", s.platformHandler(zoekPrefix))
	s.adminRoutes(mux)
	return mux
}

// roll draws whether a fault of this rate hits.
func (s *Sim) roll(rate float64) bool {
	switch {
	case rate <= 0:
		return false
	case rate >= 1:
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rng.Float64() < rate
}

// clientAddr is the address OpenBesluitvorming's limiter keys on: the
// rightmost X-Forwarded-For entry (as its proxy sets it), else the peer.
func clientAddr(r *http.Request) string {
	if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
		parts := strings.Split(xff, ",")
		return strings.TrimSpace(parts[len(parts)-1])
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// platformHandler runs the fault and limit pipeline around a backend.
func (s *Sim) platformHandler(id string) http.Handler {
	b := s.backends[id]
	prefix := "/" + id
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		now := s.o.Now()
		cost := b.cost(r)
		rec := &recorder{header: http.Header{}, status: 0}
		// Count before the response leaves, so that a client that has its
		// answer can rely on the counters (tests read them at once).
		rec.beforeFlush = func(status int) { s.count(id, status) }
		injected := ""
		defer func() {
			if !rec.flushed {
				s.count(id, rec.status) // hangs and resets never flush
			}
			s.finish(id, r, cost, rec.status, injected, time.Since(start))
		}()
		s.mu.Lock()
		f := s.faults[id]
		s.reqSeq++
		reqID := fmt.Sprintf("%08x", s.reqSeq*2654435761%(1<<32))
		s.mu.Unlock()

		if f.Hang {
			injected = s.inject(id, "hang")
			select {
			case <-r.Context().Done():
			case <-s.done:
			}
			return
		}
		if f.Latency > 0 {
			injected = s.inject(id, "latency")
			t := time.NewTimer(f.Latency)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			case <-s.done:
				t.Stop()
			}
		}
		if s.roll(f.ResetRate) {
			injected = s.inject(id, "reset")
			resetConn(w)
			return
		}
		if f.Storm429 {
			injected = s.inject(id, "storm429")
			after := f.RetryAfter
			if after == 0 {
				after = 5
			}
			ctype, body := b.tooMany(after)
			rec.header.Set("Content-Type", ctype)
			rec.header.Set("Retry-After", strconv.Itoa(after))
			if id == "obv" {
				setRateHeaders(rec.header, s.o.OBVCapacity, Decision{Remaining: 0, Reset: int(s.o.OBVCapacity / s.o.OBVRate)})
			}
			rec.WriteHeader(http.StatusTooManyRequests)
			rec.Write(body)
			rec.flush(w)
			return
		}
		if id == "obv" && strings.HasPrefix(strings.TrimPrefix(r.URL.Path, prefix), "/api/") && !strings.HasPrefix(strings.TrimPrefix(r.URL.Path, prefix), "/api/admin/") {
			d := s.take(clientAddr(r), now, cost)
			setRateHeaders(rec.header, s.o.OBVCapacity, d)
			if !d.Allowed {
				ctype, body := b.tooMany(d.RetryAfter)
				rec.header.Set("Content-Type", ctype)
				rec.header.Set("Retry-After", strconv.Itoa(d.RetryAfter))
				rec.WriteHeader(http.StatusTooManyRequests)
				rec.Write(body)
				rec.flush(w)
				return
			}
		}
		s.admit(id, now, cost)
		if s.roll(f.ErrorRate) {
			injected = s.inject(id, "error")
			status, ctype, body := b.serverError(reqID)
			rec.header.Set("Content-Type", ctype)
			rec.WriteHeader(status)
			rec.Write(body)
			rec.flush(w)
			return
		}
		if f.RefuseExpand {
			if body, ok := refusedExpand(b, r); ok {
				injected = s.inject(id, "refuse_expand")
				rec.header.Set("Content-Type", "application/json")
				rec.WriteHeader(http.StatusBadRequest)
				rec.Write(body)
				rec.flush(w)
				return
			}
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = strings.TrimPrefix(r.URL.Path, prefix)
		r2.URL.RawPath = ""
		if r2.URL.Path == "" {
			r2.URL.Path = "/"
		}
		b.serve(rec, r2)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		if s.roll(f.MalformedRate) {
			injected = s.inject(id, "malformed")
			rec.status = http.StatusOK
			bad := malform(rec.body.Bytes())
			rec.body.Reset()
			rec.body.Write(bad)
		}
		rec.flush(w)
	})
}

// inject counts a fault as it is applied (a hanging request is counted
// while it hangs) and returns its name for the log.
func (s *Sim) inject(id, kind string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.counters[id]; c != nil {
		c.Injected[kind]++
	}
	return kind
}

// take asks OpenBesluitvorming's bucket of one client.
func (s *Sim) take(client string, now time.Time, cost float64) Decision {
	s.mu.Lock()
	defer s.mu.Unlock()
	bk := s.buckets[client]
	if bk == nil {
		bk = NewBucket(s.o.OBVCapacity, s.o.OBVRate)
		s.buckets[client] = bk
	}
	return bk.Take(now, cost)
}

func (s *Sim) admit(id string, now time.Time, cost float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.counters[id]; c != nil {
		c.admit(now, cost, s.o.Window)
	}
}

// count counts one request and its status.
func (s *Sim) count(id string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.counters[id]; c != nil {
		c.Requests++
		if status != 0 {
			c.Status[strconv.Itoa(status)]++
		}
		if status == http.StatusTooManyRequests {
			c.TooMany++
		}
	}
}

// finish logs one request (counted already).
func (s *Sim) finish(id string, r *http.Request, cost float64, status int, injected string, took time.Duration) {
	path := r.URL.Path
	if r.URL.RawQuery != "" {
		path += "?" + r.URL.RawQuery
	}
	attrs := []any{"platform", id, "method", r.Method, "path", path, "cost", cost, "status", status, "ms", took.Milliseconds()}
	if injected != "" {
		attrs = append(attrs, "fault", injected)
	}
	s.log.Info("request", attrs...)
}

// recorder buffers an answer so that faults can change it before it is
// sent.
type recorder struct {
	header      http.Header
	status      int
	body        bytes.Buffer
	beforeFlush func(status int) // runs once, before the response is written
	flushed     bool
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}
func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) flush(w http.ResponseWriter) {
	for k, v := range r.header {
		w.Header()[k] = v
	}
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if !r.flushed && r.beforeFlush != nil {
		r.beforeFlush(r.status)
	}
	r.flushed = true
	w.Header().Set("Content-Length", strconv.Itoa(r.body.Len()))
	w.WriteHeader(r.status)
	w.Write(r.body.Bytes())
}

// malform truncates a body and appends bytes no parser accepts.
func malform(b []byte) []byte {
	out := append([]byte(nil), b[:len(b)/2]...)
	return append(out, "\x00\xff<<<{\"truncated"...)
}

// resetConn drops the connection with a TCP reset where it can, else a
// plain close; either way the client gets no answer.
func resetConn(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// EnvOverrides are the environment overrides (KEY=VALUE, sorted) that
// point BesluitBron's connectors at a Sim served at root, whatever
// addresses the config file names: each connector's base_url, and for obk
// and tk the url_rewrites of the zoek host (see the configuration table in
// README: BESLUITBRON_ + the key path in capitals, __ between segments).
// `make demo` applies them over demo.toml so that the simulator can listen
// on any address; the demo walk test applies them to the same file.
func EnvOverrides(root string) []string {
	urls, rewrites := BaseURLs(root), URLRewrites(root)
	var out []string
	for _, id := range Platforms {
		key := "BESLUITBRON_CONNECTORS__" + strings.ToUpper(id) + "__"
		out = append(out, key+"BASE_URL="+urls[id])
		if rw := rewrites[id]; len(rw) > 0 {
			// A list from the environment is comma-separated; no rewrite
			// holds a comma.
			out = append(out, key+"URL_REWRITES="+strings.Join(rw, ","))
		}
	}
	sort.Strings(out)
	return out
}

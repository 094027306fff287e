package mcpserver

import (
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/besluitbron/besluitbron/host/internal/serve/inbound"
)

// Defaults of the caps on live sessions and event streams
// ([HTTPOptions]), the same as the [server] configuration's.
const (
	DefaultMaxSessions          = 2000
	DefaultMaxSessionsPerIP     = 50
	DefaultMaxStreamsPerSession = 4
	DefaultMaxStreamsPerIP      = 64
	DefaultSessionTimeout       = 10 * time.Minute
	DefaultMaxBatch             = 32
)

// RefusalRetryAfter is the Retry-After of a request refused because a cap
// on live sessions or streams is reached: a session ends when its client
// deletes it, when its idle timeout passes or (HTTP+SSE) when its stream
// closes, none of which the server can foresee; a client that retries
// after this long finds room once any of its own sessions or streams has
// ended.
const RefusalRetryAfter = 5 * time.Second

// CodeCapReached is the JSON-RPC error code of a refusal for a cap on
// live sessions or streams: the code of a refusal for a limit (as the
// client limits' 429s).
const CodeCapReached = -32029

// Reasons of a refused session or stream, the reason label of
// besluitbron_sessions_refused_total and besluitbron_streams_refused_total.
const (
	ReasonTotal      = "total"       // max_sessions: 503
	ReasonPerIP      = "per_ip"      // max_sessions_per_ip, max_streams_per_ip: 429
	ReasonPerSession = "per_session" // max_streams_per_session: 429
)

// live holds the caps on live sessions (in all and per client address)
// and open event streams (per session and per client address): the GET
// event stream of a streamable HTTP session, and the stream of an HTTP+SSE
// client, which is its session too. A client address is counted as the
// limits count it ([inbound.IPKey]): IPv6 per /64, the block one
// subscriber gets, so that one subscriber cannot take the total by
// walking its own block.
//
// When the total is full, a new session is not simply refused: each
// address holding sessions (and the newcomer's) has a share of the total,
// max_sessions divided by their number, which shrinks as more addresses
// compete. A newcomer under its share takes the place of the least
// recently active idle session (no request running, no stream open) of an
// address over its share; a newcomer at or over its share gives up its
// own least recently active idle session instead. Only when no such idle
// session exists is it refused (503). So a few addresses that open
// sessions and keep them alive with a ping every few minutes can no
// longer lock everyone else out: each newcomer takes a place back from
// them (issue 27). The evicted session is closed, and its client's next
// request gets 404, after which a client initializes again (the
// streamable HTTP transport's rule for a session the server ended).
//
// A streamable session takes its place when the POST that creates it
// arrives (before the body is read) and keeps it once its initialize has
// been answered ([liveSlot.bind]), until the go-sdk closes it (DELETE, the
// idle timeout); a POST that creates no session gives its place back when
// it ends. Counts are exact: every place taken is given back exactly once.
// The table per client address holds only addresses with a session or a
// stream open, so it is bounded by the caps.
type live struct {
	maxSessions, maxSessionsPerIP, maxStreamsPerSession, maxStreamsPerIP int

	now func() time.Time // the activity clock (eviction order)

	mu       sync.Mutex
	sessions int
	streams  int
	perIP    map[string]*ipLive
	byID     map[string]*liveSlot // bound streamable sessions

	refusedSessions [2]atomic.Uint64 // ReasonTotal, ReasonPerIP
	refusedStreams  [2]atomic.Uint64 // ReasonPerSession, ReasonPerIP
	evicted         atomic.Uint64
}

type ipLive struct{ sessions, streams int }

// liveSlot is one session's place.
type liveSlot struct {
	l  *live
	ip string
	// state: 0 pending (its creating request runs), 1 bound to a go-sdk
	// session, 2 given back.
	state atomic.Int32
	// Under l.mu:
	id      string
	version string // the negotiated protocol version
	streams int
	ss      *mcp.ServerSession
	// busy counts the session's requests running and streams open (a
	// busy session is never evicted); last is when one last began or
	// ended.
	busy int
	last time.Time
}

// refusal is a cap's answer.
type refusal struct {
	status int
	reason string
	msg    string
}

func newLive(o HTTPOptions) *live {
	return &live{
		now:                  o.Clock.Now,
		maxSessions:          o.MaxSessions,
		maxSessionsPerIP:     o.MaxSessionsPerIP,
		maxStreamsPerSession: o.MaxStreamsPerSession,
		maxStreamsPerIP:      o.MaxStreamsPerIP,
		perIP:                map[string]*ipLive{},
		byID:                 map[string]*liveSlot{},
	}
}

func (l *live) ipLocked(ip string) *ipLive {
	e := l.perIP[ip]
	if e == nil {
		e = &ipLive{}
		l.perIP[ip] = e
	}
	return e
}

func (l *live) dropLocked(ip string, e *ipLive) {
	if e.sessions <= 0 && e.streams <= 0 {
		delete(l.perIP, ip)
	}
}

// ipKey is the key of a client address in the table per address: IPv6
// per /64 ([inbound.IPKey]); a string that is no IP address as it is.
func ipKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	return inbound.IPKey(a).String()
}

// openSession takes a session's place for a client at ip, evicting an
// idle session when the total is full (see [live]).
func (l *live) openSession(ip string) (*liveSlot, *refusal) {
	ip = ipKey(ip)
	var victim *liveSlot
	defer func() {
		if victim != nil {
			// Not under l.mu: closing runs the go-sdk's callbacks.
			go victim.ss.Close()
		}
	}()
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.perIP[ip]
	if e != nil && e.sessions >= l.maxSessionsPerIP {
		l.refusedSessions[1].Add(1)
		return nil, &refusal{http.StatusTooManyRequests, ReasonPerIP,
			fmt.Sprintf("BesluitBron: too many open sessions from this client address: at most %d (server.max_sessions_per_ip); end sessions no longer used (HTTP DELETE with their Mcp-Session-Id) or retry after %d s", l.maxSessionsPerIP, int(RefusalRetryAfter.Seconds()))}
	}
	if l.sessions >= l.maxSessions {
		victim = l.victimLocked(ip)
		if victim == nil {
			l.refusedSessions[0].Add(1)
			return nil, &refusal{http.StatusServiceUnavailable, ReasonTotal,
				fmt.Sprintf("BesluitBron: the server holds its maximum of %d open sessions (server.max_sessions), all of them busy; retry after %d s", l.maxSessions, int(RefusalRetryAfter.Seconds()))}
		}
		victim.state.Store(2)
		l.releaseLocked(victim)
		l.evicted.Add(1)
	}
	if e == nil {
		e = l.ipLocked(ip)
	}
	l.sessions++
	e.sessions++
	return &liveSlot{l: l, ip: ip}, nil
}

// share is each address's share of the sessions when the table is full
// and a client at ip asks for one: max_sessions over the addresses
// holding sessions, the newcomer's counted (at least 1).
func (l *live) shareLocked(ip string) int {
	n := 0
	for _, e := range l.perIP {
		if e.sessions > 0 {
			n++
		}
	}
	if e := l.perIP[ip]; e == nil || e.sessions == 0 {
		n++
	}
	return max(1, l.maxSessions/n)
}

// victimLocked picks the session a newcomer at ip takes the place of: the
// least recently active idle session of an address over its share, or,
// when ip itself holds its share or more, ip's own least recently active
// idle session; nil when there is none.
func (l *live) victimLocked(ip string) *liveSlot {
	share := l.shareLocked(ip)
	own := false
	if e := l.perIP[ip]; e != nil && e.sessions >= share {
		own = true
	}
	var best *liveSlot
	for _, s := range l.byID {
		if s.busy > 0 || s.streams > 0 || s.ss == nil || s.state.Load() != 1 {
			continue
		}
		if own {
			if s.ip != ip {
				continue
			}
		} else if e := l.perIP[s.ip]; e == nil || e.sessions <= share {
			continue
		}
		if best == nil || s.last.Before(best.last) {
			best = s
		}
	}
	return best
}

// begin marks a request or stream of the session running (not idle) and
// returns the func that marks its end; the session's activity is their
// time.
func (l *live) begin(s *liveSlot) func() {
	if s == nil {
		return func() {}
	}
	l.mu.Lock()
	s.busy++
	s.last = l.now()
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			s.busy--
			s.last = l.now()
			l.mu.Unlock()
		})
	}
}

// bind keeps the place for the go-sdk session ss, whose initialize
// negotiated version, until ss closes. It reports false when the place was
// already given back (the creating request ended first).
func (s *liveSlot) bind(ss *mcp.ServerSession, version string) bool {
	if !s.state.CompareAndSwap(0, 1) {
		return false
	}
	l := s.l
	l.mu.Lock()
	s.id = ss.ID()
	s.version = version
	s.ss = ss
	s.last = l.now()
	if s.id != "" {
		l.byID[s.id] = s
	}
	l.mu.Unlock()
	go func() {
		ss.Wait()
		if s.state.CompareAndSwap(1, 2) { // not evicted meanwhile
			s.giveBack()
		}
	}()
	return true
}

// abandon gives the place back unless a session was bound to it.
func (s *liveSlot) abandon() {
	if s.state.CompareAndSwap(0, 2) {
		s.giveBack()
	}
}

// close gives back the place of an HTTP+SSE session (never bound) when its
// stream ends.
func (s *liveSlot) giveBack() {
	l := s.l
	l.mu.Lock()
	defer l.mu.Unlock()
	l.releaseLocked(s)
}

// releaseLocked gives s's place back; each place exactly once (the state
// moved to 2 by whoever calls it).
func (l *live) releaseLocked(s *liveSlot) {
	l.sessions--
	if s.id != "" && l.byID[s.id] == s {
		delete(l.byID, s.id)
	}
	if e := l.perIP[s.ip]; e != nil {
		e.sessions--
		l.dropLocked(s.ip, e)
	}
}

// openStream takes an event stream's place for a client at ip, on the
// session slot (nil: a session this table does not know; the go-sdk
// answers for it, and only the address's cap applies). The returned func
// gives it back.
func (l *live) openStream(slot *liveSlot, ip string) (func(), *refusal) {
	ip = ipKey(ip)
	l.mu.Lock()
	defer l.mu.Unlock()
	if slot != nil && slot.streams >= l.maxStreamsPerSession {
		l.refusedStreams[0].Add(1)
		return nil, &refusal{http.StatusTooManyRequests, ReasonPerSession,
			fmt.Sprintf("BesluitBron: this session has its maximum of %d open event streams (server.max_streams_per_session); close one or retry after %d s", l.maxStreamsPerSession, int(RefusalRetryAfter.Seconds()))}
	}
	e := l.perIP[ip]
	if e != nil && e.streams >= l.maxStreamsPerIP {
		l.refusedStreams[1].Add(1)
		return nil, &refusal{http.StatusTooManyRequests, ReasonPerIP,
			fmt.Sprintf("BesluitBron: too many open event streams from this client address: at most %d (server.max_streams_per_ip); close one or retry after %d s", l.maxStreamsPerIP, int(RefusalRetryAfter.Seconds()))}
	}
	if e == nil {
		e = l.ipLocked(ip)
	}
	l.streams++
	e.streams++
	if slot != nil {
		slot.streams++
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.streams--
			if slot != nil {
				slot.streams--
			}
			if e := l.perIP[ip]; e != nil {
				e.streams--
				l.dropLocked(ip, e)
			}
		})
	}, nil
}

// session returns the bound session with id ("" or unknown: nil).
func (l *live) session(id string) *liveSlot {
	if id == "" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byID[id]
}

// version returns the protocol version session id negotiated ("" when
// unknown).
func (l *live) version(id string) string {
	if id == "" {
		return ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.byID[id]; s != nil {
		return s.version
	}
	return ""
}

// LiveStats are the live sessions' and streams' figures.
type LiveStats struct {
	Sessions, Streams int
	// IPs is the number of client addresses with a session or stream
	// open (the size of the per-address table).
	IPs int
	// SessionsRefused and StreamsRefused count refusals by reason.
	SessionsRefused map[string]uint64
	StreamsRefused  map[string]uint64
	// SessionsEvicted counts idle sessions closed to make room for a
	// newcomer when the total was full.
	SessionsEvicted uint64
}

func (l *live) stats() LiveStats {
	l.mu.Lock()
	st := LiveStats{Sessions: l.sessions, Streams: l.streams, IPs: len(l.perIP)}
	l.mu.Unlock()
	st.SessionsRefused = map[string]uint64{ReasonTotal: l.refusedSessions[0].Load(), ReasonPerIP: l.refusedSessions[1].Load()}
	st.StreamsRefused = map[string]uint64{ReasonPerSession: l.refusedStreams[0].Load(), ReasonPerIP: l.refusedStreams[1].Load()}
	st.SessionsEvicted = l.evicted.Load()
	return st
}

// write answers a refused request: the status, Retry-After and a
// JSON-RPC error naming the cap.
func (r *refusal) write(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(int(RefusalRetryAfter.Seconds())))
	writeRPCError(w, r.status, nil, CodeCapReached, r.msg)
}

var (
	descSessionsOpen    = prometheus.NewDesc("besluitbron_sessions_open", "Live MCP sessions (streamable HTTP and HTTP+SSE).", nil, nil)
	descStreamsOpen     = prometheus.NewDesc("besluitbron_streams_open", "Open MCP event streams (streamable HTTP GET streams and HTTP+SSE streams).", nil, nil)
	descSessionsRefused = prometheus.NewDesc("besluitbron_sessions_refused_total", "New MCP sessions refused, by the cap reached (total: 503; per_ip: 429).", []string{"reason"}, nil)
	descStreamsRefused  = prometheus.NewDesc("besluitbron_streams_refused_total", "MCP event streams refused, by the cap reached (per_session, per_ip: 429).", []string{"reason"}, nil)
	descSessionsEvicted = prometheus.NewDesc("besluitbron_sessions_evicted_total", "Idle MCP sessions closed to make room for a new one when server.max_sessions was reached (the least recently active of an address over its share).", nil, nil)
)

// liveCollector exports a handler's live sessions and streams.
type liveCollector struct{ l *live }

func (c liveCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descSessionsOpen, descStreamsOpen, descSessionsRefused, descStreamsRefused, descSessionsEvicted} {
		ch <- d
	}
}

func (c liveCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.l.stats()
	ch <- prometheus.MustNewConstMetric(descSessionsOpen, prometheus.GaugeValue, float64(st.Sessions))
	ch <- prometheus.MustNewConstMetric(descStreamsOpen, prometheus.GaugeValue, float64(st.Streams))
	ch <- prometheus.MustNewConstMetric(descSessionsEvicted, prometheus.CounterValue, float64(st.SessionsEvicted))
	for _, r := range []string{ReasonTotal, ReasonPerIP} {
		ch <- prometheus.MustNewConstMetric(descSessionsRefused, prometheus.CounterValue, float64(st.SessionsRefused[r]), r)
	}
	for _, r := range []string{ReasonPerSession, ReasonPerIP} {
		ch <- prometheus.MustNewConstMetric(descStreamsRefused, prometheus.CounterValue, float64(st.StreamsRefused[r]), r)
	}
}

package mcpserver

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
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
// client, which is its session too.
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

	mu       sync.Mutex
	sessions int
	streams  int
	perIP    map[string]*ipLive
	byID     map[string]*liveSlot // bound streamable sessions

	refusedSessions [2]atomic.Uint64 // ReasonTotal, ReasonPerIP
	refusedStreams  [2]atomic.Uint64 // ReasonPerSession, ReasonPerIP
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
}

// refusal is a cap's answer.
type refusal struct {
	status int
	reason string
	msg    string
}

func newLive(o HTTPOptions) *live {
	return &live{
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

// openSession takes a session's place for a client at ip.
func (l *live) openSession(ip string) (*liveSlot, *refusal) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sessions >= l.maxSessions {
		l.refusedSessions[0].Add(1)
		return nil, &refusal{http.StatusServiceUnavailable, ReasonTotal,
			fmt.Sprintf("BesluitBron: the server holds its maximum of %d open sessions (server.max_sessions); retry after %d s", l.maxSessions, int(RefusalRetryAfter.Seconds()))}
	}
	e := l.perIP[ip]
	if e != nil && e.sessions >= l.maxSessionsPerIP {
		l.refusedSessions[1].Add(1)
		return nil, &refusal{http.StatusTooManyRequests, ReasonPerIP,
			fmt.Sprintf("BesluitBron: too many open sessions from this client address: at most %d (server.max_sessions_per_ip); end sessions no longer used (HTTP DELETE with their Mcp-Session-Id) or retry after %d s", l.maxSessionsPerIP, int(RefusalRetryAfter.Seconds()))}
	}
	if e == nil {
		e = l.ipLocked(ip)
	}
	l.sessions++
	e.sessions++
	return &liveSlot{l: l, ip: ip}, nil
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
	if s.id != "" {
		l.byID[s.id] = s
	}
	l.mu.Unlock()
	go func() {
		ss.Wait()
		s.giveBack()
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
}

func (l *live) stats() LiveStats {
	l.mu.Lock()
	st := LiveStats{Sessions: l.sessions, Streams: l.streams, IPs: len(l.perIP)}
	l.mu.Unlock()
	st.SessionsRefused = map[string]uint64{ReasonTotal: l.refusedSessions[0].Load(), ReasonPerIP: l.refusedSessions[1].Load()}
	st.StreamsRefused = map[string]uint64{ReasonPerSession: l.refusedStreams[0].Load(), ReasonPerIP: l.refusedStreams[1].Load()}
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
)

// liveCollector exports a handler's live sessions and streams.
type liveCollector struct{ l *live }

func (c liveCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descSessionsOpen, descStreamsOpen, descSessionsRefused, descStreamsRefused} {
		ch <- d
	}
}

func (c liveCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.l.stats()
	ch <- prometheus.MustNewConstMetric(descSessionsOpen, prometheus.GaugeValue, float64(st.Sessions))
	ch <- prometheus.MustNewConstMetric(descStreamsOpen, prometheus.GaugeValue, float64(st.Streams))
	for _, r := range []string{ReasonTotal, ReasonPerIP} {
		ch <- prometheus.MustNewConstMetric(descSessionsRefused, prometheus.CounterValue, float64(st.SessionsRefused[r]), r)
	}
	for _, r := range []string{ReasonPerSession, ReasonPerIP} {
		ch <- prometheus.MustNewConstMetric(descStreamsRefused, prometheus.CounterValue, float64(st.StreamsRefused[r]), r)
	}
}

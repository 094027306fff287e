package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/sched"
)

// Resumable streams.
//
// A call that waits at a platform's limit keeps its POST's event stream
// open for as long as it waits, a minute or more. When the connection
// drops (a laptop's Wi-Fi, a proxy's idle timeout), MCP 2025-11-25 lets
// the client resume the stream with a GET carrying Last-Event-ID, and the
// go-sdk replays what the stream missed from the event store
// (HTTPOptions.EventStore) and goes on with it. Three things here make
// that hold for a call:
//
//   - The call outlives its POST for a grace period (ResumeGrace). A POST
//     whose connection closes with calls still running hands them to an
//     orphan, keyed by the session and the stream's id, instead of
//     cancelling them (cancel.go). A resumption of that stream adopts
//     them for as long as it is open; when the grace passes with nobody
//     resuming, the calls are cancelled as before: they leave the
//     scheduler's queue and their instance, and the platform sees
//     nothing. The quota a call already spent is spent once: its answer
//     is delivered from the store, never fetched again.
//   - A call still running after PollAfter has its stream closed by the
//     server with a retry hint (SEP-1699), so long waits become polls
//     that no proxy's idle timeout cuts, and the client reconnects
//     knowingly rather than after a failure.
//   - The stream's id is learnt from the first event id the go-sdk writes
//     on the POST's response (streamWatch): the priming event on
//     2025-11-25 sessions, the first message on older ones. A stream with
//     no id written yet cannot be resumed, so its calls are cancelled at
//     once when its connection closes.
//
// Protocol versions: 2025-03-26 and 2025-06-18 define resumption without
// priming events; 2025-11-25 adds the priming event and the retry hint;
// 2026-07-28 removes Last-Event-ID resumption (SEP-2575) and the go-sdk
// serves it only on stateless transports, so sessions here negotiate
// 2025-11-25 at most, and 2026-07-28 clients are served beside them by a
// stateless handler, without resumption (stateless.go). A request whose
// MCP-Protocol-Version header names an older version than its session
// negotiated is served as the negotiated version: the header exists for
// servers that keep no session, and the session's version is what both
// sides agreed (normalizeVersion).

// Defaults of the resumption settings ([HTTPOptions]), the same as the
// [server] configuration's.
const (
	DefaultResumeGrace = 30 * time.Second
	DefaultPollAfter   = 45 * time.Second
	DefaultPollRetry   = 2 * time.Second
	DefaultPrimeHold   = 5 * time.Millisecond
)

// errNotResumed is the cause of a call cancelled because its client
// neither kept nor resumed its stream.
var errNotResumed = errors.New("the client closed the connection and did not resume the stream within server.resume_grace")

// lastEventIDHeader names the event a resuming GET continues after.
const lastEventIDHeader = "Last-Event-ID"

// A postEntry is one streamable POST (or, with legacy, an HTTP+SSE
// stream) and the calls it carries. Its life context ends when its calls
// must stop: at once when its connection closes and it cannot be resumed,
// or when the grace after that passes without a resumption.
type postEntry struct {
	ctx  context.Context // the POST's request context
	slot *liveSlot       // the session's place, on a POST that creates one
	r    *resumer        // of the Handler that serves it

	life context.Context
	end  context.CancelCauseFunc

	tok     string // its token (cancel.go), resolvable until it is forgotten
	session string // the Mcp-Session-Id it was sent with
	watch   *streamWatch

	mu       sync.Mutex
	running  int         // calls of this POST still running
	orphaned bool        // the POST has ended with calls running
	adopters int         // resuming GETs open now
	grace    sched.Timer // pending cancellation while nobody resumes
}

func newPostEntry(ctx context.Context, r *resumer) *postEntry {
	life, end := context.WithCancelCause(context.Background())
	return &postEntry{ctx: ctx, r: r, life: life, end: end}
}

// streamID is the go-sdk's id of the POST's stream, "" while none has
// been written.
func (e *postEntry) streamID() string {
	if e.watch == nil {
		return ""
	}
	return e.watch.id()
}

// begin counts a call of the POST; the returned func ends it.
func (e *postEntry) begin() func() {
	e.mu.Lock()
	e.running++
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		e.running--
		done := e.running == 0 && e.orphaned
		e.mu.Unlock()
		if done {
			e.r.forget(e)
		}
	}
}

// resumer keeps the orphans: POSTs gone with calls running, by session
// and stream id.
type resumer struct {
	store              bool // an event store keeps the streams' events
	grace, after, hint time.Duration
	clock              sched.Clock
	posts              *posts

	mu      sync.Mutex
	orphans map[string]*postEntry // session + " " + stream id
}

func newResumer(o HTTPOptions, p *posts) *resumer {
	return &resumer{
		posts: p,
		store: o.EventStore != nil,
		grace: o.ResumeGrace, after: o.PollAfter, hint: o.PollRetry,
		clock:   o.Clock,
		orphans: map[string]*postEntry{},
	}
}

func orphanKey(session, stream string) string { return session + " " + stream }

// ended is called when a POST's response is over. A response that ended
// because its connection closed (gone) or that the server closed for
// polling leaves calls to finish: they wait for a resumption when the
// stream can be resumed, and are cancelled otherwise. A call whose
// handler has not started yet counts too, so the POST stays known (its
// token resolves) until the grace passes.
func (r *resumer) ended(e *postEntry, gone bool) {
	id := e.streamID()
	e.mu.Lock()
	pending := e.running > 0 || gone
	resumable := pending && r.store && e.session != "" && id != ""
	if resumable {
		e.orphaned = true
	}
	e.mu.Unlock()
	if !resumable {
		r.posts.remove(e.tok)
		e.end(errClientGone)
		return
	}
	r.mu.Lock()
	r.orphans[orphanKey(e.session, id)] = e
	r.mu.Unlock()
	r.wait(e)
}

// wait starts the grace of an orphan nobody is resuming.
func (r *resumer) wait(e *postEntry) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.adopters > 0 || e.grace != nil {
		return
	}
	e.grace = r.clock.AfterFunc(r.grace, func() {
		e.mu.Lock()
		gone := e.adopters == 0
		e.grace = nil
		e.mu.Unlock()
		if gone {
			e.end(errNotResumed)
			r.forget(e)
		}
	})
}

// forget drops an orphan whose calls have ended or were cancelled.
func (r *resumer) forget(e *postEntry) {
	e.mu.Lock()
	if e.grace != nil {
		e.grace.Stop()
		e.grace = nil
	}
	e.mu.Unlock()
	e.end(nil)
	r.posts.remove(e.tok)
	key := orphanKey(e.session, e.streamID())
	r.mu.Lock()
	if r.orphans[key] == e {
		delete(r.orphans, key)
	}
	r.mu.Unlock()
}

// adopt ties the orphan a resuming GET names, if any, to that GET: its
// calls go on while the GET is open. The returned func, called when the
// GET ends, starts the grace again if calls are still running.
func (r *resumer) adopt(req *http.Request) func() {
	session := req.Header.Get(sessionHeader)
	stream, _, ok := strings.Cut(req.Header.Get(lastEventIDHeader), "_")
	if session == "" || !ok {
		return func() {}
	}
	r.mu.Lock()
	e := r.orphans[orphanKey(session, stream)]
	r.mu.Unlock()
	if e == nil {
		return func() {}
	}
	e.mu.Lock()
	e.adopters++
	if e.grace != nil {
		e.grace.Stop()
		e.grace = nil
	}
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		e.adopters--
		finished := e.running == 0
		e.mu.Unlock()
		if finished {
			r.forget(e)
			return
		}
		r.wait(e)
	}
}

// orphanCount is the number of orphans waiting or adopted (for tests and
// the metrics).
func (r *resumer) orphanCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.orphans)
}

// poll closes a call's stream with a retry hint once it has run for
// PollAfter, when the client can resume it; the returned func stops the
// timer when the call ends first.
func (r *resumer) poll(e *postEntry, req mcp.Request) func() {
	if !r.store || r.after <= 0 || e == nil || e.streamID() == "" || !primed(e) {
		return func() {}
	}
	extra := req.GetExtra()
	if extra == nil || extra.CloseSSEStream == nil {
		return func() {}
	}
	closeStream := extra.CloseSSEStream
	t := r.clock.AfterFunc(r.after, func() { closeStream(mcp.CloseSSEStreamArgs{RetryAfter: r.hint}) })
	return func() { t.Stop() }
}

// primed says whether the POST's stream began with a priming event: only
// then does the client hold an event id before the answer, and only then
// (2025-11-25) does the go-sdk send the retry hint when it closes it.
func primed(e *postEntry) bool { return e.watch != nil && e.watch.primed() }

// streamWatch learns a POST stream's id from the first "id:" line the
// go-sdk writes on it, and holds back the flush of a priming event.
//
// The go-sdk flushes after every event, so a stream that begins with a
// priming event (2025-11-25) costs a call two writes to the connection
// and its client two reads, where a server without resumption writes
// once. The priming event only matters to a client whose connection
// drops before the answer, so its flush waits up to hold for the
// answer's, and the two leave in one write; a call still running after
// hold gets its priming event then (RATIONALE, "What a repeated call
// costs").
type streamWatch struct {
	http.ResponseWriter
	hold  time.Duration // <= 0: flush at once
	clock sched.Clock

	mu      sync.Mutex
	sid     string
	prime   bool
	seen    int // bytes looked at; the id comes first, so looking stops early
	flushed bool
	held    sched.Timer // the priming event's pending flush
	done    bool        // the handler returned: the writer is not ours
}

func (w *streamWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sid == "" && w.seen < 4096 {
		w.seen += len(p)
		if i := bytes.Index(p, []byte("id: ")); i >= 0 {
			line, _, _ := bytes.Cut(p[i+4:], []byte("\n"))
			if s, _, ok := bytes.Cut(bytes.TrimSpace(line), []byte("_")); ok {
				w.sid = string(s)
				w.prime = bytes.Contains(p[:i], []byte("event: prime"))
			}
		}
	}
	return w.ResponseWriter.Write(p)
}

func (w *streamWatch) id() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sid
}

func (w *streamWatch) primed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.prime
}

// Unwrap lets http.ResponseController reach the connection (flushes,
// write deadlines).
func (w *streamWatch) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes flushes on (the go-sdk flushes after every event), except
// the first of a stream that began with a priming event, which waits for
// the next or for hold.
func (w *streamWatch) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	if !w.flushed && w.held == nil && w.prime && w.hold > 0 && w.clock != nil {
		w.held = w.clock.AfterFunc(w.hold, w.flushHeld)
		return
	}
	if w.held != nil {
		w.held.Stop()
		w.held = nil
	}
	w.flush()
}

func (w *streamWatch) flushHeld() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done || w.held == nil {
		return
	}
	w.held = nil
	w.flush()
}

func (w *streamWatch) flush() {
	w.flushed = true
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// finish is called when the handler returns: a held flush is dropped
// (net/http sends what is buffered as the response ends) and the writer
// is left alone from then on.
func (w *streamWatch) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if w.held != nil {
		w.held.Stop()
		w.held = nil
	}
}

// normalizeVersion serves a request whose MCP-Protocol-Version header
// names an older version than its session negotiated as the negotiated
// version.
func normalizeVersion(r *http.Request, negotiated string) {
	if negotiated == "" {
		return
	}
	if v := r.Header.Get(protocolVersionHeader); v != "" && v < negotiated {
		r.Header.Set(protocolVersionHeader, negotiated)
	}
}

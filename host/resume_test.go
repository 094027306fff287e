package host_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dropper is an HTTP transport that cuts the connection of one armed
// tools/call POST once the first event of its stream (the priming event,
// which carries the event id to resume from) has arrived: what a laptop's
// Wi-Fi or a proxy's idle timeout does to a call waiting at a limit.
type dropper struct {
	armed   atomic.Bool
	dropped chan struct{}
	resumed atomic.Int32 // GETs carrying Last-Event-ID
}

func (d *dropper) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet && req.Header.Get("Last-Event-ID") != "" {
		d.resumed.Add(1)
	}
	isCall := false
	if req.Method == http.MethodPost && req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		isCall = bytes.Contains(b, []byte(`"tools/call"`))
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || !isCall || !d.armed.CompareAndSwap(true, false) {
		return res, err
	}
	res.Body = &cutBody{body: res.Body, done: d.dropped}
	return res, nil
}

// cutBody passes the stream's first event on, then closes the connection
// and fails the read.
type cutBody struct {
	body io.ReadCloser
	buf  []byte
	done chan struct{}
	once sync.Once
	cut  bool
}

var errCut = errors.New("connection cut by the test")

func (c *cutBody) Read(p []byte) (int, error) {
	if c.cut {
		return 0, errCut
	}
	for !bytes.Contains(c.buf, []byte("\n\n")) {
		chunk := make([]byte, 512)
		n, err := c.body.Read(chunk)
		c.buf = append(c.buf, chunk[:n]...)
		if err != nil {
			break
		}
	}
	i := bytes.Index(c.buf, []byte("\n\n"))
	if i < 0 {
		i = len(c.buf) - 2
	}
	n := copy(p, c.buf[:i+2])
	c.cut = true
	c.body.Close() // the connection goes
	c.once.Do(func() { close(c.done) })
	return n, nil
}

func (c *cutBody) Close() error { return c.body.Close() }

// TestDroppedStreamResumes: a call waiting at OBV's limit loses its
// connection right after the priming event; the go-sdk client resumes the
// stream with Last-Event-ID and gets the answer. The platform sees the
// call's request once, the quota grants it once, and nothing was
// cancelled. It catches a call cancelled when its connection drops
// although its stream can be resumed, a stream without event ids, an
// answer never stored for replay, and a call run twice.
func TestDroppedStreamResumes(t *testing.T) {
	if proofRace() {
		t.Skip("an end-to-end test over real sockets: its concurrency lives in mcpserver and eventstore, raced there")
	}
	sh := startSessionsHost(t, "[mcp_rate_limit]\nenabled = false\n[server]\nresume_grace = \"30s\"\n[connectors.obv.limits.api]\nunits = 1\nper = \"2s\"\n")
	d := &dropper{dropped: make(chan struct{})}
	client := mcp.NewClient(&mcp.Implementation{Name: "resume-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint:   sh.base + "/mcp/unified/v1",
		HTTPClient: &http.Client{Transport: d},
	}, legacyClient)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Fatalf("negotiated %s; the test needs 2025-11-25 (priming events)", v)
	}
	call := func(q string) (*mcp.CallToolResult, error) {
		return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": q}})
	}
	if r, err := call("eerste"); err != nil || r.IsError {
		t.Fatalf("first call: %v %+v", err, r)
	}
	hits := sh.hits.Load()
	granted := sumMetric(t, sh.base, "besluitbron_sched_granted_calls_total", `platform="obv"`)
	canceled := sumMetric(t, sh.base, "besluitbron_sched_canceled_total", `platform="obv"`)

	d.armed.Store(true)
	type answer struct {
		r   *mcp.CallToolResult
		err error
	}
	got := make(chan answer, 1)
	go func() { r, err := call("tweede"); got <- answer{r, err} }()
	<-d.dropped
	var a answer
	select {
	case a = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("no answer 30 s after the connection was cut")
	}
	if a.err != nil || a.r.IsError {
		t.Fatalf("the resumed call: %v %+v", a.err, a.r)
	}
	if text := a.r.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, "tweede") && len(text) < 20 {
		t.Fatalf("the resumed call's answer: %.300s", text)
	}
	if d.resumed.Load() == 0 {
		t.Fatal("the answer came without a resumption: the connection was not cut while the call waited")
	}
	if n := sh.hits.Load() - hits; n != 1 {
		t.Errorf("the platform saw %d requests of the resumed call, want 1", n)
	}
	if n := sumMetric(t, sh.base, "besluitbron_sched_granted_calls_total", `platform="obv"`) - granted; n != 1 {
		t.Errorf("the quota granted the resumed call %v times, want 1", n)
	}
	if n := sumMetric(t, sh.base, "besluitbron_sched_canceled_total", `platform="obv"`) - canceled; n != 0 {
		t.Errorf("%v calls cancelled, want 0", n)
	}
	if b := sumMetric(t, sh.base, "besluitbron_event_store_bytes", ""); b <= 0 || b > 16<<20 {
		t.Errorf("event store holds %v bytes; want some, within its 16 MiB bound", b)
	}
}

// TestDroppedStreamNotResumedIsCancelled: the same drop with a client that
// never comes back: after server.resume_grace the call leaves the queue,
// the platform never sees it and the cancellation is counted. It catches
// an orphaned call kept for ever (a quota spent for nobody).
func TestDroppedStreamNotResumedIsCancelled(t *testing.T) {
	if proofRace() {
		t.Skip("an end-to-end test over real sockets: its concurrency lives in mcpserver and eventstore, raced there")
	}
	sh := startSessionsHost(t, "[mcp_rate_limit]\nenabled = false\n[server]\nresume_grace = \"300ms\"\n[connectors.obv.limits.api]\nunits = 1\nper = \"60s\"\n")
	url := sh.base + "/mcp/unified/v1"
	c := &http.Client{Timeout: 30 * time.Second}
	sid := newSession(t, c, url, "2025-11-25")
	search := func(q string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"obv_search","arguments":{"query":"` + q + `"}}}`
	}
	if r, err := sessPost(context.Background(), c, url, sid, "2025-11-25", search("eerste")); err != nil || r.status != 200 || !strings.Contains(r.body, "event: prime") {
		t.Fatalf("first call (want a priming event): %v %d %.300s", err, r.status, r.body)
	}
	hits := sh.hits.Load()
	queued := func() float64 { return sumMetric(t, sh.base, "besluitbron_sched_queued_calls", `platform="obv"`) }
	canceled := sumMetric(t, sh.base, "besluitbron_sched_canceled_total", `platform="obv"`)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := sessPost(ctx, c, url, sid, "2025-11-25", search("tweede")); done <- err }()
	waitFor(t, 10*time.Second, "the second call waiting at the quota", func() bool { return queued() == 1 })
	cancel()
	<-done
	left := time.Now()
	waitFor(t, 10*time.Second, "the call cancelled after the grace", func() bool { return queued() == 0 })
	if waited := time.Since(left); waited < 250*time.Millisecond {
		t.Errorf("the call left the queue %v after its client, before the 300ms grace", waited)
	}
	if got := sumMetric(t, sh.base, "besluitbron_sched_canceled_total", `platform="obv"`); got != canceled+1 {
		t.Errorf("canceled calls %v, want %v", got, canceled+1)
	}
	if n := sh.hits.Load(); n != hits {
		t.Errorf("the platform saw %d requests of the abandoned call", n-hits)
	}
}

// TestLongWaitBecomesPolls: a call waiting at OBV's limit longer than
// server.stream_poll_after has its stream closed by the server with a
// retry hint; the go-sdk client resumes it with Last-Event-ID (as the
// specification asks of it) and gets the answer, fetched once. It catches
// the poll closing a stream the client cannot resume, and a retry hint
// missing (the client would give up or wait its own default).
func TestLongWaitBecomesPolls(t *testing.T) {
	if proofRace() {
		t.Skip("an end-to-end test over real sockets: its concurrency lives in mcpserver and eventstore, raced there")
	}
	sh := startSessionsHost(t, "[mcp_rate_limit]\nenabled = false\n[server]\nstream_poll_after = \"300ms\"\nstream_retry = \"50ms\"\n[connectors.obv.limits.api]\nunits = 1\nper = \"2s\"\n")
	d := &dropper{dropped: make(chan struct{})}
	var retries atomic.Int32
	hc := &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		res, err := d.RoundTrip(req)
		if err == nil && req.Method == http.MethodPost {
			res.Body = &retryWatch{ReadCloser: res.Body, n: &retries}
		}
		return res, err
	})}
	client := mcp.NewClient(&mcp.Implementation{Name: "poll-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: sh.base + "/mcp/unified/v1", HTTPClient: hc}, legacyClient)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(q string) (*mcp.CallToolResult, error) {
		return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": q}})
	}
	if r, err := call("eerste"); err != nil || r.IsError {
		t.Fatalf("first call: %v %+v", err, r)
	}
	hits := sh.hits.Load()
	r, err := call("tweede")
	if err != nil || r.IsError {
		t.Fatalf("the long call: %v %+v", err, r)
	}
	if retries.Load() == 0 || d.resumed.Load() == 0 {
		t.Fatalf("retry hints %d, resumptions %d: want the stream closed with a retry hint and resumed", retries.Load(), d.resumed.Load())
	}
	if n := sh.hits.Load() - hits; n != 1 {
		t.Errorf("the platform saw %d requests of the polled call, want 1", n)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// retryWatch counts the SSE retry fields a response carries.
type retryWatch struct {
	io.ReadCloser
	n *atomic.Int32
}

func (w *retryWatch) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	if bytes.Contains(p[:n], []byte("\nretry: ")) {
		w.n.Add(1)
	}
	return n, err
}

package mcpserver

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/serve/eventstore"
)

// countingTransport counts the resuming GETs and the retry hints a client
// receives.
type countingTransport struct {
	resumes, retries atomic.Int32
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
		c.resumes.Add(1)
	}
	res, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.Method == http.MethodPost {
		res.Body = &retryCounter{ReadCloser: res.Body, n: &c.retries}
	}
	return res, err
}

type retryCounter struct {
	io.ReadCloser
	n *atomic.Int32
}

func (w *retryCounter) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	if bytes.Contains(p[:n], []byte("\nretry: ")) {
		w.n.Add(1)
	}
	return n, err
}

// A call still running after PollAfter has its stream closed with a
// retry hint; the go-sdk client resumes it with Last-Event-ID and gets the
// answer, several calls at once. Under -race this is where the orphans'
// hand-over between a POST, the grace timer and the resuming GET is
// raced. It catches a poll on a stream the client cannot resume, an
// orphan cancelled although adopted, and an answer lost in the hand-over.
func TestPolledCallsResume(t *testing.T) {
	s, err := New(Options{Version: "test", Platforms: []Platform{fixtures(t, nil, "")}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	store := eventstore.New(1 << 20)
	srv := httptest.NewServer(s.Handler(HTTPOptions{EventStore: store, PollAfter: 50 * time.Millisecond, PollRetry: 10 * time.Millisecond}))
	t.Cleanup(srv.Close)
	ct := &countingTransport{}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/unified/v1", HTTPClient: &http.Client{Transport: ct}}, legacyVersion)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	const calls = 4
	errs := make(chan error, calls)
	for range calls {
		go func() {
			r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "conformance_test_reconnection"})
			if err == nil && r.IsError {
				err = io.ErrUnexpectedEOF
			}
			errs <- err
		}()
	}
	for range calls {
		if err := <-errs; err != nil {
			t.Fatalf("a polled call: %v", err)
		}
	}
	if ct.retries.Load() < calls || ct.resumes.Load() < calls {
		t.Fatalf("%d retry hints and %d resumptions for %d calls: want each call's stream closed and resumed", ct.retries.Load(), ct.resumes.Load(), calls)
	}
	rs := s.lastResumer.Load()
	deadline := time.Now().Add(5 * time.Second)
	for rs.orphanCount() != 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := rs.orphanCount(); n != 0 {
		t.Fatalf("%d orphans left after every call was answered", n)
	}
}

// endingCtx is a context whose end shows in Err before its Done channel
// closes: a POST's life in the instant server.resume_grace passes, before
// the callbacks that follow it have run.
type endingCtx struct {
	context.Context
	ended atomic.Bool
}

func (c *endingCtx) Err() error {
	if c.ended.Load() {
		return context.Canceled
	}
	return c.Context.Err()
}

// TestTiedCallSeesItsEndAtOnce: a call tied to its POST's life reports the
// life's end at once, so a check made just before the platform is asked
// sees a call cancelled this instant (issue 27).
func TestTiedCallSeesItsEndAtOnce(t *testing.T) {
	life := &endingCtx{Context: context.Background()}
	var before, after error
	tied(context.Background(), life, "tools/call", nil, func(ctx context.Context, _ string, _ mcp.Request) (mcp.Result, error) {
		before = ctx.Err()
		life.ended.Store(true)
		after = ctx.Err()
		return nil, nil
	})
	if before != nil || after == nil {
		t.Fatalf("Err %v before the life ended, %v after; want nil, then an error", before, after)
	}
}

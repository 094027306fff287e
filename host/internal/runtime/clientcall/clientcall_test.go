package clientcall

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

func TestDeadlineStopsWhilePaused(t *testing.T) {
	ctx, cancel := WithDeadline(context.Background(), 150*time.Millisecond)
	defer cancel()
	if _, ok := ctx.Deadline(); !ok {
		t.Fatal("no deadline")
	}
	resume := Pause(ctx)
	if _, ok := ctx.Deadline(); ok {
		t.Error("a paused call reports a deadline")
	}
	time.Sleep(300 * time.Millisecond) // twice the limit, paused
	if ctx.Err() != nil {
		t.Fatalf("the call ended while paused: %v", ctx.Err())
	}
	resume()
	resume() // a second resume is harmless
	dl, ok := ctx.Deadline()
	if !ok || time.Until(dl) > 150*time.Millisecond || time.Until(dl) < 50*time.Millisecond {
		t.Errorf("resumed deadline in %v, want the ~150ms left", time.Until(dl))
	}
	child, cc := context.WithCancel(ctx)
	defer cc()
	select {
	case <-ctx.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("the call never ended after it resumed")
	}
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Errorf("Err = %v, want DeadlineExceeded", ctx.Err())
	}
	<-child.Done()
	if !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Errorf("a child's Err = %v, want DeadlineExceeded", child.Err())
	}
}

func TestDeadlineFollowsParent(t *testing.T) {
	parent, pcancel := context.WithCancel(context.Background())
	ctx, cancel := WithDeadline(parent, time.Hour)
	defer cancel()
	resume := Pause(ctx)
	defer resume()
	pcancel()
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("Err = %v, want Canceled", ctx.Err())
	}
	ctx2, cancel2 := WithDeadline(context.Background(), time.Hour)
	cancel2()
	if !errors.Is(ctx2.Err(), context.Canceled) {
		t.Errorf("cancelled: %v", ctx2.Err())
	}
	if r := Pause(context.Background()); r == nil {
		t.Error("Pause without a call deadline returned nil")
	}
}

// client answers as a client with every capability, slowly when asked.
type client struct {
	delay  time.Duration
	action string
}

func (c client) Elicit(ctx context.Context, _ connector.ElicitRequest) (connector.ElicitResult, error) {
	select {
	case <-time.After(c.delay):
	case <-ctx.Done():
		return connector.ElicitResult{}, ctx.Err()
	}
	return connector.ElicitResult{Action: c.action, Content: []byte(`{"x":1}`)}, nil
}

func (c client) CreateMessage(context.Context, connector.SampleRequest) (connector.SampleResult, error) {
	return connector.SampleResult{}, connector.Unsupported(connector.FeatureSampling)
}

func (c client) ListRoots(context.Context) (connector.RootsResult, error) {
	return connector.RootsResult{}, errors.New("connection reset")
}

func TestGate(t *testing.T) {
	ask := connector.ElicitRequest{Message: "Which?"}
	var asked int
	withClient := func(c connector.Client) func(context.Context) connector.Client {
		return func(context.Context) connector.Client { asked++; return c }
	}
	g := New(Options{ID: "demo", Grant: []string{"elicitation", "roots"}, Client: withClient(client{action: "accept"})})
	res, err := g.Elicit(context.Background(), nil, ask)
	if err != nil || !res.Accepted() || string(res.Content) != `{"x":1}` {
		t.Fatalf("granted: %+v %v", res, err)
	}
	// Not granted: the error names the key; the call is still marked as
	// one that asked (asked counts the lookups).
	before := asked
	_, err = g.CreateMessage(context.Background(), nil, connector.SampleRequest{MaxTokens: 5,
		Messages: []connector.SamplingMessage{{Role: "user", Content: connector.Content{Type: "text", Text: "hi"}}}})
	if !errors.Is(err, connector.ErrNotGranted) || !strings.Contains(err.Error(), `client feature "sampling" is not granted to connector "demo": add it to connectors.demo.grant`) {
		t.Errorf("not granted: %v", err)
	}
	if asked != before+1 {
		t.Error("a refused request did not mark the call")
	}
	// The client's own failure is a ClientFailed error.
	if _, err := g.ListRoots(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Errorf("roots: %v", err)
	}
	// No client.
	none := New(Options{ID: "demo", Grant: []string{"elicitation"}, Client: withClient(nil)})
	if _, err := none.Elicit(context.Background(), nil, ask); !errors.Is(err, connector.ErrNoClient) || !strings.Contains(err.Error(), "no client to ask") {
		t.Errorf("no client: %v", err)
	}
	// A bad action from the client is refused.
	odd := New(Options{ID: "demo", Grant: []string{"elicitation"}, Client: withClient(client{action: "maybe"})})
	if _, err := odd.Elicit(context.Background(), nil, ask); err == nil {
		t.Error("action maybe was taken")
	}
	// The wait is bounded, and the call's own deadline does not run
	// meanwhile.
	slow := New(Options{ID: "demo", Grant: []string{"elicitation"}, Client: withClient(client{delay: time.Hour, action: "accept"}), MaxWait: 50 * time.Millisecond})
	ctx, cancel := WithDeadline(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = slow.Elicit(ctx, nil, ask)
	if err == nil || !strings.Contains(err.Error(), "no answer from the client within 50ms") {
		t.Errorf("slow client: %v", err)
	}
	patient := New(Options{ID: "demo", Grant: []string{"elicitation"}, Client: withClient(client{delay: 100 * time.Millisecond, action: "decline"})})
	ctx2, cancel2 := WithDeadline(context.Background(), 30*time.Millisecond)
	defer cancel2()
	res, err = patient.Elicit(ctx2, nil, ask)
	if err != nil || res.Action != "decline" || ctx2.Err() != nil {
		t.Errorf("a 100ms answer in a 30ms call: %+v %v (call: %v)", res, err, ctx2.Err())
	}
	// Malformed requests never reach the client.
	n := asked
	if _, err := g.Elicit(context.Background(), nil, connector.ElicitRequest{}); err == nil || asked != n {
		t.Errorf("an empty elicitation: %v (asked %d→%d)", err, n, asked)
	}
}

// hostClient is a connector.Host that is also the client.
type hostClient struct{ client }

func (hostClient) Fetch(context.Context, connector.FetchRequest) (connector.FetchResponse, error) {
	return connector.FetchResponse{}, nil
}
func (hostClient) Log(context.Context, int, string) {}

func TestGateHost(t *testing.T) {
	g := New(Options{ID: "demo", Grant: []string{"elicitation"}})
	h := g.Host(hostClient{client{action: "cancel"}})
	c, ok := h.(connector.Client)
	if !ok {
		t.Fatal("the gated host is no client")
	}
	res, err := c.Elicit(context.Background(), connector.ElicitRequest{Message: "m"})
	if err != nil || res.Action != "cancel" {
		t.Errorf("%+v %v", res, err)
	}
	if _, ok := h.(connector.TextStore); !ok {
		t.Error("the gated host lost the text store")
	}
}

// A parent already done and a limit already spent end the call at once,
// whichever comes first.
func TestDeadlineAtOnce(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for range 100 {
		ctx, c := WithDeadline(done, 0)
		<-ctx.Done()
		if ctx.Err() == nil {
			t.Fatal("no error")
		}
		c()
	}
}

// endingCtx is a context whose end shows in Err before its Done channel
// closes (a parent whose own callbacks have not run yet).
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

// TestEndSeenAtOnce: a call's context reports its parent's end as soon as
// the parent does, before the callback that follows the parent has run:
// the check before a platform is asked sees a client gone this instant
// (issue 27).
func TestEndSeenAtOnce(t *testing.T) {
	parent := &endingCtx{Context: context.Background()}
	ctx, cancel := WithDeadline(parent, time.Hour)
	defer cancel()
	if err := ctx.Err(); err != nil {
		t.Fatalf("Err %v before the parent ended", err)
	}
	parent.ended.Store(true)
	if err := ctx.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Err %v after the parent ended, want context.Canceled", err)
	}
	select {
	case <-ctx.Done():
	default:
		t.Fatal("Err reports the end but Done is still open")
	}
}

// TestPassedDeadlineCountsBeforeItsTimer: once the deadline has passed,
// Err and Done say so whether or not the timer's callback has run (on a
// busy machine it may run long after; a guest that answered in between
// must not pass for one that kept its bound). The timer is stopped here
// so that only Err's own reading of the time can end the call.
func TestPassedDeadlineCountsBeforeItsTimer(t *testing.T) {
	ctx, cancel := WithDeadline(context.Background(), time.Millisecond)
	defer cancel()
	c := ctx.(*callCtx)
	c.mu.Lock()
	c.timer.Stop()
	at := c.at
	c.mu.Unlock()
	for time.Now().Before(at) {
		runtime.Gosched() // let the deadline pass; nothing else can end the call
	}
	if err := ctx.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Err after the deadline with its timer stopped: %v, want context.DeadlineExceeded", err)
	}
	select {
	case <-ctx.Done():
	default:
		t.Fatal("Done is still open after Err reported the deadline")
	}
	// Paused, a passed deadline does not count: the call waits for its
	// client, and its clock stands still.
	ctx2, cancel2 := WithDeadline(context.Background(), time.Hour)
	defer cancel2()
	resume := Pause(ctx2)
	c2 := ctx2.(*callCtx)
	c2.mu.Lock()
	c2.at = time.Now().Add(-time.Minute)
	c2.mu.Unlock()
	if err := ctx2.Err(); err != nil {
		t.Fatalf("a paused call ended by its deadline: %v", err)
	}
	resume()
}

package nativert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/besluitbron/besluitbron/sdk/connector"
)

func TestBackoff(t *testing.T) {
	for _, c := range []struct {
		n    int
		want time.Duration
	}{{-1, 0}, {0, 0}, {1, 100 * time.Millisecond}, {2, 200 * time.Millisecond}, {3, 400 * time.Millisecond},
		{9, 25600 * time.Millisecond}, {10, 30 * time.Second}, {11, 30 * time.Second}, {1000, 30 * time.Second}} {
		if got := backoff(c.n); got != c.want {
			t.Errorf("backoff(%d) = %v, want %v", c.n, got, c.want)
		}
	}
}

// fakeProc is an in-memory process: a call succeeds with its pid, or
// blocks until the process dies when the tool is "block".
type fakeProc struct {
	n       int
	dead    chan struct{}
	once    sync.Once
	entered chan struct{}
	kills   atomic.Int32
}

func (p *fakeProc) Describe(context.Context) (connector.Manifest, error) {
	return connector.Manifest{ID: "fake"}, nil
}

func (p *fakeProc) Call(ctx context.Context, req connector.CallRequest, _ connector.Host) (connector.CallResult, error) {
	if p.exited() {
		return connector.CallResult{}, errors.New("rpc error: code = Unavailable desc = connection refused")
	}
	switch req.Tool {
	case "block":
		p.entered <- struct{}{}
		select {
		case <-p.dead:
			return connector.CallResult{}, errors.New("rpc error: code = Unavailable desc = error reading from server: EOF")
		case <-ctx.Done():
			return connector.CallResult{}, ctx.Err()
		}
	case "fail":
		return connector.CallResult{}, errors.New(`sdk: tool "fail" panicked`)
	}
	return connector.CallResult{Text: fmt.Sprint(p.n)}, nil
}

func (p *fakeProc) exited() bool {
	select {
	case <-p.dead:
		return true
	default:
		return false
	}
}

func (p *fakeProc) ping() error {
	if p.exited() {
		return errors.New("exited")
	}
	return nil
}

func (p *fakeProc) die()     { p.once.Do(func() { close(p.dead) }) }
func (p *fakeProc) kill()    { p.kills.Add(1); p.die() }
func (p *fakeProc) pid() int { return p.n }

// fakeStarter counts starts; failNext makes the next starts fail.
type fakeStarter struct {
	mu       sync.Mutex
	procs    []*fakeProc
	failNext int
	times    []time.Time
	gate     chan struct{} // when set, each start waits for a token
}

func (s *fakeStarter) start(ctx context.Context) (process, error) {
	if s.gate != nil {
		<-s.gate
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.times = append(s.times, time.Now())
	if s.failNext > 0 {
		s.failNext--
		return nil, errors.New("handshake failed")
	}
	p := &fakeProc{n: len(s.procs) + 1, dead: make(chan struct{}), entered: make(chan struct{}, 16)}
	s.procs = append(s.procs, p)
	return p, nil
}

func (s *fakeStarter) proc(i int) *fakeProc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.procs[i]
}

func (s *fakeStarter) starts() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.times...)
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newFake(s *fakeStarter) *Connector {
	return newConnector(Options{ID: "fake", CallTimeout: time.Minute, Logger: quiet()}, s.start)
}

func callTool(ctx context.Context, c *Connector, tool string) (string, error) {
	res, err := c.Call(ctx, connector.CallRequest{Tool: tool, Arguments: json.RawMessage(`{}`)}, nil)
	return res.Text, err
}

// TestRestartAfterCrashMidCall: a process that dies during a call fails
// that call with an error naming the connector; the next call waits the
// first backoff and runs on a new process.
func TestRestartAfterCrashMidCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fakeStarter{}
		c := newFake(s)
		defer c.Close(context.Background())
		if got, err := callTool(t.Context(), c, "ok"); err != nil || got != "1" {
			t.Fatalf("first call: %q, %v", got, err)
		}
		errc := make(chan error)
		go func() { _, err := callTool(t.Context(), c, "block"); errc <- err }()
		p1 := s.proc(0)
		<-p1.entered
		p1.die()
		err := <-errc
		if err == nil || !strings.Contains(err.Error(), `connector "fake": its process died during the call`) {
			t.Fatalf("call on a dying process: %v", err)
		}
		crashed := time.Now()
		if got, err := callTool(t.Context(), c, "ok"); err != nil || got != "2" {
			t.Fatalf("call after the crash: %q, %v; want process 2", got, err)
		}
		st := s.starts()
		if len(st) != 2 || st[1].Sub(crashed) != minBackoff {
			t.Errorf("restart %v after the crash, want %v", st[len(st)-1].Sub(crashed), minBackoff)
		}
		synctest.Wait()
		if p1.kills.Load() != 1 {
			t.Errorf("lost process killed %d times, want 1", p1.kills.Load())
		}
	})
}

// TestBackoffGrowsAndResets: each consecutive crash doubles the wait
// before the next start; a served call resets it.
func TestBackoffGrowsAndResets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fakeStarter{}
		c := newFake(s)
		defer c.Close(context.Background())
		crash := func(i int) time.Time {
			p := s.proc(i)
			p.die()
			return time.Now()
		}
		callTool(t.Context(), c, "ok") // process 1
		// Crash, restart, serve a call: every crash is the first in a row.
		var waits []time.Duration
		for i := range 4 {
			at := crash(i)
			// The crash is noticed at the next call, which then waits.
			if _, err := callTool(t.Context(), c, "ok"); err != nil {
				t.Fatal(err)
			}
			st := s.starts()
			waits = append(waits, st[len(st)-1].Sub(at))
		}
		want := []time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond}
		if fmt.Sprint(waits) != fmt.Sprint(want) {
			t.Errorf("waits %v, want %v: a served call resets the count", waits, want)
		}
		// Then a crash followed by failing starts, no call served between.
		s.mu.Lock()
		s.failNext = 3
		s.mu.Unlock()
		at := crash(4)
		var errs []error
		for range 4 {
			_, err := callTool(t.Context(), c, "ok")
			errs = append(errs, err)
		}
		st := s.starts()
		got := []time.Duration{}
		prev := at
		for _, ts := range st[len(st)-4:] {
			got = append(got, ts.Sub(prev))
			prev = ts
		}
		want = []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("waits between consecutive failures %v, want %v", got, want)
		}
		for i, err := range errs[:3] {
			if err == nil || !strings.Contains(err.Error(), "handshake failed") {
				t.Errorf("call %d during failed starts: %v", i, err)
			}
		}
		if errs[3] != nil {
			t.Errorf("call after the starts recover: %v", errs[3])
		}
	})
}

// TestRestartFailsFastBeyondDeadline: when the backoff ends after the
// call's deadline, the call fails at once with a *RestartError rather
// than waiting to time out.
func TestRestartFailsFastBeyondDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fakeStarter{failNext: 6}
		c := newFake(s)
		defer c.Close(context.Background())
		for range 6 {
			callTool(t.Context(), c, "ok")
		}
		// Six failures: the next start is 3.2s after the sixth.
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start := time.Now()
		_, err := callTool(ctx, c, "ok")
		var re *RestartError
		if !errors.As(err, &re) || re.Crashes != 6 || re.After != 3200*time.Millisecond || !strings.Contains(err.Error(), "handshake failed") {
			t.Fatalf("err = %v, want a RestartError after 6 crashes, 3.2s", err)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("waited %v before failing", waited)
		}
	})
}

// TestOneStartForManyCallers: calls that arrive while no process runs
// share one start.
func TestOneStartForManyCallers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fakeStarter{gate: make(chan struct{})}
		c := newConnector(Options{ID: "fake", PoolSize: 16, Logger: quiet()}, s.start)
		defer c.Close(context.Background())
		var wg sync.WaitGroup
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if got, err := callTool(t.Context(), c, "ok"); err != nil || got != "1" {
					t.Errorf("call: %q, %v", got, err)
				}
			}()
		}
		synctest.Wait()
		s.gate <- struct{}{}
		wg.Wait()
		if n := len(s.starts()); n != 1 {
			t.Errorf("%d starts, want 1", n)
		}
	})
}

// TestInFlightCallsOnLostProcess: every call in flight on a process that
// dies fails; the process counts as one crash and is killed once.
func TestInFlightCallsOnLostProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fakeStarter{}
		c := newConnector(Options{ID: "fake", PoolSize: 8, Logger: quiet()}, s.start)
		defer c.Close(context.Background())
		callTool(t.Context(), c, "ok")
		errc := make(chan error, 8)
		for range 8 {
			go func() { _, err := callTool(t.Context(), c, "block"); errc <- err }()
		}
		p := s.proc(0)
		for range 8 {
			<-p.entered
		}
		p.die()
		for range 8 {
			if err := <-errc; err == nil {
				t.Error("a call on the dead process succeeded")
			}
		}
		synctest.Wait()
		c.mu.Lock()
		crashes := c.crashes
		c.mu.Unlock()
		if crashes != 1 || p.kills.Load() != 1 {
			t.Errorf("crashes %d, kills %d; want 1 and 1", crashes, p.kills.Load())
		}
	})
}

// TestConnectorErrorKeepsProcess: a call that fails inside a healthy
// process (a tool's panic) is an error, but the process stays.
func TestConnectorErrorKeepsProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fakeStarter{}
		c := newFake(s)
		defer c.Close(context.Background())
		_, err := callTool(t.Context(), c, "fail")
		if err == nil || !strings.Contains(err.Error(), `connector "fake": sdk: tool "fail" panicked`) {
			t.Fatalf("err = %v", err)
		}
		if got, _ := callTool(t.Context(), c, "ok"); got != "1" {
			t.Errorf("after a connector error the call ran on process %s, want 1", got)
		}
	})
}

// TestCloseDuringStart: a process whose start ends after Close is killed,
// and calls fail.
func TestCloseDuringStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fakeStarter{gate: make(chan struct{})}
		c := newFake(s)
		errc := make(chan error)
		go func() { _, err := callTool(t.Context(), c, "ok"); errc <- err }()
		synctest.Wait()
		c.Close(context.Background())
		s.gate <- struct{}{}
		if err := <-errc; err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("call during close: %v", err)
		}
		synctest.Wait()
		if p := s.proc(0); p.kills.Load() != 1 {
			t.Errorf("process started after Close killed %d times, want 1", p.kills.Load())
		}
		if _, err := callTool(t.Context(), c, "ok"); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("call after close: %v", err)
		}
	})
}

// TestIdleExitNoticed: a process that exited between calls is replaced
// before the next call is sent to it.
func TestIdleExitNoticed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fakeStarter{}
		c := newFake(s)
		defer c.Close(context.Background())
		callTool(t.Context(), c, "ok")
		s.proc(0).die()
		if got, err := callTool(t.Context(), c, "ok"); err != nil || got != "2" {
			t.Fatalf("call after an idle exit: %q, %v; want process 2", got, err)
		}
	})
}

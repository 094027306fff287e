package wasmrt_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmrt"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// gateHost holds every fetch until release is closed, so calls stay on
// their instances as they do while waiting at a platform's limit.
type gateHost struct {
	entered chan struct{}
	release chan struct{}
}

func (h gateHost) Fetch(ctx context.Context, _ connector.FetchRequest) (connector.FetchResponse, error) {
	h.entered <- struct{}{}
	select {
	case <-h.release:
	case <-ctx.Done():
		return connector.FetchResponse{}, ctx.Err()
	}
	return connector.FetchResponse{Status: 200, Body: []byte("ok")}, nil
}
func (gateHost) Log(context.Context, int, string) {}

// busyPool runs max calls at once on a pool of one warm instance, lets
// them end together, and returns the instances left idle.
func busyPool(t *testing.T, wanted func() bool) int {
	t.Helper()
	const max = 3
	c := loadHostile(t, wasmrt.Options{PoolSize: 1, MaxInstances: max, Wanted: wanted})
	h := gateHost{entered: make(chan struct{}, max), release: make(chan struct{})}
	var wg sync.WaitGroup
	for range max {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res, err := call(c, "fetch", `{"URL":"https://example.org/x"}`, h); err != nil || res.IsError {
				t.Errorf("%+v %v", res, err)
			}
		}()
	}
	for range max {
		<-h.entered
	}
	if st := c.PoolStats(); st.Instances != max {
		t.Fatalf("%d instances with %d calls running; want %d", st.Instances, max, max)
	}
	close(h.release)
	wg.Wait()
	return c.PoolStats().Idle
}

// TestInstancesBeyondTheWarmPoolWaitForWantingCalls: an instance beyond
// the warm pool is closed when its call ends, unless calls wait to get
// one (a flood at the admission): then it is kept for them, and the next
// call skips an instantiation.
func TestInstancesBeyondTheWarmPoolWaitForWantingCalls(t *testing.T) {
	if idle := busyPool(t, nil); idle != 1 {
		t.Errorf("no call waiting: %d idle instances after the calls; want the warm pool's 1", idle)
	}
	var waiting atomic.Bool
	waiting.Store(true)
	if idle := busyPool(t, waiting.Load); idle != 3 {
		t.Errorf("calls waiting: %d idle instances after the calls; want all 3 kept for them", idle)
	}
}

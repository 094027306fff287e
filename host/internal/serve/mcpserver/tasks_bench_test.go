package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host/internal/runtime/admission"
	"github.com/besluitbron/besluitbron/host/internal/serve/invoke"
	"github.com/besluitbron/besluitbron/host/internal/serve/tasks"
	"github.com/besluitbron/besluitbron/sdk"
	"github.com/besluitbron/besluitbron/sdk/connector"
)

// heldConnector answers a call only when release closes (or its call
// ends): the one instance of its platform stays busy, so that every
// other call waits for it.
type heldConnector struct {
	*sdk.Plugin
	release chan struct{}
}

func (c heldConnector) Call(ctx context.Context, req connector.CallRequest, h connector.Host) (connector.CallResult, error) {
	select {
	case <-c.release:
		return connector.CallResult{Text: "done"}, nil
	case <-ctx.Done():
		return connector.CallResult{}, ctx.Err()
	}
}

// rawSession is a client end of an in-memory MCP connection, speaking
// JSON-RPC messages as they are.
type rawSession struct {
	conn mcp.Connection
	id   int64
}

func openRaw(tb testing.TB, srv *mcp.Server, caps string) *rawSession {
	tb.Helper()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st, nil); err != nil {
		tb.Fatal(err)
	}
	conn, err := ct.Connect(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	r := &rawSession{conn: conn}
	r.send(tb, "initialize", fmt.Sprintf(`{"protocolVersion":"2025-11-25","capabilities":%s,"clientInfo":{"name":"bench","version":"1"}}`, caps))
	r.read(tb)
	if err := conn.Write(context.Background(), &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}); err != nil {
		tb.Fatal(err)
	}
	return r
}

func (r *rawSession) send(tb testing.TB, method, params string) {
	tb.Helper()
	r.id++
	id, _ := jsonrpc.MakeID(float64(r.id))
	if err := r.conn.Write(context.Background(), &jsonrpc.Request{ID: id, Method: method, Params: json.RawMessage(params)}); err != nil {
		tb.Fatal(err)
	}
}

func (r *rawSession) read(tb testing.TB) *jsonrpc.Response {
	tb.Helper()
	for {
		m, err := r.conn.Read(context.Background())
		if err != nil {
			tb.Fatal(err)
		}
		if res, ok := m.(*jsonrpc.Response); ok {
			return res
		}
	}
}

// heldServer is a server of one platform with one instance, held by
// heldConnector, and a task store on clock.
func heldServer(tb testing.TB, release chan struct{}, store *tasks.Store) *Server {
	tb.Helper()
	p := &sdk.Plugin{Manifest: connector.Manifest{ID: "demo", Version: "1", Title: "Demo", Services: []connector.Service{{Name: "api"}},
		Tools: []connector.Tool{{Name: "search", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`)}}}}
	s, err := New(Options{
		Platforms: []Platform{{Platform: &invoke.Platform{Manifest: p.Manifest, Connector: heldConnector{p, release}, Host: &notingHost{},
			Admission: admission.New(1, nil), Stamp: "v1"}}},
		Tasks:  store,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkWaitingTaskMemory is the memory one waiting task holds: n
// calls of clients that declared the extension wait (for the platform's
// one instance, held by a first call) as tasks, with no connection and
// no request of theirs open; the heap and goroutine stacks in use grow by
// B/task for each (target ≤ 8 KB).
func BenchmarkWaitingTaskMemory(b *testing.B) {
	const n = 2000
	for b.Loop() {
		b.StopTimer()
		release := make(chan struct{})
		now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
		store := tasks.New(tasks.Options{Now: func() time.Time { return now }, MaxTasks: 2 * n, MaxPerClient: 2 * n})
		s := heldServer(b, release, store)
		r := openRaw(b, s.Unified(), `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`)
		r.send(b, "tools/call", `{"name":"demo_search","arguments":{}}`) // holds the instance
		before, hb := inUse()
		b.StartTimer()
		for range n {
			r.send(b, "tools/call", `{"name":"demo_search","arguments":{}}`)
			res := r.read(b)
			if res.Error != nil || !strings.Contains(string(res.Result), `"resultType":"task"`) {
				b.Fatalf("a waiting call answered %s %v, want a task", res.Result, res.Error)
			}
		}
		b.StopTimer()
		after, ha := inUse()
		b.ReportMetric(float64(after-before)/n, "B/task")
		b.ReportMetric(float64(ha-hb)/n, "heapB/task")
		if k, _ := store.Len(); k != n {
			b.Fatalf("%d tasks kept, want %d", k, n)
		}
		close(release)
		// The next round measures from a quiet heap: every task's call
		// has returned.
		for running(s) > 0 {
			runtime.Gosched()
		}
		r.conn.Close()
		b.StartTimer()
	}
}

// inUse is the heap and goroutine stacks in use after a collection, and
// the heap alone.
func inUse() (all, heap int64) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse), int64(m.HeapInuse)
}

// running is the number of calls running as tasks.
func running(s *Server) int {
	n := 0
	s.taskRuns.Range(func(any, any) bool { n++; return true })
	return n
}

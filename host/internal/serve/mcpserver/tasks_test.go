package mcpserver

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/besluitbron/besluitbron/host/internal/serve/tasks"
)

// awaitID reads responses until the one to request id, keeping the
// others in got.
func (r *rawSession) awaitID(tb testing.TB, id int64, got map[int64]*jsonrpc.Response) *jsonrpc.Response {
	tb.Helper()
	for {
		if res, ok := got[id]; ok {
			delete(got, id)
			return res
		}
		res := r.read(tb)
		switch raw := res.ID.Raw().(type) {
		case float64:
			got[int64(raw)] = res
		case int64:
			got[raw] = res
		default:
			tb.Fatalf("a response with id %v", raw)
		}
	}
}

func decodeTask(tb testing.TB, res *jsonrpc.Response) taskResult {
	tb.Helper()
	if res.Error != nil {
		tb.Fatalf("JSON-RPC error: %v", res.Error)
	}
	var w taskResult
	if err := json.Unmarshal(res.Result, &w); err != nil {
		tb.Fatal(err)
	}
	return w
}

// TestInstanceWaitBecomesATask: with the platform's one instance held,
// a call of a session that declared the extension answers a task at once,
// whose status says it waits for an instance; tasks/cancel ends it (its
// call returns before the acknowledgement); another waiting task
// completes once the instance is free, with the call's result. A session
// that did not declare the extension is refused tasks/get with -32021.
func TestInstanceWaitBecomesATask(t *testing.T) {
	release := make(chan struct{})
	now := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	s := heldServer(t, release, tasks.New(tasks.Options{Now: func() time.Time { return now }}))
	r := openRaw(t, s.Unified(), `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`)
	got := map[int64]*jsonrpc.Response{}
	r.send(t, "tools/call", `{"name":"demo_search","arguments":{}}`) // holds the instance
	holder := r.id
	r.send(t, "tools/call", `{"name":"demo_search","arguments":{}}`)
	cancelled := decodeTask(t, r.awaitID(t, r.id, got))
	if cancelled.ResultType != "task" || cancelled.Status != tasks.Working || !strings.Contains(cancelled.StatusMessage, "waiting for an instance") {
		t.Fatalf("the waiting call answered %+v, want a working task waiting for an instance", cancelled)
	}
	r.send(t, "tools/call", `{"name":"demo_search","arguments":{}}`)
	kept := decodeTask(t, r.awaitID(t, r.id, got))

	r.send(t, "tasks/cancel", fmt.Sprintf(`{"taskId":%q}`, cancelled.TaskID))
	if res := r.awaitID(t, r.id, got); res.Error != nil {
		t.Fatalf("tasks/cancel: %v", res.Error)
	}
	if _, ok := s.taskRuns.Load(cancelled.TaskID); ok {
		t.Error("the cancelled task's call still runs after the acknowledgement")
	}
	r.send(t, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, cancelled.TaskID))
	if st := decodeTask(t, r.awaitID(t, r.id, got)).Status; st != tasks.Cancelled {
		t.Errorf("the cancelled task reads %q", st)
	}

	close(release)
	if res := r.awaitID(t, holder, got); res.Error != nil || !strings.Contains(string(res.Result), "done") {
		t.Fatalf("the holding call: %s %v", res.Result, res.Error)
	}
	for running(s) > 0 {
		runtime.Gosched()
	}
	r.send(t, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, kept.TaskID))
	done := decodeTask(t, r.awaitID(t, r.id, got))
	if done.ResultType != "complete" || done.Status != tasks.Completed || !strings.Contains(string(done.Result), `"text":"done"`) {
		t.Errorf("the kept task: %+v (result %s), want completed with the call's result", done, done.Result)
	}

	plain := openRaw(t, s.Unified(), `{}`)
	plain.send(t, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, kept.TaskID))
	res := plain.awaitID(t, plain.id, map[int64]*jsonrpc.Response{})
	if res.Error == nil || !strings.Contains(res.Error.Error(), "Missing required client capability") {
		t.Fatalf("tasks/get without the extension: %v, want -32021", res.Error)
	}
	var we *jsonrpc.Error
	if e, ok := res.Error.(*jsonrpc.Error); ok {
		we = e
	}
	if we == nil || we.Code != tasks.CodeMissingCapability {
		t.Errorf("code: %+v, want %d", res.Error, tasks.CodeMissingCapability)
	}
}

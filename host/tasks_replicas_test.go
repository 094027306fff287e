package host_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// startTaskReplicas starts two replicas sharing one Redis, one fake
// clock (the cluster then shares the limit in that clock's time) and one
// logging platform, at OpenBesluitvorming's limit of 2 units a minute,
// with server.auth = "keys" and the named clients of testKeys, so that a
// client is known by the same name on both. It returns each replica's
// unified MCP address.
func startTaskReplicas(t *testing.T) (urls [2]string, clk *schedtest.Clock, plat *platformLog) {
	t.Helper()
	redisURL := redistest.Start(t).URL()
	clk = schedtest.NewClock(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
	plat = &platformLog{clock: clk}
	up := plat.serve(t)
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	for i := range urls {
		cfg, err := host.LoadConfig(writeConfig(t, fmt.Sprintf(`
[server]
auth = "keys"
[mcp_rate_limit]
enabled = false
[runtime]
compilation_cache_dir = %q
[status]
enabled = false
[cluster]
redis_url = %q
replica_id = "replica-%d"
[connectors.obv]
module = %q
base_url = %q
private_networks = ["127.0.0.0/8"]
pool_size = 2
max_instances = 8
[connectors.obv.limits.api]
units = 2
per = "1m"
%s`, proofCompileDir(t), redisURL, i+1, wasm, up.URL, keyTables())), []string{})
		if err != nil {
			t.Fatal(err)
		}
		h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: "9.9.9-test", Clock: clk,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h.Handler())
		t.Cleanup(func() {
			srv.Close()
			h.Close(context.Background())
		})
		urls[i] = srv.URL + "/mcp/unified/v1"
	}
	return urls, clk, plat
}

// TestTaskCreatedOnOneReplicaIsReadOnAnother: two replicas share Redis
// (and, through it, OpenBesluitvorming's limit). The named client alice
// has a session on each. Her search that waits at the limit on replica A
// becomes a task; tasks/get through her session on replica B, which
// never held the task, reads it from its record in Redis: working, with
// its place in the fair queue and its expected start; once the clock has
// refilled the limit, completed with the search's result, the platform
// asked once. bob, another named client, reads alice's task as unknown
// on B (-32602), as on the replica holding it, and cannot cancel it.
// alice's tasks/cancel of a second task through B is forwarded to A,
// which holds the call (a PUBLISH on A's channel): acknowledged once the
// call has returned on A, the task reads cancelled on both, and its query
// never reaches the platform however far the clock moves. A cancel on B
// of the completed first task is acknowledged and leaves it completed.
// Without the write-through, B answers the first tasks/get with -32602;
// without the forwarding, B's cancel answers -32602.
func TestTaskCreatedOnOneReplicaIsReadOnAnother(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two hosts with the WebAssembly connector and a redis-server")
	}
	urls, clk, plat := startTaskReplicas(t)
	alice := "Bearer " + testKeys["alice"]
	onA := connectTasksAs(t, urls[0], true, alice)
	onB := connectTasksAs(t, urls[1], true, alice)
	bob := connectTasksAs(t, urls[1], true, "Bearer "+testKeys["bob"])

	w, _ := searchUntilTask(t, onA, "woningbouw")
	if w.Status != "working" || w.TaskID == "" {
		t.Fatalf("CreateTaskResult on A %+v: want a working task", w)
	}
	get := fmt.Sprintf(`{"taskId":%q}`, w.TaskID)
	got := onB.call("tasks/get", get).task(t)
	t.Logf("tasks/get on B while the task waits on A: %q, poll %d ms", got.StatusMessage, got.PollIntervalMs)
	if got.Status != "working" || got.TaskID != w.TaskID {
		t.Errorf("tasks/get on B: task %q status %q, want %q working", got.TaskID, got.Status, w.TaskID)
	}
	for _, want := range []string{"OpenBesluitvorming's limit", "place 1 in the fair queue", "expected to start in about"} {
		if !strings.Contains(got.StatusMessage, want) {
			t.Errorf("B's status message %q lacks %q", got.StatusMessage, want)
		}
	}
	if r := bob.call("tasks/get", get); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("bob's tasks/get of alice's task on B: %+v, want -32602", r.Error)
	}

	sent := plat.count()
	waitFor(t, 30*time.Second, "the task completed on A, as B reads it", func() bool {
		clk.Advance(time.Second)
		return onB.call("tasks/get", get).task(t).Status != "working"
	})
	got = onB.call("tasks/get", get).task(t)
	if got.Status != "completed" || !strings.Contains(string(got.Result), `"content"`) || plat.count() != sent+1 {
		t.Fatalf("on B after the wait: status %q result %.200s, platform asked %d more times; want completed with the search's content, asked once",
			got.Status, got.Result, plat.count()-sent)
	}

	second, direct := searchUntilTask(t, onA, "klimaat")
	secondQuery := fmt.Sprintf("klimaat %d", len(direct))
	cancel := fmt.Sprintf(`{"taskId":%q}`, second.TaskID)
	if r := bob.call("tasks/cancel", cancel); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("bob's tasks/cancel of alice's task on B: %+v, want -32602", r.Error)
	}
	if r := onB.call("tasks/cancel", `{"taskId":"NOSUCHTASK"}`); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("tasks/cancel on B of an unknown task: %+v, want -32602", r.Error)
	}
	// alice's cancel on B is forwarded to A, which holds the call, and
	// acknowledged once the call has returned there.
	if r := onB.call("tasks/cancel", cancel); r.Error != nil {
		t.Fatalf("tasks/cancel on B of the task whose call runs on A: %d %s", r.Error.Code, r.Error.Message)
	}
	for name, c := range map[string]*taskClient{"A": onA, "B": onB} {
		if st := c.call("tasks/get", cancel).task(t).Status; st != "cancelled" {
			t.Errorf("after the cancel on B the task reads %q on %s, want cancelled", st, name)
		}
	}
	// It left A's queue: however far the clock moves, its query never
	// reaches the platform, and a search asked after it is answered.
	clk.Advance(5 * time.Minute)
	w3, _ := searchUntilTask(t, onA, "na de annulering")
	if w3.ResultType == "task" {
		get3 := fmt.Sprintf(`{"taskId":%q}`, w3.TaskID)
		waitFor(t, 30*time.Second, "the search after the cancel completed", func() bool {
			clk.Advance(time.Second)
			return onA.call("tasks/get", get3).task(t).Status != "working"
		})
	}
	if _, queries := plat.after(time.Time{}); slices.Contains(queries, secondQuery) {
		t.Errorf("the platform received %q, whose task was cancelled on B", secondQuery)
	}
	// Too late is no error: a cancel on B of the completed task is
	// acknowledged and leaves it completed.
	if r := onB.call("tasks/cancel", get); r.Error != nil {
		t.Errorf("tasks/cancel on B of a completed task: %d %s", r.Error.Code, r.Error.Message)
	}
	if st := onB.call("tasks/get", get).task(t).Status; st != "completed" {
		t.Errorf("the completed task reads %q after a late cancel, want completed", st)
	}
}

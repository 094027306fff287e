package host_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// taskClient speaks JSON-RPC over plain HTTP to one MCP session, so that
// a test sees the tasks extension's results as they are written.
type taskClient struct {
	t       testing.TB
	url     string
	session string
	auth    string       // the Authorization header of a named client, or empty
	hc      *http.Client // what the requests go through
	id      int
}

// rpcReply is one JSON-RPC response.
type rpcReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// taskWire is a Task as the extension writes it.
type taskWire struct {
	ResultType     string          `json:"resultType"`
	TaskID         string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          *int64          `json:"ttlMs"`
	PollIntervalMs int64           `json:"pollIntervalMs"`
	Result         json.RawMessage `json:"result"`
	Content        json.RawMessage `json:"content"`
}

// connectTasks opens a 2025-11-25 session that declares the extension in
// its initialize capabilities when declare is set.
func connectTasks(t *testing.T, url string, declare bool) *taskClient {
	t.Helper()
	return connectTasksAs(t, url, declare, "")
}

// connectTasksAs is connectTasks with an Authorization header on every
// request (a named client's "Bearer <key>"), or none when auth is empty.
func connectTasksAs(t testing.TB, url string, declare bool, auth string) *taskClient {
	t.Helper()
	return connectTasksWith(t, http.DefaultClient, url, declare, auth)
}

// connectTasksWith is connectTasksAs with every request through hc.
func connectTasksWith(t testing.TB, hc *http.Client, url string, declare bool, auth string) *taskClient {
	t.Helper()
	caps := `{}`
	if declare {
		caps = `{"extensions":{"io.modelcontextprotocol/tasks":{}}}`
	}
	c := &taskClient{t: t, url: url, auth: auth, hc: hc}
	res, body := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":%s,"clientInfo":{"name":"tasks-test","version":"1"}}}`, caps))
	c.session = res.Header.Get("Mcp-Session-Id")
	if c.session == "" {
		t.Fatalf("initialize: no session: %s", body)
	}
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *taskClient) post(body string) (*http.Response, string) {
	c.t.Helper()
	return rawPost(c.t, c.hc, c.url, body, "Mcp-Session-Id", c.session, "Mcp-Protocol-Version", "2025-11-25", "Authorization", c.auth)
}

// call sends one request and returns its response, from a JSON body or
// an event stream.
func (c *taskClient) call(method, params string) rpcReply {
	c.t.Helper()
	c.id++
	_, body := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, c.id, method, params))
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data:")
		if !ok && strings.HasPrefix(line, "{") {
			data, ok = line, true
		}
		if !ok || !strings.Contains(data, `"id":`+fmt.Sprint(c.id)) {
			continue
		}
		var r rpcReply
		if err := json.Unmarshal([]byte(data), &r); err != nil {
			c.t.Fatalf("%s: %v in %s", method, err, data)
		}
		return r
	}
	c.t.Fatalf("%s: no response with id %d in %q", method, c.id, body)
	return rpcReply{}
}

// task reads a reply as a Task (or a tool result, whose content is set).
func (r rpcReply) task(t testing.TB) taskWire {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("JSON-RPC error %d: %s", r.Error.Code, r.Error.Message)
	}
	var w taskWire
	if err := json.Unmarshal(r.Result, &w); err != nil {
		t.Fatal(err)
	}
	return w
}

// startTasksHost serves obv against a platform that logs what it
// receives, at a limit of 2 units a minute, on a fake clock.
func startTasksHost(t *testing.T) (base string, clk *schedtest.Clock, plat *platformLog) {
	t.Helper()
	clk = schedtest.NewClock(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
	plat = &platformLog{clock: clk}
	up := plat.serve(t)
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	cfg, err := host.LoadConfig(writeConfig(t, fmt.Sprintf(`
[mcp_rate_limit]
enabled = false
[runtime]
compilation_cache_dir = %q
[status]
enabled = false
[connectors.obv]
module = %q
base_url = %q
private_networks = ["127.0.0.0/8"]
pool_size = 2
max_instances = 8
[connectors.obv.limits.api]
units = 2
per = "1m"
`, proofCompileDir(t), wasm, up.URL)), []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: "9.9.9-test", Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(func() { h.Close(context.Background()) })
	t.Cleanup(srv.Close)
	return srv.URL, clk, plat
}

// searchUntilTask calls obv_search with fresh queries until a call
// answers with a task (the limit's bucket is spent), and returns it with
// the queries answered at once.
func searchUntilTask(t *testing.T, c *taskClient, prefix string) (taskWire, []string) {
	t.Helper()
	var direct []string
	for i := range 4 {
		q := fmt.Sprintf("%s %d", prefix, i)
		w := c.call("tools/call", fmt.Sprintf(`{"name":"obv_search","arguments":{"query":%q}}`, q)).task(t)
		if w.ResultType == "task" {
			return w, direct
		}
		if w.Content == nil {
			t.Fatalf("call %q answered neither a result nor a task", q)
		}
		direct = append(direct, q)
	}
	t.Fatal("four searches at a limit of 2 units a minute and none became a task")
	return taskWire{}, nil
}

// TestTaskWaitsAtTheLimitWithoutAConnection: a session that declared the
// tasks extension calls obv_search at OpenBesluitvorming's limit (2 units
// a minute on the host's fake clock). Calls with room answer at once; the
// first that must wait answers with a task (resultType "task", status
// working, ttlMs and pollIntervalMs set) while its POST has ended; its
// tasks/get names its place in the fair queue and its expected start;
// once the clock moves on, tasks/get gives the completed result. A
// session that did not declare the extension is refused tasks/get with
// -32021, and an unknown task id is -32602.
func TestTaskWaitsAtTheLimitWithoutAConnection(t *testing.T) {
	if proofRace() {
		t.Skip("an end-to-end test over real sockets: its concurrency lives in mcpserver and tasks, raced there")
	}
	base, clk, plat := startTasksHost(t)
	url := base + "/mcp/unified/v1"
	c := connectTasks(t, url, true)
	w, direct := searchUntilTask(t, c, "woningbouw")
	if len(direct) == 0 {
		t.Errorf("no call answered at once: calls with room must not become tasks")
	}
	if w.Status != "working" || w.TaskID == "" || w.TTLMs == nil || *w.TTLMs <= 0 || w.PollIntervalMs <= 0 {
		t.Fatalf("CreateTaskResult %+v: want a working task with ttlMs and pollIntervalMs", w)
	}
	if _, err := time.Parse(time.RFC3339Nano, w.CreatedAt); err != nil {
		t.Errorf("createdAt %q: %v", w.CreatedAt, err)
	}
	if open := sumMetric(t, base, "besluitbron_sched_queued_calls", `platform="obv"`); open != 1 {
		t.Errorf("%v calls queued at the limit, want the task's 1", open)
	}
	got := c.call("tasks/get", fmt.Sprintf(`{"taskId":%q}`, w.TaskID)).task(t)
	t.Logf("tasks/get while waiting: %q, poll %d ms", got.StatusMessage, got.PollIntervalMs)
	if got.ResultType != "complete" || got.Status != "working" {
		t.Errorf("tasks/get: resultType %q status %q, want complete, working", got.ResultType, got.Status)
	}
	for _, want := range []string{"OpenBesluitvorming's limit", "place 1 in the fair queue", "expected to start in about", "UTC"} {
		if !strings.Contains(got.StatusMessage, want) {
			t.Errorf("status message %q lacks %q", got.StatusMessage, want)
		}
	}
	sent := plat.count()
	waitFor(t, 30*time.Second, "the task completed as the limit refills", func() bool {
		clk.Advance(time.Second)
		return c.call("tasks/get", fmt.Sprintf(`{"taskId":%q}`, w.TaskID)).task(t).Status != "working"
	})
	got = c.call("tasks/get", fmt.Sprintf(`{"taskId":%q}`, w.TaskID)).task(t)
	if got.Status != "completed" || !strings.Contains(string(got.Result), `"content"`) || plat.count() != sent+1 {
		t.Fatalf("after the wait: status %q result %.200s, platform asked %d more times; want completed with the search's content, asked once",
			got.Status, got.Result, plat.count()-sent)
	}

	other := connectTasks(t, url, false)
	r := other.call("tasks/get", fmt.Sprintf(`{"taskId":%q}`, w.TaskID))
	if r.Error == nil || r.Error.Code != -32021 || !strings.Contains(string(r.Error.Data), "io.modelcontextprotocol/tasks") {
		t.Errorf("tasks/get from a client without the extension: %+v, want -32021 naming the extension", r.Error)
	}
	r = c.call("tasks/get", `{"taskId":"NOSUCHTASK"}`)
	if r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("tasks/get of an unknown task: %+v, want -32602", r.Error)
	}
}

// TestCancelledTaskLeavesTheQueueAndNeverReachesThePlatform: two calls
// wait as tasks at the limit; the second is cancelled with tasks/cancel.
// When the acknowledgement arrives it has left the fair queue; however
// far the clock then moves, the platform never receives its query, while
// the first task completes, and the cancelled one reads cancelled.
func TestCancelledTaskLeavesTheQueueAndNeverReachesThePlatform(t *testing.T) {
	if proofRace() {
		t.Skip("an end-to-end test over real sockets: its concurrency lives in mcpserver and tasks, raced there")
	}
	base, clk, plat := startTasksHost(t)
	c := connectTasks(t, base+"/mcp/unified/v1", true)
	first, _ := searchUntilTask(t, c, "eerste")
	second := c.call("tools/call", `{"name":"obv_search","arguments":{"query":"geannuleerd"}}`).task(t)
	if second.ResultType != "task" {
		t.Fatalf("the second waiting call answered %+v, want a task", second)
	}
	queued := func() float64 { return sumMetric(t, base, "besluitbron_sched_queued_calls", `platform="obv"`) }
	if q := queued(); q != 2 {
		t.Fatalf("%v calls queued, want the two tasks", q)
	}
	got := c.call("tasks/get", fmt.Sprintf(`{"taskId":%q}`, second.TaskID)).task(t)
	if !strings.Contains(got.StatusMessage, "place 2 in the fair queue") {
		t.Errorf("the second task's status %q: want place 2", got.StatusMessage)
	}
	if r := c.call("tasks/cancel", fmt.Sprintf(`{"taskId":%q}`, second.TaskID)); r.Error != nil {
		t.Fatalf("tasks/cancel: %d %s", r.Error.Code, r.Error.Message)
	}
	if q := queued(); q != 1 {
		t.Errorf("after tasks/cancel was acknowledged %v calls are queued, want 1: a cancelled task leaves the queue at once", q)
	}
	if st := c.call("tasks/get", fmt.Sprintf(`{"taskId":%q}`, second.TaskID)).task(t).Status; st != "cancelled" {
		t.Errorf("the cancelled task reads %q", st)
	}
	waitFor(t, 30*time.Second, "the first task completed", func() bool {
		clk.Advance(time.Second)
		return c.call("tasks/get", fmt.Sprintf(`{"taskId":%q}`, first.TaskID)).task(t).Status == "completed"
	})
	for range 10 {
		clk.Advance(time.Minute)
	}
	waitFor(t, 30*time.Second, "the queue empty", func() bool { return queued() == 0 })
	plat.mu.Lock()
	asked := slices.Clone(plat.query)
	plat.mu.Unlock()
	if slices.Contains(asked, "geannuleerd") {
		t.Errorf("the platform received the cancelled task's query: %q", asked)
	}
	if !slices.Contains(asked, "eerste 0") {
		t.Errorf("the platform's queries %q lack the first call's", asked)
	}
}

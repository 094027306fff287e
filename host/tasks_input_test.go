// It builds the ori connector and runs in the plain pass only, as the
// ambiguity tests whose helpers it uses.

//go:build !race

package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// modernTaskClient speaks MCP 2026-07-28 over plain HTTP: every request
// carries its version and the client's capabilities (elicitation and the
// tasks extension) in _meta, and the Mcp-Method and Mcp-Name headers.
type modernTaskClient struct {
	t   *testing.T
	url string
	id  int
}

const modernTaskCaps = `{"elicitation":{"form":{}},"extensions":{"io.modelcontextprotocol/tasks":{}}}`

func (c *modernTaskClient) call(method, name, params string) rpcReply {
	c.t.Helper()
	c.id++
	params = strings.TrimSuffix(params, "}") + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + modernTaskCaps + `}}`
	_, body := rawPost(c.t, http.DefaultClient, c.url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, c.id, method, params),
		"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method, "Mcp-Name", name)
	for _, line := range strings.Split(body, "\n") {
		data, ok := strings.CutPrefix(strings.TrimSpace(line), "data:")
		if !ok && strings.HasPrefix(strings.TrimSpace(line), "{") {
			data, ok = line, true
		}
		if !ok || !strings.Contains(data, fmt.Sprintf(`"id":%d`, c.id)) {
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

// TestTaskAsksItsClientThroughInputRequired: a 2026-07-28 client that
// declares elicitation and the tasks extension searches ori for "Bergen"
// (two municipalities) while ori's limit (1 unit a minute, on the host's
// fake clock) is spent, so the call becomes a task. Once the limit lets
// it run and the connector finds two Bergens, the task reads
// input_required with the question under its key in inputRequests,
// listing both; an answer under another key is ignored (still
// input_required); the answer picking Bergen (Limburg) through
// tasks/update resumes it, and it completes with Limburg's results only.
// The extension's overview, "Mid-flight input", and its draft, "Task Update Requests".
func TestTaskAsksItsClientThroughInputRequired(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the ori connector")
	}
	clk := schedtest.NewClock(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
	sim, err := platformsim.New(platformsim.Options{DataDir: filepath.Join(wasmbuild.Root(), "testdata"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(sim.Handler())
	t.Cleanup(up.Close)
	t.Cleanup(sim.Close)
	cfg, err := host.LoadConfig(writeConfig(t, fmt.Sprintf(`
[mcp_rate_limit]
enabled = false
[runtime]
compilation_cache_dir = %q
[cache]
enabled = false
[status]
enabled = false
[connectors.ori]
module = %q
base_url = %q
private_networks = ["127.0.0.0/8"]
pool_size = 1
grant = ["elicitation"]
[connectors.ori.limits.elastic]
units = 1
per = "1m"
`, proofCompileDir(t), wasmbuild.Path(t, "./plugins/ori/cmd"), platformsim.BaseURLs(up.URL)["ori"])), []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: "9.9.9-test", Clock: clk, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(func() { h.Close(context.Background()) })
	t.Cleanup(srv.Close)
	c := &modernTaskClient{t: t, url: srv.URL + "/mcp/unified/v1"}

	// Spend the limit's unit with a search that names no organisation
	// (the connector has not loaded its organisations yet), then ask for
	// "Bergen": loading them waits at the limit, so the call becomes a
	// task before the connector can ask.
	var w taskWire
	for i := range 4 {
		args := fmt.Sprintf(`{"query":"begroting %d"}`, i)
		if i > 0 {
			args = `{"query":"woningbouw","organization":"Bergen"}`
		}
		r := c.call("tools/call", "ori_search", `{"name":"ori_search","arguments":`+args+`}`)
		w = r.task(t)
		if w.ResultType == "task" {
			break
		}
	}
	if w.ResultType != "task" {
		t.Fatal("four searches at a limit of 1 unit a minute and none became a task")
	}
	get := func() (taskWire, map[string]json.RawMessage) {
		t.Helper()
		r := c.call("tasks/get", w.TaskID, fmt.Sprintf(`{"taskId":%q}`, w.TaskID))
		var in struct {
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
		}
		_ = json.Unmarshal(r.Result, &in)
		return r.task(t), in.InputRequests
	}
	var reqs map[string]json.RawMessage
	waitFor(t, 30*time.Second, "the task asks its client", func() bool {
		clk.Advance(time.Second)
		var got taskWire
		got, reqs = get()
		if got.Status == "completed" || got.Status == "failed" {
			t.Fatalf("the task ended without asking: %s %.300s", got.Status, got.Result)
		}
		return got.Status == "input_required"
	})
	if len(reqs) != 1 {
		t.Fatalf("inputRequests %v: want one question", reqs)
	}
	var key string
	var q struct {
		Method string `json:"method"`
		Params struct {
			Message         string          `json:"message"`
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		} `json:"params"`
	}
	for k, raw := range reqs {
		key = k
		if err := json.Unmarshal(raw, &q); err != nil {
			t.Fatal(err)
		}
	}
	if q.Method != "elicitation/create" || !strings.Contains(q.Params.Message, `"Bergen"`) ||
		!strings.Contains(string(q.Params.RequestedSchema), "Limburg") || !strings.Contains(string(q.Params.RequestedSchema), "Noord-Holland") {
		t.Fatalf("question %s: %+v; want an elicitation about \"Bergen\" offering both", key, q)
	}
	// The choice is the form's one property; pick the option naming Limburg.
	var schema struct {
		Properties map[string]struct {
			OneOf []struct{ Const, Title string } `json:"oneOf"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(q.Params.RequestedSchema, &schema); err != nil {
		t.Fatal(err)
	}
	var answer string
	for name, p := range schema.Properties {
		for _, o := range p.OneOf {
			if strings.Contains(o.Title, "Limburg") {
				answer = fmt.Sprintf(`{"action":"accept","content":{%q:%q}}`, name, o.Const)
			}
		}
	}
	if answer == "" {
		t.Fatalf("no option names Limburg in %s", q.Params.RequestedSchema)
	}

	ack := c.call("tasks/update", w.TaskID, fmt.Sprintf(`{"taskId":%q,"inputResponses":{"not-asked":%s}}`, w.TaskID, answer))
	if ack.Error != nil || !strings.Contains(string(ack.Result), `"resultType":"complete"`) {
		t.Fatalf("tasks/update with a key not asked: %s %+v", ack.Result, ack.Error)
	}
	if got, _ := get(); got.Status != "input_required" {
		t.Fatalf("after an answer under a key not asked: %s; want still input_required", got.Status)
	}
	ack = c.call("tasks/update", w.TaskID, fmt.Sprintf(`{"taskId":%q,"inputResponses":{%q:%s}}`, w.TaskID, key, answer))
	if ack.Error != nil {
		t.Fatalf("tasks/update: %+v", ack.Error)
	}
	var done taskWire
	waitFor(t, 30*time.Second, "the task completes after the answer", func() bool {
		clk.Advance(time.Second)
		done, _ = get()
		return done.Status != "working" && done.Status != "input_required"
	})
	if done.Status != "completed" {
		t.Fatalf("status %s: %.500s", done.Status, done.Result)
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(done.Result, &res); err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("result %v: %.500s", err, done.Result)
	}
	text := res.Content[0].Text
	if !strings.Contains(text, "Gemeente Bergen (Limburg)") || strings.Contains(text, "Gemeente Bergen (Noord-Holland)") ||
		!strings.Contains(text, "the user chose Gemeente Bergen (Limburg)") {
		t.Errorf("results: %.800s; want Bergen (Limburg)'s only, by the user's choice", text)
	}
}

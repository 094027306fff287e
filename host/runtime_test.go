//go:build unix

package host_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/host/internal/testsupport/nativerttest"
	"github.com/besluitbron/besluitbron/internal/syncbuf"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// syncBuffer collects log lines written while the test reads them.
type syncBuffer = syncbuf.Buffer

// startRuntimeHost serves obv from module with the given runtime.
func startRuntimeHost(t *testing.T, runtime, module, upstream, extra string, logs *syncBuffer) (*host.Host, string) {
	t.Helper()
	cfgPath := writeConfig(t, `
[runtime]
compilation_cache_dir = "`+sharedCompilationCache(t)+`"
[cache]
enabled = false
[connectors.obv]
runtime = "`+runtime+`"
module = "`+module+`"
base_url = "`+upstream+`"
private_networks = ["127.0.0.0/8"]
`+extra)
	cfg, err := host.LoadConfig(cfgPath, []string{})
	if err != nil {
		t.Fatal(err)
	}
	o := &host.Options{Config: cfg, Version: "9.9.9-test"}
	if logs != nil {
		o.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	h, err := host.New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	return h, srv.URL
}

// TestProcessRuntimeMatchesWasm serves the same connector as WebAssembly
// and as a native process: over MCP, the answers are the same.
func TestProcessRuntimeMatchesWasm(t *testing.T) {
	if proofRace() {
		t.Skip("compiling the module under the race detector takes a minute; the non-race pass and the contract suite compare the runtimes")
	}
	up := fakeOBV(t, nil)
	_, wasmURL := startRuntimeHost(t, "wasm", wasmbuild.Path(t, "./plugins/obv/cmd"), up.URL, "", nil)
	_, procURL := startRuntimeHost(t, "process", nativerttest.Build(t, "./plugins/obv/cmd"), up.URL, "", nil)
	wasm, proc := connect(t, wasmURL+"/mcp/obv/v1"), connect(t, procURL+"/mcp/obv/v1")
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"obv_search", map[string]any{"query": "begroting", "organization": "soest"}},
		{"obv_search", map[string]any{"organization": "nergens"}},
		{"obv_search", map[string]any{"limit": 1000}},
		{"obv_get_document", map[string]any{"entity_id": "document:notubiz:gemeente:soest:12345"}},
		{"obv_list_sources", map[string]any{}},
	}
	for _, c := range calls {
		w, p := callTool(t, wasm, c.tool, c.args), callTool(t, proc, c.tool, c.args)
		// The fetch went through the host's gate under the call's
		// context in both runtimes: the same accounting reaches _meta.
		// Only the timings may differ.
		if p.Meta["besluitbron/cache"] == nil || w.Meta["besluitbron/cache"] != p.Meta["besluitbron/cache"] || len(w.Meta) != len(p.Meta) {
			t.Errorf("%s %v: _meta wasm %v, process %v", c.tool, c.args, w.Meta, p.Meta)
		}
		wire := func(r *mcp.CallToolResult) map[string]any {
			r.Meta = nil
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			json.Unmarshal(b, &m)
			return m
		}
		if d := cmp.Diff(wire(w), wire(p)); d != "" {
			t.Errorf("%s %v (-wasm +process):\n%s", c.tool, c.args, d)
		}
	}
}

// TestProcessKilledMidCall kills the native process while its call waits
// for the platform: the client gets a tool error naming the platform, and
// the next call runs on a new process.
func TestProcessKilledMidCall(t *testing.T) {
	entered := make(chan struct{}, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("query") == "hang" {
			entered <- struct{}{}
			<-r.Context().Done() // released when the host gives up the fetch
			return
		}
		fakeOBV(t, nil).Config.Handler.ServeHTTP(w, r)
	}))
	defer up.Close()
	var logs syncBuffer
	_, base := startRuntimeHost(t, "process", nativerttest.Build(t, "./plugins/obv/cmd"), up.URL, "", &logs)
	cs := connect(t, base+"/mcp/obv/v1")

	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"query": "hang"}})
		if err != nil {
			t.Errorf("protocol error: %v", err)
		}
		done <- res
	}()
	<-entered
	pid := latestPID(t, logs.String())
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res == nil || !res.IsError || !strings.Contains(text(res), "OpenBesluitvorming: the connector failed") || !strings.Contains(text(res), "process died during the call") {
		t.Fatalf("killed call: %+v %s", res, text(res))
	}
	res = callTool(t, cs, "obv_search", map[string]any{"query": "begroting"})
	if res.IsError {
		t.Fatalf("call after the kill: %s", text(res))
	}
	var sr struct{ Results []json.RawMessage }
	if err := json.Unmarshal([]byte(text(res)), &sr); err != nil || len(sr.Results) != 2 {
		t.Errorf("call after the kill: %v %s", err, text(res))
	}
	if again := latestPID(t, logs.String()); again == pid {
		t.Errorf("the call after the kill ran on the killed pid %d", pid)
	}
}

func latestPID(t *testing.T, logs string) int {
	t.Helper()
	i := strings.LastIndex(logs, "connector process started")
	if i < 0 {
		t.Fatalf("no process start logged:\n%s", logs)
	}
	_, rest, _ := strings.Cut(logs[i:], "pid=")
	s, _, _ := strings.Cut(rest, " ")
	pid, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("pid %q: %v", s, err)
	}
	return pid
}

func TestProcessRuntimeRefusals(t *testing.T) {
	bin := nativerttest.Build(t, "./plugins/obv/cmd")
	cases := []struct{ name, runtime, module, extra, want string }{
		{"pinned sha256", "process", bin, `sha256 = "` + strings.Repeat("0", 64) + `"`, "connectors.obv.sha256: module " + bin + " has sha256 " + nativerttest.SHA256(t, bin)},
		{"missing binary", "process", bin + "-nope", "", "connectors.obv.module: no file at " + bin + "-nope: check the path"},
		{"wasm as process", "process", wasmbuild.Path(t, "./plugins/obv/cmd"), "", `a .wasm module needs runtime = "wasm"`},
		{"process as wasm", "wasm", bin, "", `loading connector "obv"`},
		{"pinned sha256, wasm", "wasm", wasmbuild.Path(t, "./plugins/obv/cmd"), `sha256 = "` + strings.Repeat("0", 64) + `"`, "connectors.obv.sha256: module " + wasmbuild.Path(t, "./plugins/obv/cmd") + " has sha256 "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfgPath := writeConfig(t, "[runtime]\ncompilation_cache_dir = \""+proofCompileDir(t)+"\"\n[cache]\nenabled = false\n[connectors.obv]\nruntime = \""+c.runtime+"\"\nmodule = \""+c.module+"\"\n"+c.extra+"\n")
			cfg, err := host.LoadConfig(cfgPath, []string{})
			if err != nil {
				t.Fatal(err)
			}
			h, err := host.New(context.Background(), &host.Options{Config: cfg, Logger: slog.New(slog.NewTextHandler(&syncBuffer{}, nil))})
			if err == nil {
				h.Close(context.Background())
				t.Fatal("the host started")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error lacks %q:\n%v", c.want, err)
			}
		})
	}
}

// Compiling seven modules under the race detector takes minutes and the
// weight of a list has nothing to race; this test runs in the plain pass.

//go:build !race

package host_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// toolsListBudget is the most the unified tools/list may weigh: every
// assistant that connects carries it in its context for the whole
// conversation (issue 17: it was ~42 KB, about 10k tokens). Issue 28 added
// tk_get_votes (~720 bytes; the list stood ~290 bytes under 28 KiB, less
// than any tool weighs), hence 29 KiB. Issue 28's decision-date sort,
// subject labels, all-words promise and OpenTK's metadata fetch added 209
// bytes to descriptions and schemas; besluitbron_search's sentence on one
// document once (also_on, result_count, document_count) 214; the find
// argument on the seven document tools ~139 bytes each (~970 in all),
// hence 30 KiB and what the first two added. Issue 30's citations added
// besluitbron_cite (787 bytes) and besluitbron_check_quote (657; both with
// their bounds checked in words rather than in the schema) and one
// sentence on cite to besluitbron_search's description (~100 bytes, within
// what the list had left), hence their 1,444; its watches added
// besluitbron_watch (1,691 bytes: a saved search's create, list and
// delete, with its cost note), hence 1,700 more.
const toolsListBudget = 30*1024 + 209 + 214 + 1444 + 1700

// weightConnectors are the seven platform connectors a default install
// serves on the unified address.
var weightConnectors = []string{"obk", "obv", "openarchivaris", "opentk", "ori", "rechtspraak", "tk"}

// TestUnifiedToolsListWeight lists the unified address's tools through a
// real MCP session (streamable HTTP, the bytes a client receives) and
// fails when the list outgrows toolsListBudget, when a tool's description
// lost its cost note, or when a connector or the host's own tools are
// missing from it (a list made light by dropping tools would pass
// otherwise). BESLUITBRON_DUMP_TOOLS=/tmp/tools writes each page of the
// list to /tmp/tools.<n>.json, to see what weighs.
func TestUnifiedToolsListWeight(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and loads the seven connectors")
	}
	base := weightHost(t)
	tools, size := unifiedToolsList(t, base)
	t.Logf("unified tools/list: %d tools, %d bytes of JSON (budget %d)", len(tools), size, toolsListBudget)

	seen := map[string]bool{}
	for _, tl := range tools {
		seen[tl.Name] = true
		// The host appends "\n\nCost: <note>" to a connector tool's
		// description (mcpserver.describe, and the cross-search's own);
		// besluitbron_status writes "Cost: …" into its text. A tool whose
		// manifest lost its CostNote, or whose note is blank, has neither.
		i := strings.LastIndex(tl.Description, "Cost: ")
		if i < 0 || strings.TrimSpace(tl.Description[i+len("Cost: "):]) == "" {
			t.Errorf("%s: description has no cost note:\n%s", tl.Name, tl.Description)
			continue
		}
		if strings.TrimSpace(tl.Description[:i]) == "" {
			t.Errorf("%s: description is only a cost note", tl.Name)
		}
	}
	for _, want := range []string{"besluitbron_search", "besluitbron_status"} {
		if !seen[want] {
			t.Errorf("%s missing from the unified list", want)
		}
	}
	for _, id := range weightConnectors {
		n := 0
		for name := range seen {
			if strings.HasPrefix(name, id+"_") {
				n++
			}
		}
		if n == 0 {
			t.Errorf("no %s_* tool in the unified list", id)
		}
	}
	if size > toolsListBudget {
		// Name the heaviest tools, so whoever broke the budget knows where
		// to look.
		var b strings.Builder
		for _, tl := range tools {
			fmt.Fprintf(&b, "\n  %-36s %6d bytes", tl.Name, tl.size)
		}
		t.Errorf("unified tools/list is %d bytes of JSON, over the %d-byte budget:%s", size, toolsListBudget, b.String())
	}
}

// weightHost starts a host with the seven connectors on their default
// base URLs: listing tools reaches no platform, and the Laadstatus job
// that would is off.
func weightHost(t *testing.T) string {
	t.Helper()
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "[runtime]\ncompilation_cache_dir = %q\n[cache]\ndir = %q\n[status]\nenabled = false\n[mcp_rate_limit]\nenabled = false\n",
		weightCompileDir(t), t.TempDir())
	for _, id := range weightConnectors {
		fmt.Fprintf(&cfg, "[connectors.%s]\nmodule = %q\npool_size = 1\n", id, wasmbuild.Path(t, "./plugins/"+id+"/cmd"))
	}
	p := filepath.Join(t.TempDir(), "plugins.toml")
	if err := os.WriteFile(p, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := host.LoadConfig(p, []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: c, Version: "weight", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(func() {
		srv.Close()
		h.Close(context.Background())
	})
	return srv.URL
}

// weightCompileDir is wazero's compiled-code cache under the repository's
// git-ignored var/, shared with the other host tests' runs, so a second
// run does not recompile the seven modules.
func weightCompileDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join(wasmbuild.Root(), "var", "wazero-proof")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// listedTool is one entry of tools/list with its own JSON weight.
type listedTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	size        int
}

// unifiedToolsList opens a session on the unified address and returns its
// tools and the bytes of JSON the tools/list results carried (every page
// of them, should the server paginate).
func unifiedToolsList(t *testing.T, base string) ([]listedTool, int) {
	t.Helper()
	endpoint := base + "/mcp/unified/v1"
	_, sid := mcpPost(t, endpoint, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"weight","version":"1"}}}`)
	if sid == "" {
		t.Fatal("initialize: no Mcp-Session-Id")
	}
	mcpPost(t, endpoint, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var (
		tools  []listedTool
		size   int
		cursor string
	)
	for id := 2; ; id++ {
		params := `{}`
		if cursor != "" {
			params = fmt.Sprintf(`{"cursor":%q}`, cursor)
		}
		raw, _ := mcpPost(t, endpoint, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, id, params))
		var msg struct {
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(raw, &msg); err != nil || msg.Result == nil {
			t.Fatalf("tools/list: %v %s", err, raw)
		}
		size += len(msg.Result)
		if out := os.Getenv("BESLUITBRON_DUMP_TOOLS"); out != "" {
			// To see what weighs: the raw result, as the client got it.
			if err := os.WriteFile(fmt.Sprintf("%s.%d.json", out, id-1), msg.Result, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(msg.Result, &page); err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Tools {
			var tl listedTool
			if err := json.Unmarshal(r, &tl); err != nil {
				t.Fatal(err)
			}
			tl.size = len(r)
			tools = append(tools, tl)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	return tools, size
}

// mcpPost sends one JSON-RPC message and returns the answer's JSON (the
// body, or the data of its first SSE event) and the session id.
func mcpPost(t *testing.T, endpoint, sid, body string) ([]byte, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %s: %s %s", body, resp.Status, b)
	}
	if resp.StatusCode == http.StatusAccepted {
		return nil, resp.Header.Get("Mcp-Session-Id")
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return b, resp.Header.Get("Mcp-Session-Id")
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<22)
	var data bytes.Buffer
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			data.WriteString(strings.TrimPrefix(d, " "))
			continue
		}
		if line == "" && data.Len() > 0 {
			break
		}
	}
	if data.Len() == 0 {
		t.Fatalf("POST %s: no event (%v)", body, sc.Err())
	}
	return data.Bytes(), resp.Header.Get("Mcp-Session-Id")
}

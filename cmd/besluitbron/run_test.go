package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestVersionAndUsage(t *testing.T) {
	if code, out, _ := runCmd("version"); code != 0 || strings.TrimSpace(out) != version {
		t.Errorf("version: %d %q", code, out)
	}
	if code, _, errs := runCmd(); code != 2 || !strings.Contains(errs, "usage") {
		t.Errorf("no args: %d %q", code, errs)
	}
	if code, _, errs := runCmd("serv"); code != 2 || !strings.Contains(errs, `unknown command "serv"`) {
		t.Errorf("typo: %d %q", code, errs)
	}
	if code, _, errs := runCmd("serve", "--port", "1"); code != 2 || !strings.Contains(errs, "port") {
		t.Errorf("bad flag: %d %q", code, errs)
	}
}

// compileDir is the wazero compilation cache these tests' configs name:
// the host tests' var/wazero-proof (git-ignored, kept between runs; wazero
// keys entries by module and wazero version), so check-config and serve
// do not compile obv again for every config (seconds each). A cached
// module is the same compiled code: no test here is about compiling.
func compileDir(t *testing.T) string {
	t.Helper()
	d := filepath.Join(wasmbuild.Root(), "var", "wazero-proof")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "plugins.toml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckConfig(t *testing.T) {
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	good := writeConfig(t, "[runtime]\ncompilation_cache_dir='"+compileDir(t)+"'\n[connectors.obv]\nmodule='"+wasm+"'\n")
	code, out, errs := runCmd("check-config", "--config", good)
	if code != 0 || !strings.Contains(out, "config OK: "+good+", 1 connector with ") {
		t.Errorf("good config: %d %q %q", code, out, errs)
	}
	// The digest it prints pins the module: pasted, the start succeeds;
	// one digit off, it stops naming the key.
	b, _ := os.ReadFile(wasm)
	sum := fmt.Sprintf("%x", sha256.Sum256(b))
	pin := "sha256 = \"" + sum + "\"\n"
	if !strings.Contains(out, pin) {
		t.Fatalf("check-config does not print the pin %q:\n%s", pin, out)
	}
	pinned := writeConfig(t, "[runtime]\ncompilation_cache_dir='"+compileDir(t)+"'\n[connectors.obv]\nmodule='"+wasm+"'\nsha256 = \""+sum+"\"\n")
	if code, out, errs := runCmd("check-config", "--config", pinned); code != 0 {
		t.Errorf("pinned with the printed digest: %d %q %q", code, out, errs)
	}
	wrong := "0" + sum[1:]
	if sum[0] == '0' {
		wrong = "1" + sum[1:]
	}
	mispinned := writeConfig(t, "[runtime]\ncompilation_cache_dir='"+compileDir(t)+"'\n[connectors.obv]\nmodule='"+wasm+"'\nsha256 = \""+wrong+"\"\n")
	if code, _, errs := runCmd("check-config", "--config", mispinned); code != 1 || !strings.Contains(errs, "connectors.obv.sha256") {
		t.Errorf("a wrong pin: %d %q", code, errs)
	}
	bad := writeConfig(t, "[connectors.obv]\nmodule='"+wasm+"'\npool_size='many'\n")
	if code, _, errs := runCmd("check-config", "--config", bad); code != 1 || !strings.Contains(errs, "pool_size") {
		t.Errorf("bad config: %d %q", code, errs)
	}
	if code, _, errs := runCmd("check-config", "--config", "/nonexistent.toml"); code != 1 || !strings.Contains(errs, "nonexistent.toml") {
		t.Errorf("missing file: %d %q", code, errs)
	}
}

// TestStdio runs the built binary as a desktop client would: over stdin
// and stdout, one session.
func TestStdio(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "besluitbron")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=7.7.7", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	cfg := writeConfig(t, "[runtime]\ncompilation_cache_dir='"+compileDir(t)+"'\n[log]\nlevel='warn'\n[connectors.obv]\nmodule='"+wasm+"'\n")
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: exec.Command(bin, "stdio", "--config", cfg)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ServerInfo.Version; v != "7.7.7" {
		t.Errorf("serverInfo.version = %q, want the build's version", v)
	}
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(lt.Tools) < 3 {
		t.Fatalf("tools: %v %v", err, lt)
	}
	// A bad argument is a tool error, not a crash; the session goes on.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "obv_search", Arguments: map[string]any{"limit": "ten"}})
	if err != nil || !res.IsError {
		t.Fatalf("bad argument: %v %+v", err, res)
	}
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("after a tool error: %v", err)
	}
}

// Requests piped into `besluitbron stdio`, with the input closed right
// after them, are all answered before it exits: the handshake and
// tools/list (with the connector's tools), then exit 0. Catches the
// former stdio, which answered initialize only (3 of 3 runs of
// printf … | besluitbron stdio): at the end of its input the go-sdk
// cancelled tools/list and wrote no answer.
func TestStdioAnswersPipedRequests(t *testing.T) {
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	cfg := writeConfig(t, "[runtime]\ncompilation_cache_dir='"+compileDir(t)+"'\n[log]\nlevel='warn'\n[status]\nenabled=false\n[connectors.obv]\nmodule='"+wasm+"'\n")
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`
	var out, errb bytes.Buffer
	if code := run([]string{"stdio", "--config", cfg}, strings.NewReader(in), &out, &errb); code != 0 {
		t.Fatalf("stdio: exit %d\n%s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines on stdout, want the answers to initialize and tools/list:\n%s", len(lines), out.String())
	}
	var list struct {
		ID     int `json:"id"`
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &list); err != nil || list.ID != 2 || len(list.Result.Tools) < 3 {
		t.Errorf("second answer %q (%v): want tools/list's, with obv's tools", lines[1], err)
	}
}

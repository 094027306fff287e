// Compiling seven modules under the race detector takes minutes, and a
// count has nothing to race: this test runs in the plain pass.

//go:build !race

package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// check-config's count of the unified address's tools for the shipped
// plugins.toml is the number a client's tools/list receives there over
// streamable HTTP. Catches the former count of the connectors' tools
// only: 27, where tools/list listed 29 (the host's besluitbron_search and
// besluitbron_status), and more since.
func TestCheckConfigCountsWhatToolsListLists(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and loads the seven connectors")
	}
	b, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "plugins.toml"))
	if err != nil {
		t.Fatal(err)
	}
	// plugins.toml as shipped, with its modules as the tests build them,
	// the test's compilation cache and cache folder, and no Laadstatus
	// (listing tools reaches no platform).
	module := regexp.MustCompile(`(?m)^module = "bin/plugins/([a-z]+)\.wasm"`)
	body := module.ReplaceAllStringFunc(string(b), func(line string) string {
		id := module.FindStringSubmatch(line)[1]
		return `module = "` + wasmbuild.Path(t, "./plugins/"+id+"/cmd") + `"`
	})
	for from, to := range map[string]string{
		`compilation_cache_dir = "var/wazero"`: `compilation_cache_dir = "` + compileDir(t) + `"`,
		`dir = "var/cache"`:                    `dir = "` + t.TempDir() + `"`,
		"[status]\n":                           "[status]\nenabled = false\n",
	} {
		if !strings.Contains(body, from) {
			t.Fatalf("plugins.toml has no %q to point at the test's folders", from)
		}
		body = strings.Replace(body, from, to, 1)
	}
	if strings.Contains(body, "bin/plugins/") {
		t.Fatalf("plugins.toml names a module this test does not build:\n%s", body)
	}
	cfgPath := writeConfig(t, body)

	code, out, errs := runCmd("check-config", "--config", cfgPath)
	m := listedRe.FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("check-config: %d\n%s\n%s", code, out, errs)
	}
	counted := atoi(t, m[1])

	cfg, err := host.LoadConfig(cfgPath, []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: cfg, Version: "listed", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp/unified/v1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var listed []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, tool.Name)
	}
	t.Logf("check-config: %s; tools/list: %d tools", m[0], len(listed))
	if counted != len(listed) {
		t.Errorf("check-config says /mcp/unified/v1 lists %d tools, tools/list there lists %d: %v", counted, len(listed), listed)
	}
}

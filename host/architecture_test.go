package host

// The layout rules of the house, as a test. host/internal is grouped into
// wings, each owning one side of a call:
//
//	runtime/   runs connectors: WebAssembly (wasmrt, and wasmbudget, the
//	           loop budget it rewrites modules with), native processes
//	           (nativert), and fair admission to their instances;
//	upstream/  everything between a connector's fetch and the platform:
//	           the fetch gate, the cache, the quotas, the cluster, and the
//	           call record (callinfo) every layer adds to;
//	serve/     everything between a client and a tool call: the MCP server,
//	           inbound limits, kept results, the pages, the cross-search
//	           and the Laadstatus;
//	config/    the admin's configuration;
//	platforms/ assembling a platform: loading its connector, its quotas,
//	           cache and fetch gate, the cluster link and the caches'
//	           upkeep, from runtime/, upstream/ and config/;
//	testsupport/ helpers for tests only.
//
// What catches what: a runtime or upstream package that imports serve/
// (the fetch path would then know about MCP or pages); a runtime package
// that imports upstream/ (a connector's runtime reaches the platform only
// through the connector.Host it is handed); platforms/ importing serve/
// (assembling a platform would then know how calls arrive), or any package
// but the host's importing platforms/; any production package that
// imports test support, the platform simulator, a connector under
// plugins/ or the host package itself; a package beyond the MCP edge
// that imports the go-sdk's MCP types or the MCP server (features answer
// an invoke.Answer and reach tools through an invoke.Invoker); a new top-level folder under
// host/internal or a seventh file in host/. TestArchitectureRulesCatch
// shows each rule failing on a graph that breaks it.

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const modulePath = "github.com/besluitbron/besluitbron/"

// goSDKMCP is the go-sdk's MCP package as importsOf records it (beside the
// module's own packages), and mcpEdge the packages that may import it.
const goSDKMCP = "go-sdk/mcp"

var mcpEdge = []string{"host", "host/internal/serve/mcpserver", "host/internal/serve/eventstore"}

// wingOf is the wing of a package path relative to the module
// ("host/internal/upstream/cache" → "upstream"), "" outside host/internal.
func wingOf(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, "host/internal/")
	if !ok {
		return ""
	}
	w, _, _ := strings.Cut(rest, "/")
	return w
}

// mayImport says whether package from (relative to the module) may import
// to; the reason when not.
func mayImport(from, to string) (bool, string) {
	if wingOf(from) == "testsupport" {
		return true, "" // test helpers may use anything, and only tests use them
	}
	switch {
	case to == "host":
		return false, "nothing under host/internal imports the host package"
	case to == goSDKMCP && !slices.Contains(mcpEdge, from):
		return false, "only the MCP edge (mcpserver, the event store it resumes from, and the host's face that starts it) speaks the go-sdk's MCP types; a feature answers an invoke.Answer"
	case to == "host/internal/serve/mcpserver" && from != "host":
		return false, "only the host's face builds the MCP server; a feature reaches tools through an invoke.Invoker"
	case strings.HasPrefix(to, "plugins/"):
		return false, "the host names no connector: it knows platforms only by their manifests"
	case to == "internal/platformsim" || to == "internal/wasmbuild" || wingOf(to) == "testsupport":
		return false, "test support and the platform simulator are for tests only"
	}
	fw, tw := wingOf(from), wingOf(to)
	if tw == "" || fw == tw {
		return true, ""
	}
	if tw == "platforms" && from != "host" {
		return false, "only the host assembles platforms; the wings it assembles them from know nothing of it"
	}
	switch fw {
	case "runtime":
		return false, "a runtime reaches platforms only through the connector.Host it is handed, and knows nothing of serving"
	case "upstream":
		return false, "the fetch path knows nothing of how calls arrive (serve) or run (runtime)"
	case "config":
		return false, "the configuration depends on no wing"
	case "platforms":
		if tw == "serve" {
			return false, "assembling a platform knows nothing of serving: the host hands in what serving needs (a callback)"
		}
		return true, ""
	case "serve":
		if tw == "upstream" && to == "host/internal/upstream/callinfo" || to == "host/internal/runtime/admission" {
			return true, ""
		}
		return false, "serve reaches connectors through the MCP server's invoke path, and upstream only through the call record"
	}
	return true, ""
}

// importsOf maps every package under dir (relative to the module root)
// to the module-internal packages its non-test files import.
func importsOf(t *testing.T, root, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			to, ok := strings.CutPrefix(path, modulePath)
			if path == "github.com/modelcontextprotocol/go-sdk/mcp" {
				to, ok = goSDKMCP, true
			}
			if ok && !slices.Contains(out[pkg], to) {
				out[pkg] = append(out[pkg], to)
			}
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// violations lists every broken rule of a graph.
func violations(graph map[string][]string, internalDirs []string, hostFiles int) []string {
	var out []string
	for from, tos := range graph {
		for _, to := range tos {
			if ok, why := mayImport(from, to); !ok {
				out = append(out, from+" imports "+to+": "+why)
			}
		}
	}
	allowed := []string{"config", "platforms", "runtime", "serve", "testsupport", "upstream"}
	for _, d := range internalDirs {
		if !slices.Contains(allowed, d) {
			out = append(out, "host/internal/"+d+": not a wing (runtime, upstream, serve, config, platforms, testsupport); put the package in the wing that owns its job")
		}
	}
	if hostFiles > 6 {
		out = append(out, strconv.Itoa(hostFiles)+" non-test files in host/: at most 6 (the face, the features, the admin commands, doc; platforms are built in host/internal/platforms)")
	}
	slices.Sort(out)
	return out
}

func TestArchitecture(t *testing.T) {
	root := filepath.Join("..")
	graph := importsOf(t, root, "host")
	entries, err := os.ReadDir(filepath.Join(root, "host", "internal"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	files, _ := filepath.Glob(filepath.Join(root, "host", "*.go"))
	n := 0
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			n++
		}
	}
	for _, v := range violations(graph, dirs, n) {
		t.Error(v)
	}
	if len(graph) < 15 {
		t.Fatalf("found only %d host packages; is the walk rooted right?", len(graph))
	}
}

// TestArchitectureRulesCatch: each rule fails on a graph that breaks it,
// so TestArchitecture cannot pass by checking nothing.
func TestArchitectureRulesCatch(t *testing.T) {
	for _, c := range []struct {
		graph map[string][]string
		dirs  []string
		files int
		want  string
	}{
		{map[string][]string{"host/internal/upstream/cache": {"host/internal/serve/memo"}}, nil, 5, "the fetch path knows nothing"},
		{map[string][]string{"host/internal/runtime/wasmrt": {"host/internal/upstream/fetch"}}, nil, 5, "a runtime reaches platforms only"},
		{map[string][]string{"host/internal/serve/web": {"host/internal/upstream/cache"}}, nil, 5, "serve reaches connectors"},
		{map[string][]string{"host/internal/serve/web": {"plugins/obv"}}, nil, 5, "names no connector"},
		{map[string][]string{"host/internal/serve/web": {"internal/platformsim"}}, nil, 5, "for tests only"},
		{map[string][]string{"host/internal/serve/web": {"host/internal/testsupport/connectortest"}}, nil, 5, "for tests only"},
		{map[string][]string{"host/internal/serve/web": {"host"}}, nil, 5, "imports the host package"},
		{map[string][]string{"host/internal/config": {"host/internal/upstream/quota"}}, nil, 5, "depends on no wing"},
		{map[string][]string{"host/internal/config": {"host/internal/serve/inbound"}}, nil, 5, "depends on no wing"},
		{map[string][]string{"host/internal/serve/crosssearch": {"go-sdk/mcp"}}, nil, 5, "only the MCP edge"},
		{map[string][]string{"host/internal/serve/web": {"host/internal/serve/mcpserver"}}, nil, 5, "only the host's face builds the MCP server"},
		{map[string][]string{"host/internal/platforms": {"host/internal/serve/memo"}}, nil, 5, "assembling a platform knows nothing of serving"},
		{map[string][]string{"host/internal/serve/web": {"host/internal/platforms"}}, nil, 5, "only the host assembles platforms"},
		{map[string][]string{"host/internal/upstream/fetch": {"host/internal/platforms"}}, nil, 5, "only the host assembles platforms"},
		{map[string][]string{"host/internal/runtime/wasmrt": {"host/internal/platforms"}}, nil, 5, "only the host assembles platforms"},
		{map[string][]string{"host/internal/config": {"host/internal/platforms"}}, nil, 5, "only the host assembles platforms"},
		{nil, []string{"serve", "ratelimit"}, 5, "host/internal/ratelimit: not a wing"},
		{nil, nil, 7, "7 non-test files in host/"},
	} {
		got := strings.Join(violations(c.graph, c.dirs, c.files), "\n")
		if !strings.Contains(got, c.want) {
			t.Errorf("%v %v %d: violations %q lack %q", c.graph, c.dirs, c.files, got, c.want)
		}
	}
	ok := map[string][]string{
		"host/internal/serve/mcpserver":  {"host/internal/upstream/callinfo", "host/internal/runtime/admission", "host/internal/serve/memo", "sdk/connector"},
		"host/internal/upstream/cluster": {"host/internal/upstream/quota", "sched/schedlua"},
		"host/internal/platforms":        {"host/internal/runtime/wasmrt", "host/internal/upstream/fetch", "host/internal/config", "sched", "sdk/connector"},
		"host":                           {"host/internal/platforms", "host/internal/serve/memo"},
	}
	if v := violations(ok, []string{"runtime", "serve", "platforms"}, 5); len(v) > 0 {
		t.Errorf("a lawful graph has violations: %v", v)
	}
}

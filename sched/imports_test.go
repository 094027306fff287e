package sched_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/besluitbron/besluitbron/"

// TestPureImports keeps the scheduler and its Lua port pure: no network,
// no file system, no process state (style item 20). Package sched/schedlua
// may import the standard library and sched, nothing else (its tests may
// reach a Redis client and miniredis); no file of sched or of a package
// under it, test or not, imports anything under host/: the policy does not
// depend on the host that uses it.
func TestPureImports(t *testing.T) {
	for _, dir := range []string{".", "schedlua", "schedtest"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("%s: no Go files: the test checks nothing", dir)
		}
		for _, f := range files {
			for _, p := range imports(t, f) {
				if problem := importRule(dir, strings.HasSuffix(f, "_test.go"), p); problem != "" {
					t.Errorf("%s imports %s: %s", f, p, problem)
				}
			}
		}
	}
}

// importRule says what is wrong with file's import of p, or "".
func importRule(dir string, test bool, p string) string {
	switch {
	case strings.HasPrefix(p, module+"host/"):
		return "the scheduling policy may not depend on the host"
	case test:
		return ""
	case p == "os" || p == "net" || strings.HasPrefix(p, "net/") || strings.HasPrefix(p, "os/"):
		if dir == "." || dir == "schedlua" {
			return "sched and schedlua do no I/O"
		}
	case dir == "schedlua" && p != module+"sched" && strings.Contains(strings.SplitN(p, "/", 2)[0], "."):
		return "schedlua imports only the standard library and sched"
	}
	return ""
}

// TestImportRuleCatches: the rule above refuses what it should, so the
// test can fail.
func TestImportRuleCatches(t *testing.T) {
	for _, c := range []struct {
		dir  string
		test bool
		path string
		bad  bool
	}{
		{".", false, "net/http", true},
		{".", false, "os", true},
		{".", false, "math/big", false},
		{"schedlua", false, module + "host/internal/upstream/cluster", true},
		{"schedlua", true, module + "host/internal/redistest", true},
		{"schedlua", false, "github.com/redis/go-redis/v9", true},
		{"schedlua", true, "github.com/redis/go-redis/v9", false},
		{"schedlua", false, module + "sched", false},
		{"schedlua", false, "embed", false},
		{"schedtest", false, module + "host/internal/upstream/quota", true},
		{".", true, module + "host/internal/upstream/quota", true},
	} {
		if got := importRule(c.dir, c.test, c.path) != ""; got != c.bad {
			t.Errorf("%s (test %v) importing %s: refused %v, want %v", c.dir, c.test, c.path, got, c.bad)
		}
	}
}

func imports(t *testing.T, file string) []string {
	t.Helper()
	pf, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, im := range pf.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		out = append(out, p)
	}
	return out
}

package host_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// hostImportsNoPlugin reports every non-test Go file under dir (testdata
// folders aside: those are guest programs, not the host) that imports a
// connector from plugins/.
func hostImportsNoPlugin(t *testing.T, dir string) []string {
	t.Helper()
	var bad []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); strings.HasPrefix(p, "github.com/besluitbron/besluitbron/plugins/") {
				bad = append(bad, path+" imports "+p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// TestHostImportsNoConnector: the host knows connectors only through their
// manifests and the runtimes that load them, never by importing one. It
// catches a host package (such as the contract suite's runtime table, once
// a non-test file importing all seven connectors) that compiles a
// connector into the server; test files may import them.
func TestHostImportsNoConnector(t *testing.T) {
	for _, b := range hostImportsNoPlugin(t, ".") {
		t.Error(b)
	}
	// The check sees what it must: a file importing a plugin is named.
	dir := t.TempDir()
	src := "package x\n\nimport _ \"github.com/besluitbron/besluitbron/plugins/obv\"\n"
	if err := writeFile(filepath.Join(dir, "x.go"), src); err != nil {
		t.Fatal(err)
	}
	if got := hostImportsNoPlugin(t, dir); len(got) != 1 {
		t.Errorf("a file importing plugins/obv was not caught: %v", got)
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

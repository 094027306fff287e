package nativerttest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

var (
	mu    sync.Mutex
	built = map[string]*result{}
	dir   string
)

// result is one package's build, shared by every test that asks for it;
// different packages build concurrently.
type result struct {
	once sync.Once
	path string
	err  error
}

// Build builds pkg (relative to the repository root, such as
// "./plugins/<id>/cmd") as a native binary and returns its path. A binary
// under bin/plugins from `make native` is not reused: tests test what is
// checked in.
func Build(tb testing.TB, pkg string) string {
	tb.Helper()
	p, err := build(pkg)
	if err != nil {
		tb.Fatalf("nativerttest: %v", err)
	}
	return p
}

// SHA256 returns the hex sha256 of the file at path.
func SHA256(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("nativerttest: %v", err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func build(pkg string) (string, error) {
	mu.Lock()
	if dir == "" {
		d, err := wasmbuild.OutputDir("native")
		if err != nil {
			mu.Unlock()
			return "", err
		}
		dir = d
	}
	r, ok := built[pkg]
	if !ok {
		r = &result{}
		built[pkg] = r
	}
	out := filepath.Join(dir, strings.NewReplacer("/", "_", ".", "_").Replace(pkg))
	mu.Unlock()
	r.once.Do(func() {
		r.path, r.err = wasmbuild.Build(dir, filepath.Base(out), pkg)
	})
	return r.path, r.err
}

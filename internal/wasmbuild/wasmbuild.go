package wasmbuild

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var (
	mu    sync.Mutex
	built = map[string]string{}
	dir   string
)

// Root returns the repository root (the directory holding go.mod).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Path builds pkg (a path relative to the repository root, such as
// "./plugins/obv/cmd") for wasip1 as a reactor and returns the .wasm path.
// A file already built by `make build` under bin/plugins is not reused:
// tests always build from source so they test what is checked in.
func Path(tb testing.TB, pkg string) string {
	tb.Helper()
	p, err := build(pkg)
	if err != nil {
		tb.Fatalf("wasmbuild: %v", err)
	}
	return p
}

// Bytes is Path, returning the module's bytes.
func Bytes(tb testing.TB, pkg string) []byte {
	tb.Helper()
	b, err := os.ReadFile(Path(tb, pkg))
	if err != nil {
		tb.Fatalf("wasmbuild: %v", err)
	}
	return b
}

func build(pkg string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if p, ok := built[pkg]; ok {
		return p, nil
	}
	if dir == "" {
		d, err := os.MkdirTemp("", "besluitbron-wasm-")
		if err != nil {
			return "", err
		}
		dir = d
	}
	out := filepath.Join(dir, strings.NewReplacer("/", "_", ".", "_").Replace(pkg)+".wasm")
	modDir, rel := ModuleDir(pkg)
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, rel)
	cmd.Dir = modDir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", pkg, err, b)
	}
	built[pkg] = out
	return out, nil
}

// ModuleDir returns the directory to run go in for pkg (a path relative to
// the repository root) and pkg relative to it: the root for packages of
// the root module, or the nearest directory holding a go.mod of its own
// (the sdk, sdk/native and plugins/example are modules of their own, which
// go refuses to build by a path from the root).
func ModuleDir(pkg string) (dir, rel string) {
	root := Root()
	abs := filepath.Join(root, filepath.FromSlash(pkg))
	for d := abs; d != root && strings.HasPrefix(d, root+string(filepath.Separator)); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			r, err := filepath.Rel(d, abs)
			if err != nil {
				break
			}
			return d, "./" + filepath.ToSlash(r)
		}
	}
	return root, pkg
}

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
		d, err := OutputDir("wasm")
		if err != nil {
			return "", err
		}
		dir = d
	}
	out, err := BuildEnv(dir, strings.NewReplacer("/", "_", ".", "_").Replace(pkg)+".wasm", pkg, []string{"GOOS=wasip1", "GOARCH=wasm"}, "-buildmode=c-shared")
	if err != nil {
		return "", err
	}
	built[pkg] = out
	return out, nil
}

// OutputDir returns var/testbuild/<kind> under the repository root,
// created: where tests' builds go. One folder per kind, not one per test
// process, so that the many processes of a test run share it and leave
// nothing behind in the system's temporary folder (they used to leave
// one each there, 145 MB for the native builds).
func OutputDir(kind string) (string, error) {
	d := filepath.Join(Root(), "var", "testbuild", kind)
	return d, os.MkdirAll(d, 0o755)
}

// Build runs go build for pkg (relative to the repository root) with
// flags into dir/name and returns that path; env adds to the environment
// (GOOS and the like). The binary is built under a temporary name and
// renamed into place, so that test processes building the same package
// at once never see a half-written file, and one that runs or reads the
// file keeps the version it opened.
func Build(dir, name, pkg string, flags ...string) (string, error) {
	return BuildEnv(dir, name, pkg, nil, flags...)
}

// BuildEnv is [Build] with env added to the environment.
func BuildEnv(dir, name, pkg string, env []string, flags ...string) (string, error) {
	out := filepath.Join(dir, name)
	tmp, err := os.CreateTemp(dir, name+".*.tmp")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name()) // after a failure; a rename leaves nothing
	modDir, rel := ModuleDir(pkg)
	args := append([]string{"build"}, flags...)
	args = append(args, "-o", tmp.Name(), rel)
	cmd := exec.Command("go", args...)
	cmd.Dir = modDir
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", pkg, err, b)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return "", err
	}
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

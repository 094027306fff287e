// Package wasmbuild re-exports the repository's internal/wasmbuild for the
// host's tests, which import it under this path.
package wasmbuild

import (
	"testing"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// Root returns the repository root.
func Root() string { return wasmbuild.Root() }

// Path builds pkg for wasip1 and returns the .wasm path.
func Path(tb testing.TB, pkg string) string { tb.Helper(); return wasmbuild.Path(tb, pkg) }

// Bytes builds pkg for wasip1 and returns the module's bytes.
func Bytes(tb testing.TB, pkg string) []byte { tb.Helper(); return wasmbuild.Bytes(tb, pkg) }

// ModuleDir returns the directory to run go in for pkg, and pkg relative
// to it (see the repository's internal/wasmbuild).
func ModuleDir(pkg string) (dir, rel string) { return wasmbuild.ModuleDir(pkg) }

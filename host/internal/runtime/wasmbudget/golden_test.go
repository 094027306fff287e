package wasmbudget_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmbudget"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// goldenBudget is the budget the golden digests were taken with: the one
// the runtime uses (host/internal/runtime/wasmrt's checkBudget).
const goldenBudget = 1 << 16

// goldenGenerated is the sha256 of the rewrites of the generated seed
// modules (genSeeds), each prefixed by its length, as Instrument wrote
// them when it was split into parse, index and emit (issue 16). These
// modules do not change when the repository does, so the digest holds
// for good: a change means the rewrite writes different bytes (or that
// gen_test.go's generator or seeds changed, and the digest must be taken
// again from a rewrite known to be right).
const goldenGenerated = "168711772e0f38895a4e5fd86c1c434d38e61b092138d984e4fb2be6267083b9"

// goldenConnectors pins the rewrite of every connector module in the
// repository (and of wasmrt's test guests), keyed by goldenKey: the
// output of Instrument as it was before it was split (issue 16), checked
// against that unsplit function on these very inputs at budgets 1, 1<<16
// and 1<<31. For a module whose input digest is the one recorded, the
// output digest must be the one recorded. A Go module embeds its source
// paths, and changes with its sources and the toolchain, so an input
// digest that no longer matches skips that module (the generated modules
// above still pin the rewrite); record new digests, from a rewrite known
// to be right, with
// WASMCHECK_GOLDEN=1 go test -run TestInstrumentOutputUnchanged -v.
var goldenConnectors = map[string]struct{ in, out string }{
	"guests/badabi":  {"a27ae3a5a48ae1da6c84903912c2203f14c7269922a743d49f074f95a32eff33", "refused: wasmbudget: the module does not import besluitbron.interrupt_check"}, // 0 functions, 0 loops
	"guests/hostile": {"3f462463234ce265760e136c39c5424b11cdf6014053ea2830a6915a455c3d00", "7a7869b4527bfc453e7116e41deedabce2d74128969fd42ec2e95b29124c4516"},            // 2453 functions, 1792 loops
	"guests/rawout":  {"50d9d021815f27c142f7fd84bb46c04a501a8fae356791425abac9de99497172", "refused: wasmbudget: the module does not import besluitbron.interrupt_check"}, // 0 functions, 0 loops
	"conformance":    {"c5cd34ed290b88375b868e62a8a79c21fce61a22f2cb4779915c6477ea7762ac", "1768f7146c1c373ff3db8d0e216b992e2920e72e585a9db6719a5be9f62b972b"},            // 2782 functions, 2039 loops
	"example":        {"894a4bd5bed3e74b02eba8832a9da9559090510f15ede912522e0aaa7dabe82e", "5332b6b5932f6d208b34ca7a3dac587a8959511ca780511e497b54b12d4c9aff"},            // 2585 functions, 1906 loops
	"obk":            {"4751200dd4d1a444bd935b8fac2f73096a6814960e6a5fd3ad550290abeddb9a", "b341784d9a3303305d0a7500f897c48f78124e0231c7947ea8f0e9413c587768"},            // 2720 functions, 2029 loops
	"obv":            {"5124028ac1f757132a809795c26d429aadb291c18e675e4bcfb4db95941dc5f1", "0951a45c9201289fb99cd1f176f4bfa48159d11bfa416ff3e827fe4c4990dbca"},            // 2676 functions, 1976 loops
	"openarchivaris": {"851879901dde31a9f18b0805163ae7d52a0e058e3395008e7dcf4ece8bdee12f", "804b325bb0b203565c33a21da3c98f4cf26845aaae39f0cfce80fc8bc01ceccb"},            // 2685 functions, 1975 loops
	"opentk":         {"5ba67c373abe47c28b5581ffba08ca7b4a40c9bc57de1399a4c424f6a1c118b9", "f80172d7f1dedff0ae483fb350d6f514839a28663b6421da6047cefc47ec0582"},            // 2970 functions, 2203 loops
	"ori":            {"2f5a2868847ac7488576b9c55436eda15aa6e7e8cba04e7610131e411989eae2", "adb2e9a4827ad3306d5ecb73b68d13f36a1ae541ba316424c9e0df9751bf9c9f"},            // 2708 functions, 2013 loops
	"rechtspraak":    {"ecd6840b26da24c7cbbc671955112c536b43481b63c16dd008412c52cd9cffae", "694306766f3fef3ccfdd40b9fa289818d2833c3869276e224d1d24f2f6b5a7b0"},            // 2726 functions, 2032 loops
	"tk":             {"6862f90d72e3888f1f5b691d0aa67e70704e7c5d391650898e3d862a140936a5", "801e9876aecb91315fa96c31dec1e607e28793d2f2c08c01b3edcb4b8548b22c"},            // 3047 functions, 2267 loops
}

// goldenModules lists the connector modules: every plugins/*/cmd, and
// the guests wasmrt's tests build (wherever wasmrt sits under host/internal).
func goldenModules(t *testing.T) []string {
	root := wasmbuild.Root()
	var pkgs []string
	for _, pattern := range []string{"plugins/*/cmd", "host/internal/runtime/wasmrt/testdata/guests/*"} {
		dirs, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs {
			rel, _ := filepath.Rel(root, d)
			pkgs = append(pkgs, "./"+filepath.ToSlash(rel))
		}
	}
	sort.Strings(pkgs)
	if len(pkgs) < 3 {
		t.Fatalf("found only %d connector modules", len(pkgs))
	}
	return pkgs
}

// goldenKey names a module by what survives a move of its package:
// "obv" for ./plugins/obv/cmd, "guests/hostile" for wasmrt's guest.
func goldenKey(pkg string) string {
	if d, ok := strings.CutSuffix(pkg, "/cmd"); ok {
		return path.Base(d)
	}
	return "guests/" + path.Base(pkg)
}

func digest(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// TestInstrumentOutputUnchanged: the rewrite writes the same bytes as
// before it was split into parse, index and emit, for the generated seed
// modules and for every connector module built from today's sources.
func TestInstrumentOutputUnchanged(t *testing.T) {
	record := os.Getenv("WASMCHECK_GOLDEN") != ""
	h := sha256.New()
	for _, s := range genSeeds() {
		out, _, err := wasmbudget.Instrument(generate(s).wasm, goldenBudget)
		if err != nil {
			t.Fatal(err)
		}
		h.Write([]byte(strconv.Itoa(len(out))))
		h.Write(out)
	}
	if got := hex.EncodeToString(h.Sum(nil)); record {
		t.Logf("const goldenGenerated = %q", got)
	} else if got != goldenGenerated {
		t.Errorf("the rewrite of the generated modules changed: digest %s, want %s", got, goldenGenerated)
	}
	if testing.Short() && !record {
		return
	}
	matched := 0
	for _, pkg := range goldenModules(t) {
		wasm := wasmbuild.Bytes(t, pkg)
		out, st, err := wasmbudget.Instrument(wasm, goldenBudget)
		in, got := digest(wasm), digest(out)
		if err != nil {
			got = "refused: " + err.Error() // not built with the sdk
		}
		if record {
			t.Logf("%q: {%q, %q}, // %d functions, %d loops", goldenKey(pkg), in, got, st.Functions, st.Loops)
			continue
		}
		want, ok := goldenConnectors[goldenKey(pkg)]
		if !ok || want.in != in {
			t.Logf("%s: built from other sources than when its digest was recorded; not compared", pkg)
			continue
		}
		matched++
		if got != want.out {
			t.Errorf("%s: the rewrite changed: output digest %s, want %s", pkg, got, want.out)
		}
	}
	t.Logf("%d connector modules compared byte for byte", matched)
}

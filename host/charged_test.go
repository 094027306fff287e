package host_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// chargeDecision matches code that decides by itself who a call is
// charged to, beside callinfo.ChargedTo: picking a session name from the
// Public mark, or spelling one of the stand-in names (an address's
// prefix, the anonymous and local clients, a "public" session).
// (A cache scope of "public", MCP's cacheScope, is no such name.)
var chargeDecision = regexp.MustCompile(`\.Public\s*\{|[^A-Za-z]Session\s*:?=\s*"|"client:"|"anonymous"|"stdio"|(?i:session|charged|caller|owner)\w*\s*:?=\s*"public"`)

// chargeDecisions lists each line of a non-test Go file under dir, outside
// the call record's package (host/internal/upstream/callinfo), that
// decides who a call is charged to.
func chargeDecisions(t *testing.T, dir string) []string {
	t.Helper()
	var bad []string
	walkHostSources(t, dir, func(path string) bool { return filepath.Base(path) == "callinfo" }, func(path string) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if code, _, _ := strings.Cut(line, "//"); chargeDecision.MatchString(code) {
				bad = append(bad, path+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	return bad
}

// TestOneFunctionSaysWhoIsCharged: who a call is charged to (the public
// session, an MCP session, a client's address, the local client) is
// decided in callinfo.ChargedTo alone; the MCP edge, the quotas, the
// cluster's shared quotas and the instance admission ask it. It fails on a
// planted file that decides by itself, so it cannot pass by finding
// nothing.
func TestOneFunctionSaysWhoIsCharged(t *testing.T) {
	for _, b := range chargeDecisions(t, ".") {
		t.Error(b)
	}
	planted := t.TempDir()
	os.WriteFile(filepath.Join(planted, "x.go"), []byte("package x\n\nfunc f(p bool) string {\n\tif info.Public {\n\t\treturn \"public\"\n\t}\n\treturn \"anonymous\"\n}\n"), 0o644)
	if got := chargeDecisions(t, planted); len(got) != 2 {
		t.Errorf("a planted decision: found %q, want its two lines", got)
	}
}

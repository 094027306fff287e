package main

import (
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// check-config answers in a few lines an admin can read: a header, one
// line per connector with its id, module, tool count, quotas, the client
// features it asked for and was granted, and the sha256 line to pin it,
// then "config OK". The loading log stays out
// unless -v. Catches the former 14 INFO lines around a two-part answer.
func TestCheckConfigOutput(t *testing.T) {
	obv := wasmbuild.Path(t, "./plugins/obv/cmd")
	rs := wasmbuild.Path(t, "./plugins/rechtspraak/cmd")
	cfg := writeConfig(t, "[runtime]\ncompilation_cache_dir='"+compileDir(t)+"'\n[server]\naddr='127.0.0.1:0'\n[connectors.obv]\nmodule='"+obv+"'\n[connectors.rechtspraak]\nmodule='"+rs+"'\nexpose=false\n")
	code, out, errs := runCmd("check-config", "--config", cfg)
	if code != 0 {
		t.Fatalf("check-config: %d\n%s\n%s", code, out, errs)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 4 {
		t.Errorf("want a header, 2 connector lines and config OK, got %d lines:\n%s", len(lines), out)
	}
	line := map[string]*regexp.Regexp{
		"obv":         regexp.MustCompile(`^obv +` + regexp.QuoteMeta(obv) + ` +4 tools +openbesluitvorming\.nl 60/1m +elicitation asked for, not granted \(connectors\.obv\.grant\) +sha256 = "[0-9a-f]{64}"$`),
		"rechtspraak": regexp.MustCompile(`^rechtspraak +` + regexp.QuoteMeta(rs) + ` +\d+ tools \(0 on unified\) +data\.rechtspraak\.nl 10/1s +none asked +sha256 = "[0-9a-f]{64}"$`),
	}
	for id, re := range line {
		if !slicesAny(lines, re.MatchString) {
			t.Errorf("no line for %s matching %s in:\n%s", id, re, out)
		}
	}
	// obv's 4 tools and the host's own on the unified address,
	// rechtspraak's none (TestCheckConfigCountsWhatToolsListLists holds
	// the count to a real tools/list).
	last := lines[len(lines)-1]
	m := listedRe.FindStringSubmatch(last)
	if !strings.HasPrefix(last, "config OK: "+cfg+", 2 connectors with ") || m == nil {
		t.Fatalf("last line %q", last)
	}
	if listed, own := atoi(t, m[1]), atoi(t, m[2]); own < 2 || listed != 4+own {
		t.Errorf("last line %q: want obv's 4 tools and the host's own (besluitbron_search, besluitbron_status at least) listed", last)
	}
	if strings.Contains(errs, "level=INFO") || strings.Contains(out, "level=") {
		t.Errorf("log lines without -v:\nstdout %s\nstderr %s", out, errs)
	}
	code, out2, errs := runCmd("check-config", "-v", "--config", cfg)
	if code != 0 || !strings.Contains(errs, "connector loaded") || out2 != out {
		t.Errorf("-v: %d, stderr %q; stdout changed: %v", code, errs, out2 != out)
	}
}

// check-config refuses exactly what serve refuses, with the same words: it
// loads the file and the connectors through the same path. Catches
// `addr = 8080` passing check-config and failing only at serve.
func TestCheckConfigRefusesWhatServeRefuses(t *testing.T) {
	obv := wasmbuild.Path(t, "./plugins/obv/cmd")
	mod := "[runtime]\ncompilation_cache_dir='" + compileDir(t) + "'\n[connectors.obv]\nmodule='" + obv + "'\n"
	for _, c := range []struct{ body, want string }{
		{"[server]\naddr = 8080\n" + mod, `server.addr: want "host:port" in quotes`},
		{"[server]\naddr = \"8080\"\n" + mod, `server.addr "8080" is a port without a host`},
		{"[server]\nshutdown_timeout = 10\n" + mod, "server.shutdown_timeout: want a duration in quotes"},
		{"[runtime]\ncompilation_cache_dir=''\n[connector.obv]\nmodule='" + obv + "'\n", "connector: unknown key (did you mean connectors?)"},
		// A free port, so that serve reaches the connectors; 8080 may be
		// busy on a developer's machine and then, rightly, fails first.
		{"[server]\naddr = \"127.0.0.1:0\"\n[runtime]\ncompilation_cache_dir=''\n", "no connectors: add a [connectors.<id>] table"},
		{"[server]\naddr = \"127.0.0.1:0\"\n" + mod + "[connectors.tk]\nmodule = 'bin/plugins/tk.wasm'\n", "connectors.tk.module: no file at "},
		{"[server]\naddr = \"127.0.0.1:0\"\ntools = [\"[\"]\n" + mod, `server.tools[0] "["`},
		{"[server\n" + mod, ":1:8: TOML syntax error"},
	} {
		cfg := writeConfig(t, c.body)
		code, _, checkErr := runCmd("check-config", "--config", cfg)
		if code != 1 || !strings.Contains(checkErr, c.want) {
			t.Errorf("check-config %q: %d %q, want 1 and %q", c.body, code, checkErr, c.want)
		}
		code, _, serveErr := runCmd("serve", "--config", cfg)
		// serve logs its start at info (the address it listens on while
		// the connectors load, a line per connector); check-config only
		// warnings. The rest must be the same, word for word.
		serveErr = withoutInfo(serveErr)
		if code != 1 || serveErr != checkErr {
			t.Errorf("serve %q: %d %q, want 1 and check-config's %q", c.body, code, serveErr, checkErr)
		}
	}
	// The --addr flag is checked as server.addr is.
	cfg := writeConfig(t, mod)
	if code, _, errs := runCmd("serve", "--config", cfg, "--addr", "8080"); code != 2 || !strings.Contains(errs, `--addr "8080" is a port without a host`) {
		t.Errorf("--addr 8080: %d %q", code, errs)
	}
}

// A busy address stops serve before any connector loads, naming the
// address. The config's second connector has no module file: had the
// connectors loaded first, the error would name that file instead. The
// time to fail is logged (the figure in issue 17's report). Catches a
// listener bound only after every connector had loaded (seconds, more
// on a cold compilation cache).
func TestServeFailsFastOnBusyAddress(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	obv := wasmbuild.Path(t, "./plugins/obv/cmd")
	cfg := writeConfig(t, "[runtime]\ncompilation_cache_dir=''\n[server]\naddr='"+busy.Addr().String()+"'\n[connectors.obv]\nmodule='"+obv+"'\n[connectors.tk]\nmodule='"+filepath.Join(t.TempDir(), "tk.wasm")+"'\n")
	start := time.Now()
	code, _, errs := runCmd("serve", "--config", cfg)
	took := time.Since(start)
	want := "besluitbron: server.addr " + busy.Addr().String() + ": address already in use"
	if code != 1 || !strings.HasPrefix(errs, want) {
		t.Fatalf("serve on a busy address: %d %q, want 1 and %q", code, errs, want)
	}
	t.Logf("serve failed on the busy address in %v", took)
	if took > time.Second {
		t.Errorf("serve took %v to report a busy address, want under a second", took)
	}
	// check-config does not fail on it (the server it checks may be the
	// one holding the address) but says so.
	okCfg := writeConfig(t, "[runtime]\ncompilation_cache_dir='"+compileDir(t)+"'\n[server]\naddr='"+busy.Addr().String()+"'\n[connectors.obv]\nmodule='"+obv+"'\n")
	if code, out, errs := runCmd("check-config", "--config", okCfg); code != 0 || !strings.Contains(out, "note: server.addr "+busy.Addr().String()+": address already in use") {
		t.Errorf("check-config on a busy address: %d %q %q", code, out, errs)
	}
}

// withoutInfo drops the info lines of a text log from stderr.
func withoutInfo(stderr string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(stderr, "\n") {
		if !strings.Contains(l, " level=INFO ") {
			b.WriteString(l)
		}
	}
	return b.String()
}

// listedRe finds check-config's count of the unified address's tools.
var listedRe = regexp.MustCompile(`/mcp/unified/v1 lists (\d+) tools? \((\d+) of them BesluitBron's own besluitbron_\*\)`)

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func slicesAny(lines []string, f func(string) bool) bool {
	for _, l := range lines {
		if f(l) {
			return true
		}
	}
	return false
}

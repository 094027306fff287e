package host_test

import (
	"bufio"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/syncbuf"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// These tests run the built binary as an admin does: `besluitbron serve`,
// stopped with SIGTERM and started again, two builds for an upgrade, and
// the `besluitbron cache` commands on the same folder.

var (
	binMu sync.Mutex
	bins  = map[string]string{}
)

// binary builds cmd/besluitbron with main.version set, once per version.
func binary(t *testing.T, version string) string {
	t.Helper()
	binMu.Lock()
	defer binMu.Unlock()
	if p, ok := bins[version]; ok {
		return p
	}
	p := filepath.Join(binDir(t), "besluitbron-"+version)
	cmd := exec.Command("go", "build", "-ldflags", "-X main.version="+version, "-o", p, "./cmd/besluitbron")
	cmd.Dir = wasmbuild.Root()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building version %s: %v\n%s", version, err, out)
	}
	bins[version] = p
	return p
}

// lockedBuffer collects log lines written while the test reads them.
type lockedBuffer = syncbuf.Buffer

// server is one running `besluitbron serve`.
type server struct {
	cmd  *exec.Cmd
	base string
	log  *lockedBuffer
}

var servingAddr = regexp.MustCompile(`msg=serving addr=(\S+)`)

func startServer(t *testing.T, bin, cfg string) *server {
	t.Helper()
	s := &server{cmd: exec.Command(bin, "serve", "--config", cfg, "--addr", "127.0.0.1:0"), log: &lockedBuffer{}}
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.log.Write([]byte(sc.Text() + "\n"))
			if m := servingAddr.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		close(addr)
	}()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
			s.cmd.Wait()
		}
	})
	select {
	case a, ok := <-addr:
		if !ok {
			s.cmd.Wait()
			t.Fatalf("%s exited before serving:\n%s", filepath.Base(bin), s.log)
		}
		s.base = "http://" + a
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s did not start serving:\n%s", filepath.Base(bin), s.log)
	}
	return s
}

// stop sends SIGTERM and expects a clean exit.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("after SIGTERM: %v\n%s", err, s.log)
	}
	if strings.Contains(s.log.String(), "level=WARN") {
		t.Errorf("warnings:\n%s", s.log)
	}
}

// search calls obv_search over streamable HTTP and returns the cache
// outcome.
func (s *server) search(t *testing.T) string {
	t.Helper()
	cs := connect(t, s.base+mcpPath)
	defer cs.Close()
	return cacheOutcome(t, callTool(t, cs, "obv_search", searchArgs))
}

// gauge reads one sample from /metrics.
func (s *server) gauge(t *testing.T, sample string) float64 {
	t.Helper()
	r, err := http.Get(s.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, sample+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	t.Fatalf("no %s in /metrics", sample)
	return 0
}

func processConfig(t *testing.T, upstream string) string {
	t.Helper()
	wasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	return writeConfig(t, `
[runtime]
compilation_cache_dir = "`+sharedCompilationCache(t)+`"
[log]
level = "info"
[cache]
dir = "`+filepath.Join(t.TempDir(), "cache")+`"
[connectors.obv]
module = "`+wasm+`"
base_url = "`+upstream+`"
private_networks = ["127.0.0.0/8"]
pool_size = 2
`)
}

// admin runs `besluitbron cache …` and returns its output.
func admin(t *testing.T, bin string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, append([]string{"cache"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("besluitbron cache %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// classRow returns the figures of one class row of `cache stats`.
func classRow(t *testing.T, stats, class string) []string {
	t.Helper()
	for _, line := range strings.Split(stats, "\n") {
		f := strings.Fields(line)
		if len(f) > 8 && f[0] == class {
			return f
		}
	}
	t.Fatalf("no %s row in:\n%s", class, stats)
	return nil
}

// Restart: the second run answers from the cache the first one saved at
// SIGTERM. A clear while running empties the running server's copy.
func TestBinaryRestartKeepsCache(t *testing.T) {
	if proofRace() {
		t.Skip("the server is a binary built without -race (see proofRace); the plain run covers it")
	}
	p := newCachePlatform(t)
	cfg := processConfig(t, p.URL)
	bin := binary(t, "1.0.0-a")

	s := startServer(t, bin, cfg)
	if o := s.search(t); o != "miss" {
		t.Errorf("first run: %q", o)
	}
	s.stop(t)

	s = startServer(t, bin, cfg)
	if o := s.search(t); o != "hit" {
		t.Errorf("after restart: %q", o)
	}
	if n := p.count("/api/search"); n != 1 {
		t.Errorf("platform saw %d requests, want 1", n)
	}

	// The admin clears obv while the server runs.
	if out := admin(t, bin, "clear", "obv", "--config", cfg); !strings.Contains(out, "cleared the cache of obv") {
		t.Errorf("clear: %s", out)
	}
	deadline := time.Now().Add(time.Minute)
	for s.gauge(t, `besluitbron_cache_entries{platform="obv"}`) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the running server never applied the clear")
		}
	}
	if o := s.search(t); o != "miss" || p.count("/api/search") != 2 {
		t.Errorf("after clear: %q, platform saw %d", o, p.count("/api/search"))
	}
	s.stop(t)

	stats := admin(t, bin, "stats", "--config", cfg)
	t.Logf("besluitbron cache stats:\n%s", stats)
	// platform class ttl entries bytes(2 fields) expired old hits misses …
	if f := classRow(t, stats, "search"); f[1] != "10m0s" || f[2] != "1" || f[5] != "0" || f[6] != "0" || f[7] != "1" || f[8] != "2" {
		t.Errorf("stats row %v:\n%s", f, stats)
	}
}

// Upgrade: after a new build the first call goes to the platform, the next
// is a hit; the old entry is counted as a version discard.
func TestBinaryUpgradeAsksAgainOnce(t *testing.T) {
	if proofRace() {
		t.Skip("the server is a binary built without -race (see proofRace); the plain run covers it")
	}
	p := newCachePlatform(t)
	cfg := processConfig(t, p.URL)
	a, b := binary(t, "1.0.0-a"), binary(t, "1.0.0-b")

	s := startServer(t, a, cfg)
	s.search(t)
	s.stop(t)
	if f := classRow(t, admin(t, b, "stats", "--config", cfg), "search"); f[6] != "1" {
		t.Errorf("before the upgrade, the new build should count 1 old-version entry: %v", f)
	}

	s = startServer(t, b, cfg)
	for i, want := range []string{"miss", "hit"} {
		if o := s.search(t); o != want {
			t.Errorf("after the upgrade, call %d: %q, want %q", i, o, want)
		}
	}
	if n := p.count("/api/search"); n != 2 {
		t.Errorf("platform saw %d requests, want 2", n)
	}
	s.stop(t)
	stats := admin(t, b, "stats", "--config", cfg, "--json")
	if !strings.Contains(stats, `"version_discards": 1`) || !strings.Contains(stats, `"version": "1.0.0-b"`) {
		t.Errorf("stats after the upgrade:\n%s", stats)
	}
}

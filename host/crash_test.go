package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// crashBinary is cmd/besluitbron as the cache tests build it first
// (binary, version 1.0.0-a): the crash and hostile tests need a binary, not
// a version of their own, so the package links one fewer.
func crashBinary(t *testing.T) string {
	t.Helper()
	return binary(t, "1.0.0-a")
}

// crashPlatforms are the platforms the crash test caches (three suffice:
// each has its own cache folder and saves on its own).
var crashPlatforms = []string{"obv", "rechtspraak", "tk"}

// crashServer is one run of the binary.
type crashServer struct {
	cmd  *exec.Cmd
	base string
	log  *lockedLog
}

type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServer runs `besluitbron serve` and waits until it is ready.
func startCrashServer(t *testing.T, bin, cfg string) *crashServer {
	t.Helper()
	addr := freeAddr(t)
	s := &crashServer{base: "http://" + addr, log: &lockedLog{}}
	s.cmd = exec.Command(bin, "serve", "--config", cfg, "--addr", addr)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
			s.cmd.Wait()
		}
	})
	deadline := time.Now().Add(90 * time.Second)
	for {
		resp, err := http.Get(s.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not ready after 90 s:\n%s", s.log.String())
		}
		time.Sleep(50 * time.Millisecond) // polling a child process, not synchronising goroutines
	}
}

// killDuringSave waits until some platform's cache folder holds a save in
// progress (a tmp- folder) and kills the process with SIGKILL right then;
// after timeout it kills anyway. It reports whether a save was caught.
func killDuringSave(t *testing.T, s *crashServer, cacheDir string, timeout time.Duration) bool {
	t.Helper()
	caught := false
	for end := time.Now().Add(timeout); time.Now().Before(end) && !caught; {
		for _, id := range crashPlatforms {
			entries, _ := os.ReadDir(filepath.Join(cacheDir, id))
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), "tmp-") {
					caught = true
				}
			}
		}
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s.cmd.Wait()
	return caught
}

// TestKillDuringCacheSave kills the server with SIGKILL while a cache save
// is being written, several times, under traffic that keeps changing the
// caches. Every next start comes up, and every answer it gives from its
// cache is the one the platform gave: the last good cache or an empty one,
// never a corrupt one.
func TestKillDuringCacheSave(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and three connectors")
	}
	if proofRace() {
		t.Skip("the server is a binary built without -race (see proofRace); the plain run covers it")
	}
	bin := crashBinary(t)
	_, simURL := proofSim(t)
	cacheDir := t.TempDir()
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "[log]\nlevel = \"info\"\n[runtime]\ncompilation_cache_dir = %q\n[cache]\ndir = %q\nsave_interval = \"100ms\"\n[status]\nenabled = false\n[mcp_rate_limit]\nenabled = false\n",
		proofCompileDir(t), cacheDir)
	urls, rewrites := platformsim.BaseURLs(simURL), platformsim.URLRewrites(simURL)
	for _, id := range crashPlatforms {
		fmt.Fprintf(&cfg, "[connectors.%s]\nmodule = %q\nbase_url = %q\nprivate_networks = [\"127.0.0.0/8\"]\n", id, wasmbuild.Path(t, "./plugins/"+id+"/cmd"), urls[id])
		for _, rw := range rewrites[id] {
			fmt.Fprintf(&cfg, "url_rewrites = [%q]\n", rw)
		}
	}
	cfgPath := filepath.Join(t.TempDir(), "crash.toml")
	if err := os.WriteFile(cfgPath, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	type key struct {
		id string
		i  int
	}
	answers := map[key]string{} // what the platform said, through BesluitBron
	kills, caught := 3, 0
	if soakDuration(0) > 0 {
		kills = 20
	}
	next := 0
	for k := 0; k <= kills; k++ {
		s := startCrashServer(t, bin, cfgPath)
		if out := s.log.String(); strings.Contains(out, "panic") {
			t.Fatalf("start %d:\n%s", k, out)
		}
		c := newProofClient(t, s.base, "crash")
		// Earlier answers, now possibly from the restored cache: each
		// must be exactly what the platform said.
		hits := 0
		for kk, want := range answers {
			tool, args := proofSearch(kk.id, kk.i)
			r := c.call(context.Background(), kk.id, tool, args)
			if r.err != nil || r.res.IsError {
				t.Fatalf("start %d: %s %v: %v %s", k, tool, args, r.err, resultText(r.res))
			}
			if cacheMeta(r.res) == "hit" {
				hits++
			}
			if got := resultText(r.res); got != want {
				t.Fatalf("start %d: %s %v answered from %s differs from the platform's answer:\n got %s\nwant %s", k, tool, args, cacheMeta(r.res), shortText(got), shortText(want))
			}
		}
		t.Logf("start %d: %d earlier answers checked, %d from the restored cache", k, len(answers), hits)
		if k == kills {
			c.close()
			break
		}
		// Traffic that changes the caches while saves run every 100 ms.
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		for w := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					mu.Lock()
					i := next
					next++
					mu.Unlock()
					id := crashPlatforms[(i+w)%len(crashPlatforms)]
					tool, args := proofSearch(id, i)
					r := c.call(context.Background(), id, tool, args)
					if r.err == nil && !r.res.IsError && cacheMeta(r.res) == "miss" {
						mu.Lock()
						answers[key{id, i}] = resultText(r.res)
						mu.Unlock()
					}
				}
			}()
		}
		// Let a few saves complete before aiming for one in progress.
		time.Sleep(500 * time.Millisecond) // traffic duration, not synchronisation
		if killDuringSave(t, s, cacheDir, 10*time.Second) {
			caught++
		}
		close(stop)
		wg.Wait()
		c.close()
	}
	if caught == 0 {
		t.Errorf("none of %d kills caught a save in progress", kills)
	}
	// The saved caches read cleanly with the admin's tool.
	out, err := exec.Command(bin, "cache", "stats", "--json", "--config", cfgPath).CombinedOutput()
	if err != nil || !json.Valid(out) {
		t.Errorf("cache stats after the kills: %v\n%s", err, out)
	}
	t.Logf("%d kills, %d during a save in progress", kills, caught)
}

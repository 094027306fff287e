package redistest

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Server is one redis-server process.
type Server struct {
	t    testing.TB
	bin  string
	dir  string
	cmd  *exec.Cmd
	Addr string // host:port
}

// Start starts redis-server and stops it when the test ends. It skips the
// test when redis-server is not installed, unless BESLUITBRON_REQUIRE_REDIS
// is set, for machines where a skipped test must not pass unnoticed.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("BESLUITBRON_REQUIRE_REDIS") != "" {
			t.Fatal("redis-server is not installed and BESLUITBRON_REQUIRE_REDIS is set: run scripts/install-redis.sh as root")
		}
		t.Skip("redis-server is not installed (scripts/install-redis.sh installs it; make test does as root)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, bin: bin, dir: t.TempDir(), Addr: ln.Addr().String()}
	ln.Close()
	s.Restart()
	t.Cleanup(s.Kill)
	return s
}

// URL is the server's redis:// address, database 0.
func (s *Server) URL() string { return "redis://" + s.Addr + "/0" }

// Restart starts the process again on the same port (after Kill), empty,
// and returns once it answers PING.
func (s *Server) Restart() {
	s.t.Helper()
	_, port, _ := net.SplitHostPort(s.Addr)
	s.cmd = exec.Command(s.bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--logfile", filepath.Join(s.dir, "redis.log"))
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !s.answers(); {
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			s.t.Fatalf("redis-server on %s did not answer:\n%s", s.Addr, b)
		}
		time.Sleep(10 * time.Millisecond) // waiting for a process to start, not synchronising the test
	}
}

// answers sends a bare PING in RESP: no client library needed.
func (s *Server) answers() bool {
	c, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	fmt.Fprint(c, "PING\r\n")
	b := make([]byte, 7)
	n, _ := io.ReadFull(c, b)
	return string(b[:n]) == "+PONG\r\n"
}

// Kill ends the process at once (SIGKILL), as a crash would.
func (s *Server) Kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

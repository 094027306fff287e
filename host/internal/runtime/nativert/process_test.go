//go:build unix

package nativert_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/besluitbron/besluitbron/host/internal/runtime/nativert"
	"github.com/besluitbron/besluitbron/host/internal/testsupport/nativerttest"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
)

const statsURL = "https://openbesluitvorming.nl/api/stats"

func statsBody(t *testing.T) []byte {
	b, err := os.ReadFile(filepath.Join(wasmbuild.Root(), "testdata", "obv", "obv-stats.json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// logBuffer collects log records (slog handlers may be used concurrently).
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func load(t *testing.T, id, pkg string, logs io.Writer) *nativert.Connector {
	t.Helper()
	bin := nativerttest.Build(t, pkg)
	if logs == nil {
		logs = io.Discard
	}
	c, err := nativert.Load(t.Context(), nativert.Options{
		ID: id, Path: bin, SHA256: nativerttest.SHA256(t, bin),
		Logger: slog.New(slog.NewTextHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func stats(t *testing.T, c connector.Connector, h connector.Host) (connector.CallResult, error) {
	return c.Call(t.Context(), connector.CallRequest{Tool: "stats", Arguments: json.RawMessage(`{}`)}, h)
}

func TestProcessCall(t *testing.T) {
	c := load(t, "example", "./host/internal/runtime/nativert/testdata/guests/example", nil)
	m, _ := c.Describe(t.Context())
	if m.ID != "example" || len(m.Tools) != 4 {
		t.Fatalf("manifest %+v", m)
	}
	h := sdktest.NewHost(t).HandleBody(statsURL, 200, statsBody(t))
	res, err := stats(t, c, h)
	if err != nil || res.IsError || !strings.Contains(res.Text, `"documents":3045470`) {
		t.Fatalf("stats: %+v, %v", res, err)
	}
	if r := h.Requests(); len(r) != 1 || r[0].Service != "api" || r[0].CacheClass != "stats" {
		t.Errorf("the host saw %+v, want the connector's one fetch", r)
	}
}

// blockingHost holds every fetch until its context ends, telling the
// test it has one.
type blockingHost struct{ entered chan struct{} }

func (h blockingHost) Fetch(ctx context.Context, _ connector.FetchRequest) (connector.FetchResponse, error) {
	h.entered <- struct{}{}
	<-ctx.Done()
	return connector.FetchResponse{}, &connector.FetchError{Kind: connector.FetchCanceled, Message: ctx.Err().Error()}
}
func (blockingHost) Log(context.Context, int, string) {}

// pidOf reads the pid the runtime logged at the latest start.
func pidOf(t *testing.T, logs string) string {
	t.Helper()
	i := strings.LastIndex(logs, "connector process started")
	if i < 0 {
		t.Fatalf("no start logged:\n%s", logs)
	}
	_, rest, _ := strings.Cut(logs[i:], "pid=")
	pid, _, _ := strings.Cut(rest, " ")
	return pid
}

// TestKillMidCall: SIGKILL the process while a call waits in the host's
// fetch. The call fails with an error naming the connector (a tool error
// at the MCP layer); another connector's process does not notice; the
// next call starts a new process and succeeds.
func TestKillMidCall(t *testing.T) {
	var logs logBuffer
	c := load(t, "example", "./host/internal/runtime/nativert/testdata/guests/example", &logs)
	other := load(t, "obv", "./plugins/obv/cmd", nil)
	pid := pidOf(t, logs.String())

	h := blockingHost{entered: make(chan struct{}, 1)}
	errc := make(chan error, 1)
	go func() { _, err := stats(t, c, h); errc <- err }()
	<-h.entered
	kill(t, pid)
	err := <-errc
	if err == nil || !strings.Contains(err.Error(), `connector "example": its process died during the call and will be restarted`) {
		t.Fatalf("call on a killed process: %v", err)
	}

	// The other connector's process is untouched.
	sources := sdktest.NewHost(t).Handle("https://openbesluitvorming.nl/api/sources?implemented=true", 200, filepath.Join(wasmbuild.Root(), "testdata", "obv", "obv-sources.json"))
	if res, err := other.Call(t.Context(), connector.CallRequest{Tool: "list_sources", Arguments: json.RawMessage(`{}`)}, sources); err != nil || res.IsError {
		t.Fatalf("the other connector after the kill: %+v, %v", res, err)
	}

	res, err := stats(t, c, sdktest.NewHost(t).HandleBody(statsURL, 200, statsBody(t)))
	if err != nil || res.IsError {
		t.Fatalf("call after the kill: %+v, %v", res, err)
	}
	if again := pidOf(t, logs.String()); again == pid {
		t.Errorf("the call ran on pid %s, the killed one", again)
	}
	if !strings.Contains(logs.String(), "connector process lost") {
		t.Errorf("the loss was not logged:\n%s", logs.String())
	}
}

func kill(t *testing.T, pid string) {
	t.Helper()
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatalf("pid %q: %v", pid, err)
	}
	if err := syscall.Kill(n, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -KILL %d: %v", n, err)
	}
}

// TestBinaryReplacedIsRefused: the checksum pinned at load guards every
// restart; a binary swapped on disk is not run.
func TestBinaryReplacedIsRefused(t *testing.T) {
	src := nativerttest.Build(t, "./host/internal/runtime/nativert/testdata/guests/example")
	bin := filepath.Join(t.TempDir(), "example")
	copyFile(t, src, bin)
	var logs logBuffer
	c, err := nativert.Load(t.Context(), nativert.Options{ID: "example", Path: bin, SHA256: nativerttest.SHA256(t, bin), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	pid := pidOf(t, logs.String())
	copyFile(t, nativerttest.Build(t, "./plugins/obv/cmd"), bin)
	kill(t, pid)
	_, err = stats(t, c, sdktest.NewHost(t))
	for err != nil && strings.Contains(err.Error(), "died during the call") {
		_, err = stats(t, c, sdktest.NewHost(t)) // the kill raced the call
	}
	if err == nil || !strings.Contains(err.Error(), "changed on disk") || !strings.Contains(err.Error(), c.SHA256()) {
		t.Fatalf("call after the binary changed: %v", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(to) // a running binary cannot be rewritten in place
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestLoadRefusals(t *testing.T) {
	example := nativerttest.Build(t, "./host/internal/runtime/nativert/testdata/guests/example")
	cases := []struct {
		name string
		o    nativert.Options
		want []string
	}{
		{"checksum", nativert.Options{ID: "example", Path: example, SHA256: strings.Repeat("0", 64)}, []string{`loading connector "example"`, "has sha256 " + nativerttest.SHA256(t, example), "pinned " + strings.Repeat("0", 64)}},
		{"bad sha256", nativert.Options{ID: "example", Path: example, SHA256: "abc"}, []string{`sha256 "abc"`, "64 lower-case hex"}},
		{"wrong id", nativert.Options{ID: "other", Path: example}, []string{`process declares id "example", configured as "other"`}},
		{"not a connector", nativert.Options{ID: "junk", Path: nativerttest.Build(t, "./host/internal/runtime/nativert/testdata/guests/junk")}, []string{"is not a BesluitBron native connector", "its first line was hello, I am not a connector", "native.Main()"}},
		{"no native.Main", nativert.Options{ID: "example", Path: nativerttest.Build(t, "./host/internal/runtime/nativert/testdata/guests/noserve")}, []string{"is not a BesluitBron native connector", "exited without answering", "native.Main()"}},
		{"missing", nativert.Options{ID: "example", Path: filepath.Join(t.TempDir(), "nope"), SHA256: strings.Repeat("1", 64)}, []string{"nope", "no such file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.o.SHA256 == "" {
				c.o.SHA256 = nativerttest.SHA256(t, c.o.Path)
			}
			c.o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
			conn, err := nativert.Load(t.Context(), c.o)
			if err == nil {
				conn.Close(context.Background())
				t.Fatal("loaded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestLoadABIMismatch(t *testing.T) {
	bin := nativerttest.Build(t, "./host/internal/runtime/nativert/testdata/guests/badabi")
	_, err := nativert.Load(t.Context(), nativert.Options{ID: "example", Path: bin, SHA256: nativerttest.SHA256(t, bin), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	var abi *connector.ABIError
	if !errors.Is(err, connector.ErrABIMismatch) || !errors.As(err, &abi) || abi.Connector != "example" || abi.Got != connector.ABIVersion+1 || abi.Want != connector.ABIVersion {
		t.Fatalf("err = %v, want an ABIError naming example, %d and %d", err, connector.ABIVersion+1, connector.ABIVersion)
	}
}

// TestRunByHand: the binary started without the host's magic cookie says
// what it is and exits 1.
func TestRunByHand(t *testing.T) {
	bin := nativerttest.Build(t, "./host/internal/runtime/nativert/testdata/guests/example")
	cmd := exec.Command(bin)
	cmd.Env = []string{}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1", err)
	}
	for _, w := range []string{`connector "example"`, `runtime = "process"`, `sha256 = "` + nativerttest.SHA256(t, bin) + `"`} {
		if !strings.Contains(string(out), w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

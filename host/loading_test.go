//go:build unix

package host_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sched/schedtest"
)

// notifyHandler hands every log message to a channel as well as to the
// text it writes: a test waits for a line instead of polling or sleeping.
type notifyHandler struct {
	slog.Handler
	msgs chan<- string
}

func (n notifyHandler) Handle(ctx context.Context, r slog.Record) error {
	select {
	case n.msgs <- r.Message:
	default: // a start logs a few dozen lines; a full channel must not stop the host
	}
	return n.Handler.Handle(ctx, r)
}

func (n notifyHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return notifyHandler{n.Handler.WithAttrs(as), n.msgs}
}

func (n notifyHandler) WithGroup(g string) slog.Handler {
	return notifyHandler{n.Handler.WithGroup(g), n.msgs}
}

// waitForLog reads messages until one contains want.
func waitForLog(t *testing.T, msgs <-chan string, want string) {
	t.Helper()
	for m := range msgs {
		if strings.Contains(m, want) {
			return
		}
	}
}

// httpGet answers an HTTP GET's status and body.
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A served host answers its health checks while its connectors load: the
// modules here are named pipes, so each load blocks in reading its file
// until the test writes the module into it (a first start's compilation,
// held as long as the test likes). Meanwhile /healthz is 200, /readyz 503
// "loading n of 2 connectors" counting up, the MCP address 503 with a
// Retry-After; each connector logs when it starts and how long it took,
// on the host's clock; once both are loaded /readyz is 200 and the MCP
// address lists the tools. Catches the former start, where New loaded
// every connector before Serve ran: nothing answered, /healthz included,
// for the 30 to 100 s a first start takes on two cores.
func TestHealthAnswersWhileConnectorsLoad(t *testing.T) {
	mods := map[string][]byte{}
	for _, id := range []string{"obv", "rechtspraak"} {
		b, err := os.ReadFile(wasmbuild.Path(t, "./plugins/"+id+"/cmd"))
		if err != nil {
			t.Fatal(err)
		}
		mods[id] = b
	}
	dir := t.TempDir()
	pipe := func(id string) string { return filepath.Join(dir, id+".wasm") }
	for id := range mods {
		if err := syscall.Mkfifo(pipe(id), 0o600); err != nil {
			t.Skipf("no named pipes here: %v", err)
		}
	}
	cfg, err := host.LoadConfig(writeConfig(t, `
[runtime]
compilation_cache_dir = "`+proofCompileDir(t)+`"
[cache]
enabled = false
[status]
enabled = false
[connectors.obv]
module = "`+pipe("obv")+`"
[connectors.rechtspraak]
module = "`+pipe("rechtspraak")+`"
`), []string{})
	if err != nil {
		t.Fatal(err)
	}
	msgs := make(chan string, 1000)
	clk := schedtest.NewClock(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	logger := slog.New(notifyHandler{slog.NewTextHandler(io.Discard, nil), msgs})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ln, err := host.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(ctx, &host.Options{Config: cfg, Version: "9.9.9-test", Logger: logger, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- h.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()

	if code, body := httpGet(t, base+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz while loading: %d %q, want 200 ok", code, body)
	}
	if code, body := httpGet(t, base+"/readyz"); code != 503 || !strings.HasPrefix(body, "loading 0 of 2 connectors") {
		t.Errorf("/readyz while loading: %d %q, want 503 loading 0 of 2 connectors", code, body)
	}
	resp, err := http.Post(base+"/mcp/unified/v1", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("MCP while loading: %d, Retry-After %q; want 503 with a Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}

	// release opens the pipe for writing, which returns once the host has
	// opened it for reading (and so has taken its start time), lets
	// took pass on the host's clock, then writes the module.
	release := func(id string, took time.Duration) {
		f, err := os.OpenFile(pipe(id), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		clk.Advance(took)
		if _, err := f.Write(mods[id]); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	release("obv", 12300*time.Millisecond)
	waitForLog(t, msgs, "obv ready in 12.3 s (1 of 2 loaded)")
	if code, body := httpGet(t, base+"/readyz"); code != 503 || !strings.HasPrefix(body, "loading 1 of 2 connectors") {
		t.Errorf("/readyz with obv loaded: %d %q, want 503 loading 1 of 2 connectors", code, body)
	}
	release("rechtspraak", 700*time.Millisecond)
	if err := h.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if code, body := httpGet(t, base+"/readyz"); code != 200 || body != "ready\n" {
		t.Errorf("/readyz once loaded: %d %q, want 200 ready", code, body)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp/unified/v1"}, legacyClient)
	if err != nil {
		t.Fatal(err)
	}
	lt, err := cs.ListTools(ctx, nil)
	cs.Close()
	if err != nil || len(lt.Tools) == 0 {
		t.Fatalf("tools/list once loaded: %v", err)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	h.Close(context.Background())
}

// A load that fails ends Serve with its error, as New's did: serve exits
// with it instead of answering 503 for ever.
func TestServeReturnsLoadError(t *testing.T) {
	cfg, err := host.LoadConfig(writeConfig(t, `
[status]
enabled = false
[connectors.tk]
module = "`+filepath.Join(t.TempDir(), "tk.wasm")+`"
`), []string{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := host.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.Open(context.Background(), &host.Options{Config: cfg, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	err = h.Serve(context.Background(), ln)
	if err == nil || !strings.Contains(err.Error(), "connectors.tk.module: no file at") {
		t.Fatalf("Serve: %v, want the load's error naming connectors.tk.module", err)
	}
	if werr := h.Wait(context.Background()); !errors.Is(werr, err) && werr.Error() != err.Error() {
		t.Errorf("Wait: %v, want Serve's %v", werr, err)
	}
}

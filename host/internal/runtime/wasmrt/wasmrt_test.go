package wasmrt_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"

	"github.com/besluitbron/besluitbron/host/internal/runtime/wasmrt"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
	"github.com/besluitbron/besluitbron/sdk/connector"
	"github.com/besluitbron/besluitbron/sdk/sdktest"
	"github.com/besluitbron/besluitbron/sdk/wasmabi"
)

var (
	compileOnce  sync.Once
	compileCache wazero.CompilationCache
	compileErr   error
)

// testCache is the compilation cache this package's tests load their
// guests with: the host tests' var/wazero-proof (git-ignored; wazero keys
// entries by module and wazero version), so a guest is compiled once per
// checkout, not once per test, and the -race step reuses what make test
// compiled before it (TestEveryGuestLoads, plain: compiling a 4 MB guest
// with the race-instrumented wazero takes 40 s; loading it from the cache
// 1 s). A cached module is the same compiled code, so no test's claim
// depends on it.
func testCache(tb testing.TB) wazero.CompilationCache {
	tb.Helper()
	compileOnce.Do(func() {
		d := filepath.Join(wasmbuild.Root(), "var", "wazero-proof")
		if compileErr = os.MkdirAll(d, 0o755); compileErr == nil {
			compileCache, compileErr = wazero.NewCompilationCacheWithDir(d)
		}
	})
	if compileErr != nil {
		tb.Fatal(compileErr)
	}
	return compileCache
}

func loadHostile(t *testing.T, o wasmrt.Options) *wasmrt.Connector {
	t.Helper()
	o.ID = "hostile"
	if o.CompilationCache == nil {
		o.CompilationCache = testCache(t)
	}
	o.Wasm = wasmbuild.Bytes(t, "./host/internal/runtime/wasmrt/testdata/guests/hostile")
	c, err := wasmrt.Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func call(c *wasmrt.Connector, tool, args string, h connector.Host) (connector.CallResult, error) {
	return c.Call(context.Background(), connector.CallRequest{Tool: tool, Arguments: json.RawMessage(args)}, h)
}

func mustEcho(t *testing.T, c *wasmrt.Connector) {
	t.Helper()
	res, err := call(c, "echo", `{"x":"één"}`, nil)
	if err != nil || res.IsError || res.Text != `{"echo":{"x":"één"}}` {
		t.Fatalf("echo after fault: %+v, %v", res, err)
	}
}

func TestHostileGuests(t *testing.T) {
	if raceEnabled {
		t.Skip("guest faults take minutes under the race detector; covered by the plain run")
	}
	// c's deadline only guards the test: each fault must end by its own
	// kind (the stack overflow took over 30 s on two busy cores, and was
	// then reported as a deadline).
	c := loadHostile(t, wasmrt.Options{PoolSize: 2, MemoryLimitMB: 48, CallTimeout: 10 * time.Minute, MaxOutputBytes: 1 << 20})
	short := loadHostile(t, wasmrt.Options{PoolSize: 1, CallTimeout: 500 * time.Millisecond})
	if !short.Instrumented || !c.Instrumented {
		// The endless loop below must be stopped by the loop budget
		// (package wasmbudget), the mechanism every sdk module runs on.
		t.Fatal("the hostile guest imports the interrupt check through the sdk, yet runs uninstrumented")
	}
	res, err := call(short, "loop", `{}`, nil)
	if err == nil || !strings.Contains(err.Error(), "deadline") {
		t.Errorf("endless loop: got %+v, %v; want a deadline error", res, err)
	}
	// The stopped instance is not reused. (That a fresh one then serves
	// is shown on c below, after each fault: on short it would have to be
	// made within the 500 ms deadline, which a busy machine does not
	// always manage.)
	if st := short.PoolStats(); st.Instances != 0 {
		t.Errorf("after a call stopped at its deadline: %+v, want its instance closed", st)
	}
	cases := []struct{ tool, want string }{
		{"hog", "out of memory"},
		{"exit", "exited with code 3"},
		{"overflow", "trapped"},
		{"bigout", "exceeds the 1048576-byte limit"},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			res, err := call(c, tc.tool, `{}`, nil)
			if err == nil {
				t.Fatalf("want an error, got %+v", res)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"hostile"`) {
				t.Errorf("error %q should name the connector and say %q", err, tc.want)
			}
			mustEcho(t, c)
		})
	}
	// A Go panic inside a tool is recovered by the sdk: a tool error, and
	// the instance is healthy.
	res, err = call(c, "panic", `{}`, nil)
	if err == nil && !res.IsError {
		t.Errorf("panic: want a tool error or an error, got %+v", res)
	}
	mustEcho(t, c)
}

func TestBadABI(t *testing.T) {
	_, err := wasmrt.Load(context.Background(), wasmrt.Options{ID: "badabi", CompilationCache: testCache(t), Wasm: wasmbuild.Bytes(t, "./host/internal/runtime/wasmrt/testdata/guests/badabi")})
	var abi *connector.ABIError
	if !errors.As(err, &abi) || !errors.Is(err, connector.ErrABIMismatch) || abi.Got != 99 || abi.Want != wasmabi.Version {
		t.Fatalf("got %v, want an ABI error 99 vs %d", err, wasmabi.Version)
	}
	if !strings.Contains(err.Error(), `"badabi"`) || !strings.Contains(err.Error(), "99") {
		t.Errorf("error should name connector and versions: %v", err)
	}
}

func TestNotAModule(t *testing.T) {
	for name, b := range map[string][]byte{"empty": nil, "garbage": []byte("\x00asm garbage"), "text": []byte("hello")} {
		if _, err := wasmrt.Load(context.Background(), wasmrt.Options{ID: "x", Wasm: b}); err == nil || !strings.Contains(err.Error(), `"x"`) {
			t.Errorf("%s: got %v, want an error naming the connector", name, err)
		}
	}
}

func TestWrongID(t *testing.T) {
	_, err := wasmrt.Load(context.Background(), wasmrt.Options{ID: "obv", CompilationCache: testCache(t), Wasm: wasmbuild.Bytes(t, "./host/internal/runtime/wasmrt/testdata/guests/hostile")})
	if err == nil || !strings.Contains(err.Error(), `declares id "hostile"`) {
		t.Fatalf("got %v", err)
	}
}

func TestFetchThroughHost(t *testing.T) {
	c := loadHostile(t, wasmrt.Options{})
	h := sdktest.NewHost(t).HandleBody("https://example.org/x", 200, []byte("hello"))
	res, err := call(c, "fetch", `{"URL":"https://example.org/x"}`, h)
	if err != nil || res.Text != `{"bytes":5,"status":200}` {
		t.Fatalf("%+v %v", res, err)
	}
	h.HandleErr("https://example.org/refused", &connector.FetchError{Kind: connector.FetchRefused, Message: "host not allowed"})
	res, err = call(c, "fetch", `{"URL":"https://example.org/refused"}`, h)
	if err != nil || !res.IsError || !strings.Contains(res.Text, "refused: host not allowed") {
		t.Fatalf("%+v %v", res, err)
	}
}

// TestHammer calls one connector from many goroutines: every answer must be
// its own (an instance is never shared), under -race.
func TestHammer(t *testing.T) {
	c := loadHostile(t, wasmrt.Options{PoolSize: 4})
	const P, N = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, P*N)
	for p := range P {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range N {
				arg := fmt.Sprintf(`{"p":%d,"n":%d}`, p, n)
				res, err := call(c, "echo", arg, nil)
				if err != nil || res.Text != `{"echo":`+arg+`}` {
					errs <- fmt.Errorf("%s: %+v %v", arg, res, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestGuestWithoutTheCheckRunsUninstrumented: a module that does not
// import the interrupt check (rawout is written without the sdk) still
// loads and answers, on wazero's own termination checks.
func TestGuestWithoutTheCheckRunsUninstrumented(t *testing.T) {
	c, err := wasmrt.Load(context.Background(), wasmrt.Options{ID: "rawout", CompilationCache: testCache(t), Wasm: wasmbuild.Bytes(t, "./host/internal/runtime/wasmrt/testdata/guests/rawout")})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if c.Instrumented {
		t.Fatal("rawout does not import the interrupt check, yet runs instrumented")
	}
	res, err := call(c, "any", `{"out":"eyJ0ZXh0Ijoib2sifQ==","rc":0}`, nil)
	if err != nil || res.Text != "ok" {
		t.Fatalf("call: %+v, %v", res, err)
	}
}

// TestABIVersion1Guest: a module of ABI version 1 (JSON payloads, built by
// an sdk before version 2) still loads and is served in JSON: its call,
// its fetch, its kept-text page.
func TestABIVersion1Guest(t *testing.T) {
	c, err := wasmrt.Load(context.Background(), wasmrt.Options{ID: "abiv1", CompilationCache: testCache(t), Wasm: wasmbuild.Bytes(t, "./host/internal/runtime/wasmrt/testdata/guests/abiv1")})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	h := sdktest.NewHost(t).HandleBody("https://example.org/x", 200, []byte("hé <b>"))
	if err := h.PutText(context.Background(), connector.ExtractedText{TextKey: connector.TextKey{Key: "https://example.org/x", CacheClass: "document"}, Pages: []string{"kept"}}); err != nil {
		t.Fatal(err)
	}
	res, err := call(c, "get", `{"url":"https://example.org/x"}`, h)
	want := `{"body":"hé \u003cb\u003e","kept":"kept","status":200}`
	if err != nil || res.IsError || res.Text != want || string(res.Structured) != want {
		t.Fatalf("got %+v %v, want %s", res, err, want)
	}
	h.HandleErr("https://example.org/refused", &connector.FetchError{Kind: connector.FetchRefused, Message: "host not allowed"})
	res, err = call(c, "get", `{"url":"https://example.org/refused"}`, h)
	if err != nil || !res.IsError || res.Text != "refused: host not allowed" {
		t.Fatalf("%+v %v", res, err)
	}
}

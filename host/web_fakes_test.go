package host

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// fakePlatform serves recorded answers of one platform from testdata and
// can be failed: while down, it drops every connection unanswered, as a
// platform whose server is gone does.
type fakePlatform struct {
	srv  *httptest.Server
	down atomic.Bool
	hits atomic.Int64
}

func newFakePlatform(t *testing.T, dir string, route func(r *http.Request) (status int, file, ctype string)) *fakePlatform {
	t.Helper()
	root := filepath.Join(wasmbuild.Root(), "testdata", dir)
	f := &fakePlatform{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.hits.Add(1)
		if f.down.Load() {
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					c.Close()
					return
				}
			}
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusOK)
			return
		}
		status, file, ctype := route(r)
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		if file == "" {
			return
		}
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Errorf("fake %s: %v", dir, err)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// fakeOBVPlatform answers OpenBesluitvorming's search, entity, sources and
// status requests.
func fakeOBVPlatform(t *testing.T) *fakePlatform {
	return newFakePlatform(t, "obv", func(r *http.Request) (int, string, string) {
		const js = "application/json"
		switch {
		case r.URL.Path == "/api/search":
			return 200, "obv-search.json", js
		case r.URL.Path == "/api/sources":
			return 200, "obv-sources.json", js
		case r.URL.Path == "/api/status":
			return 200, "obv-status.json", js
		case strings.HasPrefix(r.URL.Path, "/api/entities/document:"):
			return 200, "obv-entity-document.json", js
		case strings.HasPrefix(r.URL.Path, "/api/entities/meeting:"):
			return 200, "obv-entity-meeting.json", js
		}
		return 404, "", js
	})
}

// fakeRechtspraakPlatform answers Rechtspraak's ECLI index, content and
// court list.
func fakeRechtspraakPlatform(t *testing.T) *fakePlatform {
	return newFakePlatform(t, "rechtspraak", func(r *http.Request) (int, string, string) {
		const xml = "application/xml"
		switch {
		case r.URL.Path == "/uitspraken/zoeken":
			return 200, "rechtspraak-zoeken.xml", xml
		case r.URL.Path == "/uitspraken/content":
			return 200, "rechtspraak-content.xml", xml
		case r.URL.Path == "/Waardelijst/Instanties":
			return 200, "rechtspraak-waardelijst-instanties.xml", xml
		}
		return 404, "", "text/html"
	})
}

// testHost is a Host over the two fake platforms, served on httptest.
type testHost struct {
	h           *Host
	url         string
	obv, rechts *fakePlatform
}

// startTestHost loads the obv and rechtspraak connectors against fakes.
// extra is appended to the config (TOML).
func startTestHost(t *testing.T, extra string) *testHost {
	t.Helper()
	if raceEnabled() {
		// Compiling the two modules costs about two minutes under -race,
		// which the package's race run cannot spare; these tests are
		// sequential and run without -race in make test, and the pages'
		// and the job's concurrency is raced in host/internal/serve/web and
		// host/internal/serve/loadstatus.
		t.Skip("host-level page and status tests run without -race")
	}
	th := &testHost{obv: fakeOBVPlatform(t), rechts: fakeRechtspraakPlatform(t)}
	obvWasm := wasmbuild.Path(t, "./plugins/obv/cmd")
	rsWasm := wasmbuild.Path(t, "./plugins/rechtspraak/cmd")
	tmp := t.TempDir()
	cfgPath := filepath.Join(tmp, "plugins.toml")
	body := `
[runtime]
compilation_cache_dir = "` + testCompilationCache(t) + `"
[cache]
dir = "` + filepath.Join(tmp, "cache") + `"
[mcp_rate_limit]
enabled = false
[connectors.obv]
module = "` + obvWasm + `"
base_url = "` + th.obv.srv.URL + `"
private_networks = ["127.0.0.0/8"]
pool_size = 2
[connectors.rechtspraak]
module = "` + rsWasm + `"
base_url = "` + th.rechts.srv.URL + `"
private_networks = ["127.0.0.0/8"]
pool_size = 2
` + extra
	if err := os.WriteFile(cfgPath, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(cfgPath, []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), &Options{Config: cfg, Version: "9.9.9-test", Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	th.h, th.url = h, srv.URL
	return th
}

// testLogger discards logs unless BESLUITBRON_TEST_LOG is set.
func testLogger() *slog.Logger {
	if os.Getenv("BESLUITBRON_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// testCompilationCache is the wazero compilation cache shared by this
// package's test hosts, the one the external tests' proofCompileDir names
// (var/wazero-proof, kept between runs and between the plain and -race
// steps): compiling the same module again for every host costs a minute
// under -race.
func testCompilationCache(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(wasmbuild.Root(), "var", "wazero-proof")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Compiling seven modules under the race detector takes minutes; this
// end-to-end test runs in the plain pass of make test, and the concurrency
// it relies on is race-tested in host/internal/serve/crosssearch and
// internal/platformsim.

//go:build !race

package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/host"
	"github.com/besluitbron/besluitbron/internal/platformsim"
	"github.com/besluitbron/besluitbron/internal/wasmbuild"
)

// simConnectors are the seven connectors, each pointed at the simulator.
var simConnectors = []string{"obk", "obv", "openarchivaris", "opentk", "ori", "rechtspraak", "tk"}

// simHost starts the platform simulator in process and a host with all
// seven connectors (built from source, once per test binary) pointed at
// it, as `make demo` does with demo.toml.
func simHost(t *testing.T) (*platformsim.Sim, string) {
	t.Helper()
	t0 := time.Now()
	sim, err := platformsim.New(platformsim.Options{DataDir: filepath.Join(wasmbuild.Root(), "testdata"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	up := httptest.NewServer(sim.Handler())
	t.Cleanup(up.Close)
	t.Cleanup(sim.Close) // first: releases hanging requests
	wasm := make(map[string]string)
	for _, id := range simConnectors {
		wasm[id] = wasmbuild.Path(t, "./plugins/"+id+"/cmd")
	}
	t.Logf("modules built after %v", time.Since(t0))
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "[runtime]\ncompilation_cache_dir = %q\n[cache]\ndir = %q\n[status]\nenabled = false\n", proofCompileDir(t), t.TempDir())
	urls, rewrites := platformsim.BaseURLs(up.URL), platformsim.URLRewrites(up.URL)
	for _, id := range simConnectors {
		fmt.Fprintf(&cfg, "[connectors.%s]\nmodule = %q\nbase_url = %q\nprivate_networks = [\"127.0.0.0/8\"]\npool_size = 2\n", id, wasm[id], urls[id])
		for _, rw := range rewrites[id] {
			fmt.Fprintf(&cfg, "url_rewrites = [%q]\n", rw)
		}
	}
	c, err := host.LoadConfig(writeConfig(t, cfg.String()), []string{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), &host.Options{Config: c, Version: "9.9.9-sim", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	t.Logf("host up after %v", time.Since(t0))
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(srv.Close)
	return sim, srv.URL
}

type crossResult struct {
	Platforms []struct {
		Platform string
		Status   string
		Error    string
		Results  []struct{ ID, Title, URL, Organization string }
		Notes    []string
		// ListedElsewhere counts results that are copies of a document
		// an earlier section shows (under its also_on).
		ListedElsewhere int `json:"listed_elsewhere"`
	}
	Answered, Failed, Skipped []string
}

// TestAgainstTheSimulator is what `make demo` promises: every platform's
// search works through the host against the simulator, besluitbron_search
// answers for all of them, and a hanging platform costs only itself. One
// host serves every subtest (loading seven modules is the slow part).
func TestAgainstTheSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds all seven connectors")
	}
	sim, base := simHost(t)
	cs := connect(t, base+"/mcp/unified/v1")

	t.Run("every platform's own search", func(t *testing.T) {
		for id, args := range map[string]map[string]any{
			"obv":            {"query": "klimaat"},
			"ori":            {"query": "klimaat"},
			"tk":             {"query": "klimaat"},
			"opentk":         {"query": "klimaat"},
			"obk":            {"query": "klimaat"},
			"openarchivaris": {"query": "klimaat"},
			"rechtspraak":    {"court": "Raad van State"},
		} {
			res := callTool(t, cs, id+"_search", args)
			var sr struct {
				Platform string
				Results  []struct{ ID string }
			}
			if res.IsError || json.Unmarshal([]byte(text(res)), &sr) != nil || sr.Platform != id || len(sr.Results) == 0 {
				t.Errorf("%s_search: %s", id, shorten(text(res), 300))
			}
		}
	})

	t.Run("full texts", func(t *testing.T) {
		for tool, c := range map[string]struct {
			args map[string]any
			want string
		}{
			"obv_get_document":            {map[string]any{"entity_id": "document:ibabs:gemeente:utrecht:77001"}, "klimaatneutraal"},
			"ori_get_document":            {map[string]any{"id": "8101001"}, "klimaatneutraal"},
			"tk_get_document":             {map[string]any{"id": "2024D41190"}, "Klimaatwet"}, // text extracted from the simulated PDF
			"opentk_get_document":         {map[string]any{"nummer": "2025D06020"}, "Woningbouwimpuls"},
			"rechtspraak_get_document":    {map[string]any{"ecli": "ECLI:NL:HR:2019:2007"}, "Urgenda"},
			"openarchivaris_get_document": {map[string]any{"id": "d-2025-zwolle-000077"}, "fietsbrug"},
			// Through the second host: the official publication's XML.
			"obk_get_document": {map[string]any{"id": "kst-33328-AI"}, "Wet open overheid"},
		} {
			res := callTool(t, cs, tool, c.args)
			if res.IsError || !strings.Contains(text(res), c.want) {
				t.Errorf("%s: %s", tool, shorten(text(res), 300))
			}
		}
	})

	t.Run("a Kamerstuk's text from its official XML", func(t *testing.T) {
		res := callTool(t, cs, "tk_get_document", map[string]any{"id": "2023D52517"})
		if res.IsError || !strings.Contains(text(res), `"text_source":"officielebekendmakingen_xml"`) {
			t.Errorf("%s", shorten(text(res), 400))
		}
	})

	t.Run("besluitbron_search answers every platform", func(t *testing.T) {
		res := callTool(t, cs, "besluitbron_search", map[string]any{"query": "klimaat", "limit": 3})
		var r crossResult
		if res.IsError || json.Unmarshal([]byte(text(res)), &r) != nil {
			t.Fatalf("%s", shorten(text(res), 500))
		}
		if got := strings.Join(r.Answered, ","); got != "obk,obv,openarchivaris,opentk,ori,tk" {
			t.Errorf("answered %s; failed %v: %s", got, r.Failed, shorten(text(res), 2000))
		}
		for _, p := range r.Platforms {
			if n := len(p.Results) + p.ListedElsewhere; n == 0 || n > 3 {
				t.Errorf("%s: %d results, %d listed elsewhere", p.Platform, len(p.Results), p.ListedElsewhere)
			}
		}
		for _, k := range []string{"besluitbron/cache", "besluitbron/queued_ms", "besluitbron/upstream_ms"} {
			if _, ok := res.Meta[k]; !ok {
				t.Errorf("_meta lacks %s", k)
			}
		}
		// The organisation is resolved per platform, and Rechtspraak is
		// searched by its filters only when named.
		res = callTool(t, cs, "besluitbron_search", map[string]any{"query": "woningbouw", "organization": "Gemeente Soest", "platforms": []string{"obv", "ori", "obk", "openarchivaris", "rechtspraak"}})
		r = crossResult{}
		if json.Unmarshal([]byte(text(res)), &r) != nil || len(r.Answered) != 4 || !strings.Contains(strings.Join(r.Skipped, ","), "rechtspraak") {
			t.Errorf("Soest: %s", shorten(text(res), 2000))
		}
		for _, p := range r.Platforms {
			for _, it := range p.Results {
				if !strings.Contains(strings.ToLower(it.URL+it.ID+it.Organization), "soest") {
					t.Errorf("%s: %s is not Soest's", p.Platform, it.ID)
				}
			}
		}
	})

	t.Run("a hanging platform is named and the others answer", func(t *testing.T) {
		if err := sim.SetFault("ori", platformsim.Fault{Hang: true}); err != nil {
			t.Fatal(err)
		}
		if err := sim.SetFault("obk", platformsim.Fault{ErrorRate: 1}); err != nil {
			t.Fatal(err)
		}
		defer sim.ClearFaults()
		// A query not searched before, so no platform answers from cache.
		res := callTool(t, cs, "besluitbron_search", map[string]any{"query": "jeugdzorg", "timeout_seconds": 3})
		var r crossResult
		if res.IsError || json.Unmarshal([]byte(text(res)), &r) != nil {
			t.Fatalf("%s", shorten(text(res), 500))
		}
		status := map[string]string{}
		for _, p := range r.Platforms {
			status[p.Platform] = p.Status
			switch p.Platform {
			case "ori":
				if p.Status != "timeout" || !strings.Contains(p.Error, "no answer within 3s") {
					t.Errorf("ori: %s %q", p.Status, p.Error)
				}
			case "obk":
				if p.Status != "error" || !strings.Contains(p.Error, "503") {
					t.Errorf("obk: %s %q", p.Status, p.Error)
				}
			default:
				if p.Status != "ok" || len(p.Results)+p.ListedElsewhere == 0 {
					t.Errorf("%s: %s %q with %d results, %d listed elsewhere", p.Platform, p.Status, p.Error, len(p.Results), p.ListedElsewhere)
				}
			}
		}
		if len(status) != 6 || strings.Join(r.Failed, ",") != "obk,ori" {
			t.Errorf("statuses %v failed %v", status, r.Failed)
		}
		if n := sim.Stats().Platforms["ori"].Injected["hang"]; n == 0 {
			t.Error("the simulator saw no hanging ori request")
		}
	})

	t.Run("an English query that finds nothing gets the Dutch hint", func(t *testing.T) {
		res := callTool(t, cs, "besluitbron_search", map[string]any{"query": "nitrogen"})
		var r struct {
			ResultCount int `json:"result_count"`
			Hint        string
		}
		if res.IsError || json.Unmarshal([]byte(text(res)), &r) != nil {
			t.Fatalf("%s", shorten(text(res), 500))
		}
		if r.ResultCount != 0 || !strings.Contains(r.Hint, `search in Dutch, e.g. query="stikstof"`) {
			t.Errorf("nitrogen: %d results, hint %q", r.ResultCount, r.Hint)
		}
	})

	t.Run("bad arguments name the argument", func(t *testing.T) {
		res := callTool(t, cs, "besluitbron_search", map[string]any{"query": "x", "platforms": []string{"nowhere"}})
		if !res.IsError || !strings.Contains(text(res), `argument "platforms"`) {
			t.Errorf("got %q", text(res))
		}
	})

	t.Run("errors an assistant reads", func(t *testing.T) {
		checkAssistantErrors(t, sim, base) // errors_e2e_test.go
	})

	if st := sim.Stats().Platforms["obv"]; st.MaxWindowUnits > 120 || st.TooMany != 0 {
		t.Errorf("OpenBesluitvorming: %v units in a minute, %d refusals", st.MaxWindowUnits, st.TooMany)
	}
}

// shorten keeps failure messages readable.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

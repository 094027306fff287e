package platformsim

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/besluitbron/besluitbron/internal/syncbuf"
)

// probes are one cheap GET per platform.
var probes = map[string]string{
	"obv":            "/obv/api/sources",
	"ori":            "/ori/v1/elastic/ori_*/_search?q=klimaat",
	"tk":             "/tk/OData/v4/2.0/Fractie",
	"opentk":         "/opentk/tkconv/kamerleden.html",
	"obk":            "/obk/sru?operation=searchRetrieve&version=2.0&query=klimaat",
	"rechtspraak":    "/rechtspraak/Waardelijst/Instanties",
	"openarchivaris": "/openarchivaris/api/governments",
}

// TestErrorShapesPerPlatform: an injected 5xx is the platform's own error
// answer, not a generic one.
func TestErrorShapesPerPlatform(t *testing.T) {
	sim, root, _ := start(t, nil)
	want := map[string]struct {
		status int
		ctype  string
		marker string
	}{
		"obv":            {500, "application/json", `"request_id"`},
		"ori":            {503, "application/json", "search_phase_execution_exception"},
		"tk":             {500, "application/json", `{"error":{"code"`},
		"opentk":         {500, "text/html", "<h1>Error 500</h1>"},
		"obk":            {503, "text/html", "503 Service Temporarily Unavailable"},
		"rechtspraak":    {503, "text/html", "Service Unavailable"},
		"openarchivaris": {500, "application/json", "Interne fout"},
	}
	for id, p := range probes {
		if err := sim.SetFault(id, Fault{ErrorRate: 1}); err != nil {
			t.Fatal(err)
		}
		a := get(t, root+p)
		w := want[id]
		if a.status != w.status || !strings.HasPrefix(a.header.Get("Content-Type"), w.ctype) || !bytes.Contains(a.body, []byte(w.marker)) {
			t.Errorf("%s: HTTP %d %s %s, want %d %s containing %q", id, a.status, a.header.Get("Content-Type"), a.body, w.status, w.ctype, w.marker)
		}
		if id == "obv" && a.header.Get("RateLimit-Remaining") == "" {
			t.Error("obv: a 500 without RateLimit-* headers")
		}
	}
	for id := range probes {
		if n := sim.Stats().Platforms[id].Injected["error"]; n != 1 {
			t.Errorf("%s: %d errors counted, want 1", id, n)
		}
	}
}

func TestStorm429PerPlatform(t *testing.T) {
	sim, root, _ := start(t, nil)
	for id, p := range probes {
		sim.SetFault(id, Fault{Storm429: true, RetryAfter: 7})
		a := get(t, root+p)
		if a.status != 429 || a.header.Get("Retry-After") != "7" {
			t.Errorf("%s: HTTP %d Retry-After %q", id, a.status, a.header.Get("Retry-After"))
		}
	}
	st := sim.Stats()
	for id := range probes {
		if st.Platforms[id].TooMany != 1 || st.Platforms[id].Units != 0 {
			t.Errorf("%s: %+v", id, st.Platforms[id])
		}
	}
	var body map[string]any
	sim.SetFault("obv", Fault{Storm429: true})
	a := get(t, root+probes["obv"])
	_, recorded := recorded429(t)
	if json.Unmarshal(a.body, &body) != nil || !cmp.Equal(keys(body), keys(recorded)) || a.header.Get("Retry-After") != "5" || a.header.Get("RateLimit-Limit") != "60" {
		t.Errorf("obv storm: %v %s", a.header, a.body)
	}
}

func TestHangResetMalformedLatency(t *testing.T) {
	sim, root, _ := start(t, nil)

	sim.SetFault("tk", Fault{Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", root+probes["tk"], nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("hang: got HTTP %d", resp.StatusCode)
	} else if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("hang: %v", err)
	}
	// Other platforms answer meanwhile.
	if a := get(t, root+probes["obk"]); a.status != 200 {
		t.Errorf("obk during tk's hang: HTTP %d", a.status)
	}

	sim.SetFault("ori", Fault{ResetRate: 1})
	// A fresh connection: Go's client retries a GET once when a reused
	// connection is reset, which would count two resets.
	fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	if resp, err := fresh.Get(root + probes["ori"]); err == nil {
		resp.Body.Close()
		t.Errorf("reset: got HTTP %d", resp.StatusCode)
	}

	sim.SetFault("openarchivaris", Fault{MalformedRate: 1})
	a := get(t, root+probes["openarchivaris"])
	var v any
	if a.status != 200 || json.Unmarshal(a.body, &v) == nil {
		t.Errorf("malformed: HTTP %d, body parses: %s", a.status, a.body)
	}

	sim.SetFault("rechtspraak", Fault{Latency: time.Millisecond})
	if a := get(t, root+probes["rechtspraak"]); a.status != 200 {
		t.Errorf("latency: HTTP %d", a.status)
	}
	sim.ClearFaults()
	if a := get(t, root+probes["tk"]); a.status != 200 {
		t.Errorf("tk after clearing: HTTP %d", a.status)
	}
	st := sim.Stats()
	for id, kind := range map[string]string{"tk": "hang", "ori": "reset", "openarchivaris": "malformed", "rechtspraak": "latency"} {
		if st.Platforms[id].Injected[kind] != 1 {
			t.Errorf("%s: injected %v, want one %s", id, st.Platforms[id].Injected, kind)
		}
	}
}

// TestFractionalRatesRepeat: the same seed gives the same faults.
func TestFractionalRatesRepeat(t *testing.T) {
	run := func() []int {
		sim, root, _ := start(t, nil)
		sim.SetFault("tk", Fault{ErrorRate: 0.5})
		var got []int
		for i := 0; i < 20; i++ {
			got = append(got, get(t, root+probes["tk"]).status)
		}
		return got
	}
	a, b := run(), run()
	n := 0
	for _, s := range a {
		if s == 500 {
			n++
		}
	}
	if !cmp.Equal(a, b) || n == 0 || n == 20 {
		t.Errorf("runs %v and %v: want equal, mixed", a, b)
	}
}

func TestAdminAPI(t *testing.T) {
	sim, root, _ := start(t, nil)
	put := func(id, body string) answer {
		req, _ := http.NewRequest("PUT", root+"/_sim/faults/"+id, strings.NewReader(body))
		return do(t, req)
	}
	if a := put("obv", `{"latency":"250ms","error_rate":0.5}`); a.status != 200 {
		t.Fatalf("PUT: HTTP %d %s", a.status, a.body)
	}
	if got := sim.Faults()["obv"]; got != (Fault{Latency: 250 * time.Millisecond, ErrorRate: 0.5}) {
		t.Errorf("fault set: %+v", got)
	}
	for body, want := range map[string]string{
		`{"latncy":"1s"}`:      "latncy",
		`{"error_rate":2}`:     "error_rate",
		`{"latency":"soon"}`:   "latency",
		`{"hang":"yes"}`:       "hang",
		`{"retry_after":-1}`:   "retry_after",
		`not json`:             "fault",
		`{"reset_rate":-0.1}`:  "reset_rate",
		`{"malformed_rate":1}`: "",
	} {
		a := put("tk", body)
		if want == "" {
			if a.status != 200 {
				t.Errorf("%s: HTTP %d %s", body, a.status, a.body)
			}
			continue
		}
		if a.status != 400 || !strings.Contains(string(a.body), want) {
			t.Errorf("%s: HTTP %d %s, want 400 naming %q", body, a.status, a.body, want)
		}
	}
	if a := put("nowhere", `{}`); a.status != 400 || !strings.Contains(string(a.body), "unknown platform") {
		t.Errorf("unknown platform: HTTP %d %s", a.status, a.body)
	}
	req, _ := http.NewRequest("DELETE", root+"/_sim/faults/obv", nil)
	do(t, req)
	a := get(t, root+"/_sim/faults")
	var faults map[string]Fault
	if json.Unmarshal(a.body, &faults) != nil || len(faults) != 1 || faults["tk"].MalformedRate != 1 {
		t.Errorf("faults: %s", a.body)
	}
	get(t, root+probes["obv"])
	var st Stats
	if err := json.Unmarshal(get(t, root+"/_sim/stats").body, &st); err != nil || st.Platforms["obv"].Requests != 1 || st.Window != "1m0s" {
		t.Errorf("stats: %v %+v", err, st)
	}
	a = do(t, mustReq(t, "POST", root+"/_sim/stats/reset"))
	if json.Unmarshal(a.body, &st) != nil || st.Total() != 0 {
		t.Errorf("after reset: %s", a.body)
	}
	if a := get(t, root+"/"); !strings.Contains(string(a.body), "/tk/OData/v4/2.0") {
		t.Errorf("index: %s", a.body)
	}
	if a := get(t, root+"/_sim/nothing"); a.status != 404 {
		t.Errorf("unknown admin path: HTTP %d", a.status)
	}
}

func mustReq(t *testing.T, method, u string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestParseFault(t *testing.T) {
	good := map[string]struct {
		id string
		f  Fault
	}{
		"obv:latency=2s,error_rate=0.2":        {"obv", Fault{Latency: 2 * time.Second, ErrorRate: 0.2}},
		"tk:hang":                              {"tk", Fault{Hang: true}},
		"opentk:storm429,retry_after=9":        {"opentk", Fault{Storm429: true, RetryAfter: 9}},
		"ori:reset_rate=1, malformed_rate=0.5": {"ori", Fault{ResetRate: 1, MalformedRate: 0.5}},
		"obk:hang=false":                       {"obk", Fault{}},
	}
	for in, want := range good {
		id, f, err := ParseFault(in)
		if err != nil || id != want.id || f != want.f {
			t.Errorf("ParseFault(%q) = %q %+v %v, want %q %+v", in, id, f, err, want.id, want.f)
		}
	}
	bad := map[string]string{
		"obv":                 "want <platform>",
		"nowhere:hang":        "unknown platform",
		"obv:colour=red":      "unknown key",
		"obv:latency=soon":    "latency",
		"obv:error_rate=1.5":  "error_rate",
		"obv:error_rate":      "error_rate",
		"obv:hang=maybe":      "hang",
		"obv:retry_after=x":   "retry_after",
		"obv:latency=-1s":     "negative",
		"obv:reset_rate=-0.5": "reset_rate",
	}
	for in, want := range bad {
		if _, _, err := ParseFault(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseFault(%q) = %v, want an error naming %q", in, err, want)
		}
	}
}

// TestRequestLog: every request is a log line with platform, path, cost
// and status.
func TestRequestLog(t *testing.T) {
	var logs syncBuffer
	_, root, _ := start(t, &logs)
	get(t, root+"/obv/api/search?query=klimaat&limit=100")
	get(t, root+"/tk/OData/v4/2.0/Fractie")
	out := logs.String()
	for _, want := range []string{
		`platform=obv method=GET path="/obv/api/search?query=klimaat&limit=100" cost=5 status=200`,
		`platform=tk method=GET path=/tk/OData/v4/2.0/Fractie cost=1 status=200`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "msg=request"); n != 2 {
		t.Errorf("%d log lines, want 2", n)
	}
}

// syncBuffer collects log lines written while the test reads them.
type syncBuffer = syncbuf.Buffer

// TestHammer sends requests to every platform from many goroutines while
// faults are flipped, and checks that every request is counted exactly
// once (run with -race).
func TestHammer(t *testing.T) {
	sim, root, clock := start(t, nil)
	const workers, each = 8, 25
	ids := keys(probes)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				id := ids[(w+i)%len(ids)]
				resp, err := http.Get(root + probes[id])
				if err != nil {
					t.Errorf("%s: %v", id, err)
					return
				}
				resp.Body.Close()
			}
		}()
	}
	for i := 0; i < 50; i++ {
		sim.SetFault(ids[i%len(ids)], Fault{ErrorRate: 0.5})
		sim.Stats()
		clock.Advance(time.Second)
		sim.SetFault(ids[i%len(ids)], Fault{})
	}
	wg.Wait()
	if got := sim.Stats().Total(); got != workers*each {
		t.Errorf("%d requests counted, want %d", got, workers*each)
	}
	var sum int64
	for _, p := range sim.Stats().Platforms {
		for _, n := range p.Status {
			sum += n
		}
	}
	if sum != workers*each {
		t.Errorf("%d statuses counted, want %d", sum, workers*each)
	}

}

// TestZoekHostCountedAndFaulted: zoek.officielebekendmakingen.nl, which the
// obk and tk connectors both read, is counted under its own key (requests,
// the window's units) and takes faults like a platform, so that tests can
// see the one host that both connectors' limits must keep.
func TestZoekHostCountedAndFaulted(t *testing.T) {
	sim, root, _ := start(t, nil)
	if st, ok := sim.Stats().Platforms[Zoek]; !ok || st.Requests != 0 {
		t.Fatalf("no zero entry for %s: %+v", Zoek, sim.Stats().Platforms)
	}
	if a := get(t, root+"/zoek/stcrt-2015-47076.xml"); a.status != 200 {
		t.Fatalf("zoek: HTTP %d", a.status)
	}
	get(t, root+"/zoek/stcrt-2015-99999.xml") // a 404 is a request the host counted too
	if st := sim.Stats().Platforms[Zoek]; st.Requests != 2 || st.Units != 2 || st.MaxWindowUnits != 2 {
		t.Errorf("zoek after two requests: %+v", st)
	}
	if err := sim.SetFault(Zoek, Fault{Storm429: true, RetryAfter: 3}); err != nil {
		t.Fatal(err)
	}
	if a := get(t, root+"/zoek/stcrt-2015-47076.xml"); a.status != 429 || a.header.Get("Retry-After") != "3" {
		t.Errorf("zoek in a 429 storm: HTTP %d, Retry-After %q", a.status, a.header.Get("Retry-After"))
	}
	if st := sim.Stats().Platforms[Zoek]; st.TooMany != 1 || st.Injected["storm429"] != 1 || st.Units != 2 {
		t.Errorf("zoek after the 429: %+v", st)
	}
	if id, f, err := ParseFault("zoek:storm429,retry_after=2"); err != nil || id != Zoek || !f.Storm429 {
		t.Errorf("ParseFault: %q %+v %v", id, f, err)
	}
}
